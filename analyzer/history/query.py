"""The history of the logs named: index them into the store, then build the task set's history."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.history.database import HistoryError, database_url
from analyzer.history.store import IndexReport, RunStore
from analyzer.history.timeline import History, build_history, group_by_task_set

RUNS_DIR_ENV = "RERUNLENS_RUNS_DIR"


@dataclass(frozen=True)
class HistoryRequest:
    """What `rerunlens history` and the dashboard ask for."""

    sources: list[str]
    """Folders and log files; none: the runs folder."""
    db_url: str | None = None
    task_set: str | None = None
    rebuild: bool = False


def runs_folder(sources: list[str]) -> Path:
    """Where the default SQLite history lives: the first folder named, else $RERUNLENS_RUNS_DIR or ./runs."""
    for source in sources:
        if Path(source).is_dir():
            return Path(source)
    return Path(os.environ.get(RUNS_DIR_ENV) or "runs")


@dataclass
class HistoryResult:
    history: History
    others: list[dict[str, Any]]
    """Other task sets in the same logs: key and run count."""
    indexed: IndexReport
    shown_url: str


def load_history(request: HistoryRequest) -> HistoryResult:
    """Index the named logs (only new or changed ones are read) and build one task set's history.

    Without `task_set`, the task set with the most runs (the newest on a tie); logs of other task sets
    are never mixed in, even where they share task ids.
    """
    sources = request.sources or [str(runs_folder([]))]
    missing = [s for s in sources if not Path(s).exists()]
    if missing:  # before the store is opened: a default SQLite file would create the folder
        raise HistoryError(f"{missing[0]}: no such file or folder")
    url = database_url(request.db_url, runs_folder(sources))
    store = RunStore(url, rebuild=request.rebuild)
    try:
        report = store.index(sources)
        named = {str(p) for p in _named_paths(sources)}
        rows = [r for r in store.runs() if _under(r["path"], named)]
        groups = group_by_task_set(rows)
        if not groups:
            raise HistoryError(f"{', '.join(sources)}: no readable run log to make a history of")
        key = request.task_set or max(groups, key=lambda k: (len(groups[k]), groups[k][-1]["path"]))
        if key not in groups:
            raise HistoryError(
                f"--key {key}: no run of that task set here (task sets: {', '.join(sorted(groups))})"
            )
        runs = groups[key]
        history = build_history(key, runs, store.tasks_of(r["id"] for r in runs))
        others = [{"task_set": k, "runs": len(v)} for k, v in sorted(groups.items()) if k != key]
        return HistoryResult(history, others, report, store.shown_url)
    finally:
        store.close()


def _named_paths(sources: list[str]) -> list[Path]:
    return [Path(s).resolve() for s in sources]


def _under(path: str, named: set[str]) -> bool:
    return any(path == n or path.startswith(n.rstrip(os.sep) + os.sep) for n in named)
