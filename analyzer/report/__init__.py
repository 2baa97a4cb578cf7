"""Renderings of an analysis: for a terminal, as one HTML page to share, as files, and what the
dashboard lays out (it only draws these).

- `text`: terminal renderings of `analyze`, `compare` and a re-run.
- `html`: one self-contained HTML report (`rerunlens report`, Overview's download).
- `export`: flagged tasks as a task file, the per-task table as CSV.
- `finding`: a log's finding in one sentence, with its counts' uncertainty (Overview's first screen).
- `task_filter`, `task_rounds`, `route_tables`, `answer_grid`, `trajectory_view`, `task_history`:
  the Tasks and Routes pages' selections and tables.
- `compare_view`, `runs_table`: Compare's names and tables; the Runs page's table of logs.
"""
