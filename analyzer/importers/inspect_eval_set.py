"""An Inspect eval-set folder: the `.eval` (or `.json`) logs that `inspect eval-set` wrote into its log
folder, listed in its `logs.json` (log file name -> the log's header).

The folder opens as the set of logs it lists, each one an experiment group (`importers.experiments`):
a group is one (task, model) log, its tasks are that log's sample ids, so the same sample lines up
across models in Compare. Only the files `logs.json` names are read, each by its plain name inside
the folder; a name that points elsewhere, or a listed file that is missing, is one error.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from analyzer.errors import LogError
from analyzer.importers import inspect_log
from analyzer.importers.common import Provenance, Row, Source, parse_json, plural
from analyzer.importers.inspect_archive import is_eval_archive, read_eval_archive
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.safety.bounded_read import read_file

LISTING = "logs.json"


def is_eval_set(folder: Path) -> bool:
    """Whether a folder holds an eval set's listing."""
    return (folder / LISTING).is_file()


def set_files(folder: Path) -> list[Path]:
    """The listing and every `.eval` or `.json` file directly in the folder: a superset of the logs
    it lists (plain names inside it), found without parsing the listing."""
    return sorted(p for p in folder.iterdir() if p.suffix in (".eval", ".json") and p.is_file())


def read_eval_set(folder: Path) -> tuple[tuple[list[Row], Provenance], Source, bytes]:
    """The rows and provenance of every listed log as one log of experiment groups, the source
    (named after the folder) and the bytes its run id is derived from."""
    source = Source(str(folder / LISTING))
    listing = source.obj(
        parse_json(read_file(folder / LISTING, MAX_LOG_BYTES, "eval set listing", LogError), source),
        "top level",
    )
    if not listing:
        source.fail("top level", "lists no logs")
    rows: list[Row] = []
    groups: list[dict[str, Any]] = []
    warnings: list[str] = []
    first: Provenance | None = None
    digest = hashlib.sha256()
    for name in listing:
        log_rows, prov, data = _one_log(folder, name, source)
        digest.update(data)
        first = first or prov
        label = _unique(prov.label.removeprefix("Inspect: "), [g["label"] for g in groups])
        route = prov.route.model_dump(exclude_none=True) if prov.route is not None else None
        names = {}
        for row in log_rows:
            task_id = f"{label} / {row.task_id}"
            names[task_id] = str(row.task_id)
            rows.append(Row(task_id, row.round, {**row.fields, "route": route}, f"{name}: {row.place}"))
        groups.append({"label": label, "tasks": names})
        warnings += [f"{label}: {w}" for w in prov.warnings]
    assert first is not None
    prov = Provenance(
        format=inspect_log.FORMAT,
        version=first.version,
        importer=__name__,
        label=f"Inspect eval set: {plural(len(groups), 'log')} ({folder.name})",
        created_at=first.created_at,
        warnings=[
            f"an Inspect eval set of {plural(len(groups), 'log')}, each an experiment group",
            *warnings,
        ],
        experiments=groups,
    )
    return (rows, prov), Source(str(folder)), digest.digest()


def _one_log(folder: Path, name: Any, source: Source) -> tuple[list[Row], Provenance, bytes]:
    if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
        source.fail(repr(name), "not a log file name in this folder")
    path = folder / name
    try:
        data = read_file(path, MAX_LOG_BYTES, "Inspect log", LogError)
    except LogError as exc:
        source.fail(name, f"listed, but cannot be read: {str(exc).removeprefix(f'{path}: ')}")
    inner = Source(f"{folder.name}/{name}")
    parsed = read_eval_archive(data, inner) if is_eval_archive(data) else parse_json(data, inner)
    if not inspect_log.looks_like(parsed):
        inner.fail("top level", "listed in logs.json but not an Inspect log")
    rows, prov = inspect_log.read(parsed, inner)
    return rows, prov, data


def _unique(label: str, taken: list[str]) -> str:
    if label not in taken:
        return label
    n = 2
    while f"{label} #{n}" in taken:
        n += 1
    return f"{label} #{n}"
