"""`rerunlens audit`: two logs of the same prompts, or a live audit of two routes, then the verdicts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analyzer.atomic import write_text_atomic
from analyzer.audit import audit_figures, audit_html, audit_logs, audit_text
from analyzer.audit.journal_ledger import is_journal_file
from analyzer.cli.consent import terminal_question
from analyzer.cli.history_on_write import index_logs
from analyzer.errors import RerunLensError
from analyzer.importers import load_any
from analyzer.log.model import RunLog
from analyzer.safety.terminal_text import json_text


def audit(args: argparse.Namespace) -> int:
    live = any(getattr(args, k) is not None for k in ("tasks", "reference", "candidate", "samples"))
    if live:
        if args.files:
            raise RerunLensError("audit: give either two logs or --reference and --candidate URLs, not both")
        reference, candidate = _live(args)
    elif len(args.files) == 1:
        return _journal(args)
    elif len(args.files) != 2:
        raise RerunLensError(
            "audit: give two logs (the reference route's, then the candidate's) or one proxy journal"
        )
    else:
        reference, candidate = (load_any(f).log for f in args.files)
    result = audit_logs(reference, candidate, args.alpha)
    if args.html:
        write_text_atomic(args.html, audit_html(result))
    if args.json:
        print(json_text(audit_figures(result)))
    else:
        print(audit_text(result))
    return 0


def _journal(args: argparse.Namespace) -> int:
    """One route a harness ran through the proxy: its reported tokens against the proxy's counts."""
    from analyzer.audit.journal_ledger import journal_ledger, wrapped_journal
    from analyzer.audit.journal_report import journal_figures

    if args.html:
        raise RerunLensError(
            "audit: --html is for two logs; a proxy journal's ledger prints as text or --json"
        )
    given = args.files[0]
    figures = journal_figures(journal_ledger(given if is_journal_file(given) else wrapped_journal(given)))
    print(json_text(figures) if args.json else figures["sentence"])
    return 0


def _live(args: argparse.Namespace) -> tuple[RunLog, RunLog]:
    """Send both routes the same prompts (the task file's, else the probe set), write both logs."""
    from analyzer.audit.live import LiveAudit, confirm_cost, routes_from_names, run_live
    from analyzer.audit.live_folder import log_path
    from analyzer.audit.probes import probe_tasks
    from analyzer.log.taskfile import load_tasks

    samples = args.samples if args.samples is not None else 10
    if samples < 2:
        raise RerunLensError("audit: --samples must be 2 or more (an identity test compares samples)")
    ref, cand = routes_from_names(
        (args.reference, args.candidate), (args.reference_key_env, args.candidate_key_env), args.key_env
    )
    tasks = load_tasks(args.tasks) if args.tasks else probe_tasks()
    live = LiveAudit(tasks, samples, ref, cand, args.model, args.temperature, Path(args.out))

    def say(line: str) -> None:
        print(line, file=sys.stderr)

    confirm_cost(live, say, terminal_question("Start"), args.yes)
    logs = run_live(live, say=say)
    paths = [log_path(live, r) for r in live.routes]
    index_logs(args, paths)
    written = " and ".join(map(str, paths))
    print(f"Wrote {written}", file=sys.stderr)
    return logs
