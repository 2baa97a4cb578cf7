"""Find the logs in a runs folder, native and foreign, without reading any file whole.

Native logs are the native loader's `list_logs`. A foreign file is listed when its first bytes
carry its format's marks (an `.eval` zip with Inspect's entries; JSON whose head names the keys of
a format in `analyzer.formats`; a `.zip` of AppWorld
outputs); `load_any` then decides for certain. AppWorld outputs are folders: the folder holding
experiment folders (or an experiment folder placed directly in the runs folder) is listed once, by
its `evaluations/<dataset>.json` files.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from analyzer.errors import LogError
from analyzer.importers.appworld_tree import looks_like_zip
from analyzer.importers.inspect_archive import ZIP_MAGIC
from analyzer.importers.inspect_eval_set import LISTING
from analyzer.importers.lm_eval_files import results_beside
from analyzer.importers.proxy_journal import is_journal
from analyzer.log.loader import MAX_LOG_BYTES, list_logs
from analyzer.safety.bounded_read import read_file

HEAD_BYTES = 64 * 1024
"""How much of a JSON file is read to recognise it."""
FOREIGN_SUFFIXES = (".json", ".eval", ".zip", ".jsonl")
"""`.jsonl`: a RerunLens proxy journal (the runner's own `.journal.jsonl` checkpoints are not listed),
or an lm-eval samples file with no results file beside it (else the results file lists the run)."""

_MARKS: tuple[tuple[bytes, ...], ...] = (
    (b'"eval"', b'"version"', b'"samples"'),  # Inspect .json
    (b'"evalId"', b'"results"'),  # promptfoo
    (b'"info"', b'"num_trials"', b'"user_info"'),  # tau2-bench results.json (either layout)
    (b'"aggregate_trajectory_uncertainty"', b'"step_uncertainty"'),  # ALTK-Evolve score card
    (b'"results"', b'"alias"', b'"configs"'),  # lm-evaluation-harness results_<time>.json
)
_LM_EVAL_SAMPLE = (b'"doc_id"', b'"resps"', b'"filtered_resps"')


def list_any_logs(folder: str | os.PathLike[str]) -> list[Path]:
    """Native and foreign logs in a folder and its subfolders, sorted by path."""
    root = Path(folder)
    if not root.is_dir():
        return []
    found = set(list_logs(root))
    experiments = _appworld_folders(root) | _eval_set_folders(root)
    for p in root.rglob("*"):
        inside = any(folder in p.parents for folder in experiments)
        if (
            p.suffix in FOREIGN_SUFFIXES
            and not inside
            and p.is_file()
            and p not in found
            and looks_foreign(p)
        ):
            found.add(p)
    return sorted(found | experiments)


def _eval_set_folders(root: Path) -> set[Path]:
    """Inspect eval-set log folders (a `logs.json` listing beside its logs): each listed once, as a folder."""
    return {listing.parent for listing in root.rglob(LISTING) if listing.parent != root and listing.is_file()}


def _appworld_folders(root: Path) -> set[Path]:
    """Folders of AppWorld outputs: each experiment's parent, or the experiment itself at the top."""
    out = set()
    for evaluation in root.glob("**/evaluations/*.json"):
        experiment = evaluation.parent.parent
        if experiment == root or not (experiment / "tasks").is_dir() and not _evaluation_file(evaluation):
            continue
        out.add(experiment if experiment.parent == root else experiment.parent)
    return out


def _head(path: Path) -> bytes | None:
    """The file's first `HEAD_BYTES`; None when it cannot be read."""
    try:
        with path.open("rb") as fh:
            return fh.read(HEAD_BYTES)
    except OSError:
        return None


def _evaluation_file(path: Path) -> bool:
    head = _head(path)
    return head is not None and b'"aggregate"' in head and b'"task_goal_completion"' in head


def looks_foreign(path: Path) -> bool:
    """True when the file's first bytes look like a log of a foreign format RerunLens imports."""
    head = _head(path)
    if head is None:
        return False
    if head[:4] == ZIP_MAGIC:
        return _inspect_archive(path) or (path.suffix == ".zip" and _appworld_zip(path))
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if path.suffix == ".jsonl":
        return is_journal(text) or (all(m in text for m in _LM_EVAL_SAMPLE) and results_beside(path) is None)
    if text[:1] == b"[":  # tau-bench: a list of results
        return b'"task_id"' in text and b'"reward"' in text and (b'"traj"' in text or b'"trial"' in text)
    return text[:1] == b"{" and any(all(m in text for m in marks) for marks in _MARKS)


def _inspect_archive(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    return "header.json" in names or "_journal/start.json" in names


def _appworld_zip(path: Path) -> bool:
    try:
        return looks_like_zip(read_file(path, MAX_LOG_BYTES, "zip archive", LogError))
    except LogError:
        return False
