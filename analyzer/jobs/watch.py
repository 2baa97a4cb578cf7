"""Watching a run from outside: read its journal as it grows, never disturbing the process writing it.

A run (CLI or dashboard) appends one line per finished result to `<out>.journal.jsonl` and removes
the journal once the final log is written. Watching only reads the file's bytes: it takes no lock
(the writer holds an exclusive `flock`; a reader that asked for one would fail or block it), opens
nothing for writing, and a line the writer is still writing is ignored until it is whole
(`read_journal` drops a torn tail). When the journal is gone and the log is there, the run finished.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analyzer.errors import RerunLensError
from analyzer.importers import load_any
from analyzer.log.model import Result
from analyzer.runner.journal import JOURNAL_SUFFIX, read_journal

ANSWER_CHARS = 120
"""Answers are shortened to this many characters in the table of answers so far."""


@dataclass(frozen=True)
class RunProgress:
    """What a watched run has done so far."""

    journal: Path
    """The journal being read."""
    out: Path
    """The log the run will write when it finishes."""
    run_id: str
    label: str | None
    tasks: int
    rounds: int
    done: int
    """Results finished (errors included)."""
    errors: int
    retries: int
    """HTTP attempts beyond each result's first."""
    tokens: int
    finished: bool
    """True when the final log is written (the journal is gone)."""
    answers: pd.DataFrame
    """Per task: rounds done, distinct answers so far, errors, retries, the latest answer."""

    @property
    def total(self) -> int:
        return self.tasks * self.rounds

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


def log_for(journal: str | os.PathLike[str]) -> Path:
    """`runs/A.altk_runs.journal.jsonl` -> `runs/A.altk_runs.json` (the log the run will write)."""
    p = Path(journal)
    return p.with_name(p.name.removesuffix(JOURNAL_SUFFIX) + ".json")


def running_journals(folder: str | os.PathLike[str]) -> list[Path]:
    """Journals of runs under a folder (in progress or interrupted), newest first."""
    root = Path(folder)
    if not root.is_dir():
        return []
    found = [p for p in root.rglob("*" + JOURNAL_SUFFIX) if p.is_file()]
    return sorted(found, key=lambda p: p.stat().st_mtime_ns, reverse=True)


def inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> Path:
    """`path` (a relative one from here or from `folder`) when it lies inside `folder` once links
    are followed.

    Raises:
        RerunLensError: the path leads outside the folder (an absolute path elsewhere, `../`, a link).
    """
    root = Path(folder).expanduser().resolve()
    given = Path(path).expanduser()
    for candidate in (given.resolve(), (root / given).resolve()):  # `runs/x.json` or `x.json`
        if candidate.is_relative_to(root):
            return candidate
    raise RerunLensError(
        f"{str(path)[:200]}: not inside your runs folder {root}; the dashboard only reads runs there"
    )


def watch(journal: str | os.PathLike[str], within: str | os.PathLike[str] | None = None) -> RunProgress:
    """The run's progress from its journal, or from its final log once the journal is removed.

    Args:
        journal: The journal's path.
        within: Refuse a journal (and its log) outside this folder (the dashboard's runs folder).

    Raises:
        RerunLensError: neither the journal nor the log is there, the journal is damaged, or it is
            outside `within`.
    """
    path = Path(journal) if within is None else inside(journal, within)
    out = log_for(path)
    try:
        state = read_journal(path)
    except RerunLensError:
        if path.exists():
            raise  # damaged: the one-line message names the line
        if out.exists():
            return _from_log(path, out)  # finished: the journal made way for the log
        raise RerunLensError(f"{path}: no such journal, and no log {out.name} beside it") from None
    return _progress(path, out, state.header, list(state.results.values()), finished=False)


def _from_log(path: Path, out: Path) -> RunProgress:
    log = load_any(out).log
    results = [r.model_copy(update={"round": rnd}) for rnd, r in log.results()]
    header: dict[str, object] = {
        "run_id": log.run_id or out.name,
        "label": log.label,
        "tasks": sorted({str(r.task_id) for r in results}),
        "rounds": len(log.runs),
    }
    return _progress(path, out, header, results, finished=True)


def _progress(
    path: Path, out: Path, header: dict[str, object], results: list[Result], *, finished: bool
) -> RunProgress:
    tasks = header.get("tasks") or []
    rounds = header.get("rounds") or 0
    retries = [r.retries for r in results]
    return RunProgress(
        journal=path,
        out=out,
        run_id=str(header.get("run_id")),
        label=label if isinstance(label := header.get("label"), str) else None,
        tasks=len(tasks) if isinstance(tasks, list) else 0,
        rounds=int(rounds) if isinstance(rounds, int) else 0,
        done=len(results),
        errors=sum(1 for r in results if r.status != "ok"),
        retries=sum(retries),
        tokens=sum(r.total_tokens or 0 for r in results),
        finished=finished,
        answers=answers_so_far(results),
    )


def answers_so_far(results: list[Result]) -> pd.DataFrame:
    """Per task, in the order first seen: rounds done, distinct answers (exact), errors, retries, latest."""
    columns = ["task_id", "rounds_done", "distinct_answers", "errors", "retries", "latest_answer"]
    if not results:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(
        {
            "task_id": [str(r.task_id) for r in results],
            "round": [r.round or 0 for r in results],
            "answer": [
                r.answer.strip() if r.status == "ok" and r.answer is not None else None for r in results
            ],
            "error": [r.status != "ok" for r in results],
            "retries": [r.retries for r in results],
        }
    )
    latest = frame.sort_values("round", kind="stable").groupby("task_id", sort=False)["answer"].last()
    grouped = frame.groupby("task_id", sort=False)
    out = pd.DataFrame(
        {
            "rounds_done": grouped["round"].nunique(),
            "distinct_answers": grouped["answer"].nunique(),
            "errors": grouped["error"].sum().astype(int),
            "retries": grouped["retries"].sum().astype(int),
            "latest_answer": latest.astype("string").str.slice(0, ANSWER_CHARS),
        }
    )
    return out.reset_index()[columns]
