"""Which lm-evaluation-harness files belong together: lm-eval names a run's files by one time,
`results_<time>.json` and `samples_<task>_<time>.jsonl`, in `<output_path>/<model>/`.

A results file opened from disk reads the samples files of its tasks beside it; a samples file reads
the results file of its time beside it, when there is one; a folder (the model folder, or the
output folder holding one model folder) reads its newest run. Files are told apart by their content
(`lm_eval.is_results`); the names only pair a run's files, as lm-eval pairs them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from analyzer.errors import LogError
from analyzer.importers import json_lines
from analyzer.importers.common import Source, parse_json
from analyzer.importers.lm_eval import TaskSamples, is_results
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.safety.bounded_read import read_file

_HEAD_BYTES = 64 * 1024
TIME = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)")
"""The time lm-eval puts in a run's file names."""
NATIVE_SUFFIX = ".altk_runs.json"
"""RerunLens's own logs (runs, re-runs, imports), which lm-eval never writes: not read for its keys."""


def run_time(path: Path) -> str | None:
    """The time in a file's name (the last one), or None."""
    found = TIME.findall(path.name)
    return found[-1] if found else None


def samples_beside(
    path: Path, results: dict[str, Any], source: Source
) -> tuple[list[TaskSamples], list[str]]:
    """The samples files of a results file's tasks beside it, and a warning per task without one."""
    time = run_time(path)
    tasks = [t for t in results.get("configs", {}) if isinstance(t, str)]
    found, warnings = [], []
    for task in tasks:
        pattern = f"samples_{task}_{time}.jsonl" if time else f"samples_{task}_*.jsonl"
        matches = sorted(path.parent.glob(glob_escape(pattern) if time else pattern))
        if len(matches) != 1:
            warnings.append(
                f"{task}: no samples file beside the results file (lm-eval writes it with --log_samples)"
            )
            continue
        found.append(TaskSamples(task, matches[0].name, _records(matches[0], source)))
    if not found:
        source.fail(
            "samples",
            f"no samples_<task>_{time or '<time>'}.jsonl beside it: lm-eval writes the answers only with "
            "--log_samples",
        )
    return found, warnings


def glob_escape(name: str) -> str:
    """A file name as a glob pattern that matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def results_beside(path: Path) -> tuple[dict[str, Any], str] | None:
    """The results file of a samples file's run and the samples' task, when it is beside it."""
    time = run_time(path)
    if time is None or not path.name.startswith("samples_"):
        return None
    task = path.name.removeprefix("samples_").removesuffix(".jsonl").removesuffix(f"_{time}")
    candidate = path.parent / f"results_{time}.json"
    if not candidate.is_file():
        return None
    try:
        results = parse_json(
            read_file(candidate, MAX_LOG_BYTES, "results file", LogError), Source(candidate.name)
        )
    except LogError:
        return None
    return (results, task) if is_results(results) and task in results.get("configs", {}) else None


def newest_results(folder: Path) -> tuple[Path | None, list[str]]:
    """The newest results file in a folder (or in its only subfolder that has one), and a warning
    naming the older runs left out."""
    for place in [folder, *sorted(p for p in folder.iterdir() if p.is_dir())]:
        found = sorted(
            (p for p in place.glob("*.json") if _is_results_file(p)), key=lambda p: run_time(p) or ""
        )
        if found:
            older = [p.name for p in found[:-1]]
            note = (
                [f"{len(older)} older lm-eval run(s) in the folder left out: {', '.join(older)}"]
                if older
                else []
            )
            return found[-1], note
    return None, []


def read_beside(path: Path) -> list[Path]:
    """The files a read of `path` may open beside it, decided by names and first bytes only (the
    dashboard's cache key takes their times on every page visit): a samples file's results file, or
    a results file's samples files (every task's, a superset of those its `configs` name)."""
    time = run_time(path)
    if path.name.startswith("samples_") and path.suffix == ".jsonl":
        candidate = path.parent / f"results_{time}.json"
        return [candidate] if time and candidate.is_file() else []
    if path.suffix != ".json" or path.name.endswith(NATIVE_SUFFIX) or not _head_looks_like_results(path):
        return []
    return sorted(path.parent.glob(f"samples_*_{glob_escape(time)}.jsonl" if time else "samples_*.jsonl"))


def _head_looks_like_results(path: Path) -> bool:
    """Whether a file's first bytes name lm-eval's results keys (nothing is parsed)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return False
    return b'"results"' in head and (b'"alias"' in head or b'"configs"' in head)


def _is_results_file(path: Path) -> bool:
    """A results file by its content: its first bytes name lm-eval's keys before the whole is parsed
    (a folder of large run logs is not read through to find none)."""
    if not _head_looks_like_results(path):
        return False
    try:
        return is_results(
            parse_json(read_file(path, MAX_LOG_BYTES, "results file", LogError), Source(path.name))
        )
    except LogError:
        return False


def _records(path: Path, source: Source) -> list[dict[str, Any]]:
    try:
        text = read_file(path, MAX_LOG_BYTES, "samples file", LogError).decode("utf-8-sig")
    except (LogError, UnicodeDecodeError) as exc:
        source.fail(path.name, str(exc).removeprefix(f"{path}: "))
    return json_lines.parse(text, Source(f"{source.name}: {path.name}"))[json_lines.RECORDS]
