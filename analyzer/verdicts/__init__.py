"""Verdicts between logs: groups compared, a re-run's before and after.

- `compare`: experiment groups side by side and the tasks that flip.
- `paired_stats`: paired differences over shared tasks, with intervals, McNemar p and tasks needed.
- `rerun_verdict`: a re-run's verdict per task with its chance.
- `before_after`: a re-run's before/after and its typed `Verdict`.
- `rerun_sentences`: a re-run's verdict in sentences, the one source of the CLI's and the page's.
"""
