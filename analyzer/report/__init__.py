"""Renderings of an analysis: for a terminal, as one HTML page to share, and as files.

- `text`: terminal renderings of `analyze`, `compare` and a re-run.
- `html`: one self-contained HTML report (`rerunlens report`, Overview's download).
- `export`: flagged tasks as a task file, the per-task table as CSV.
"""
