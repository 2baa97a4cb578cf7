"""Read the logs people already have: Inspect AI, tau-bench, tau2-bench and promptfoo files and
AppWorld experiment outputs (a folder, or a zip of one), found by their content (never their name),
mapped to a format-2 `RunLog` with provenance.

`load_any(path)` is the one way a log is opened by path (CLI, dashboard, re-runs, watch): it reads
through `analyzer.safety.bounded_read` (regular files only, the size cap, one-line errors) and
returns the same `LoadedLog` as the native loader (`analyzer.log.loader.load_bytes`) for native
logs and the imported log for foreign ones; `load_any_bytes(data, name)` does the same for an upload;
`import_to_file(src, out)` writes an imported log (never over an existing file), and
`list_any_logs(folder)` lists a runs folder's native and foreign logs. A damaged file is
one `LogError` line naming the file and the place. See docs/formats.md for every field map.

One module per format (`inspect_log` with `inspect_archive` and `inspect_attempts`, `tau_bench`,
`tau2_bench`, `promptfoo`, `appworld` with `appworld_tree`, `altk_evolve`), registered once in
`FOREIGN_FORMATS`; `common` (provenance, the shared row mapping), `messages` (chat messages to
steps), `listing` and `unlisted` (which files of a folder are logs, and which look like logs but
cannot be read), `stamp` (a fingerprint of every file a read opens).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from analyzer.atomic import write_text_atomic
from analyzer.errors import LogError
from analyzer.formats import FORMATS, format_list
from analyzer.importers import (
    altk_evolve,
    appworld,
    inspect_log,
    json_lines,
    lm_eval,
    proxy_journal,
    tau2_bench,
)
from analyzer.importers.appworld_tree import Tree, looks_like_zip, read_folder, read_zip
from analyzer.importers.common import ForeignLogError, Provenance, Row, Source, build_log, parse_json
from analyzer.importers.inspect_archive import is_empty_zip, is_eval_archive, read_eval_archive
from analyzer.importers.inspect_eval_set import LISTING, is_eval_set, read_eval_set
from analyzer.importers.listing import list_any_logs
from analyzer.importers.lm_eval_files import newest_results, results_beside, samples_beside
from analyzer.log.loader import MAX_LOG_BYTES, LoadedLog, load_bytes
from analyzer.log.model import RunLog
from analyzer.log.structural import structural_warnings
from analyzer.safety.bounded_read import read_file

__all__ = [
    "FOREIGN_FORMATS",
    "ForeignLogError",
    "detect_format",
    "import_to_file",
    "list_any_logs",
    "load_any",
    "load_any_bytes",
    "native_text",
]

Reader = Callable[[Any, Source], tuple[list[Row], Provenance]]


def _registered() -> dict[str, tuple[Callable[[Any], bool], Reader]]:
    out = {}
    for fmt in FORMATS:
        if fmt.module is None:
            continue
        module = importlib.import_module(f"analyzer.importers.{fmt.module}")
        if fmt.key != module.FORMAT:
            raise RuntimeError(f"analyzer.formats: {module.__name__} reads {module.FORMAT!r} not {fmt.key!r}")
        out[fmt.key] = (module.looks_like, module.read)
    return out


FOREIGN_FORMATS: dict[str, tuple[Callable[[Any], bool], Reader]] = _registered()
"""Each foreign format of `analyzer.formats.FORMATS` that is one file: how its parsed content is
recognised, and its reader. Order matters only in that the first match wins; the shapes do not
overlap."""

NATIVE = "altk-runs"


def load_any(path: str | os.PathLike[str]) -> LoadedLog:
    """Read a native run log or a foreign one from a file, recognised by its content.

    A tau2-bench `results.json` in the directory layout reads its `simulations/` folder beside it;
    a folder is read as an Inspect eval set (its `logs.json`), an lm-evaluation-harness output
    folder (its newest `results_<time>.json`), else AppWorld experiment outputs (one experiment
    folder per round).

    Raises:
        LogError: the file is missing, too large, damaged, or in no format RerunLens reads.
    """
    p = Path(path)
    if p.name == LISTING and is_eval_set(p.parent):
        p = p.parent  # an eval set's listing: its logs are the folder's
    if p.is_dir() and is_eval_set(p):
        read, source, digest = read_eval_set(p)
        return _imported(read, source, digest)
    if p.is_dir():
        results, notes = newest_results(p)
        if results is not None:
            loaded = load_any(results)
            provenance = loaded.log.imported_from or {}
            provenance["warnings"] = [*notes, *provenance.get("warnings", [])]  # every report says it
            return LoadedLog(log=loaded.log, source=str(p), warnings=[*notes, *loaded.warnings])
        return _appworld_folder(p)
    data = read_file(p, MAX_LOG_BYTES, "run log", LogError)
    return _bounded_depth(data, str(p), p)


def load_any_bytes(data: bytes, name: str = "upload") -> LoadedLog:
    """Read a native or foreign log from bytes (an upload); `name` names it in messages.

    Raises:
        LogError: the bytes are damaged or in no format RerunLens reads.
    """
    if len(data) > MAX_LOG_BYTES:
        raise LogError(f"{name}: {len(data) / 2**20:.0f} MiB is over the {MAX_LOG_BYTES // 2**20} MiB limit")
    return _bounded_depth(data, name, None)


def detect_format(data: bytes, name: str = "upload") -> str:
    """The format of some bytes: `altk-runs` (native) or a key of `FOREIGN_FORMATS`.

    Raises:
        LogError: the bytes are not JSON (or a zip) or match no known format.
    """
    if is_eval_archive(data):
        return appworld.FORMAT if looks_like_zip(data) else inspect_log.FORMAT
    _refuse_empty_zip(data, Source(name))
    return _match(_parsed(data, Source(name)), Source(name))


def import_to_file(src: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Import a foreign log and write it as a format-2 log; the path written is returned.

    `out` defaults to SRC's name with `.altk_runs.json` in place of its suffix, beside it. An
    existing file is never overwritten, and a native log is refused (there is nothing to import).

    Raises:
        LogError: SRC cannot be read, is already a native log, or OUT exists.
    """
    source = Path(src)
    stem = source.name if source.is_dir() else source.stem
    target = Path(out) if out is not None else source.with_name(stem + ".altk_runs.json")
    if target.exists():
        raise LogError(f"{target}: already exists; choose another output path (nothing was written)")
    loaded = load_any(source)
    if getattr(loaded.log, "imported_from", None) is None:
        raise LogError(f"{source}: already a RerunLens run log; there is nothing to import")
    text = native_text(loaded.log)
    if target.exists():  # checked again: the import may have taken a while
        raise LogError(f"{target}: already exists; choose another output path (nothing was written)")
    return write_text_atomic(target, text)


def native_text(log: RunLog) -> str:
    """An (imported) log as the text of a format-2 file, as `import_to_file` writes it; for keeping an
    uploaded foreign file in the runs folder as a log the native loader reads."""
    return log.model_dump_json(exclude_none=True, indent=2) + "\n"


def _bounded_depth(data: bytes, name: str, path: Path | None) -> LoadedLog:
    """`_load`, with a value nested deeper than a reader or check can follow as one line naming the file."""
    try:
        return _load(data, name, path)
    except RecursionError:
        raise LogError(f"{name}: nested too deeply to be read (tool arguments or messages?)") from None


def _load(data: bytes, name: str, path: Path | None) -> LoadedLog:
    source = Source(name)
    if is_eval_archive(data) and looks_like_zip(data):
        return _appworld(read_zip(data, name))
    if is_eval_archive(data):
        return _imported(inspect_log.read(read_eval_archive(data, source), source), source, data)
    _refuse_empty_zip(data, source)
    if _maybe_native(data):
        try:
            return load_bytes(data, name)  # one parse for the common case
        except LogError as native_error:
            found = _foreign(data, source)
            if found is None:
                raise native_error from None
            kind, parsed = found
    else:
        parsed = _parsed(data, source)
        kind = _match(parsed, source)
    if kind == NATIVE:
        return load_bytes(data, name)
    if kind == tau2_bench.FORMAT and tau2_bench.empty_run(parsed):
        source.fail(
            "simulations", "this tau2-bench run holds no simulations (its list is empty): nothing ran"
        )
    if kind == tau2_bench.FORMAT and tau2_bench.needs_folder(parsed):
        if path is None:
            source.fail(
                "simulations",
                "the simulations are in a simulations/ folder beside this file; open it from disk",
            )
        sims = tau2_bench.read_folder_simulations(path, parsed, source)
        return _imported(tau2_bench.read(parsed, source, sims), source, data)
    if kind == lm_eval.FORMAT and path is not None:
        return _imported(_lm_eval_beside(path, parsed, source), source, data)
    if kind == altk_evolve.FORMAT and path is not None:
        beside = altk_evolve.siblings(path, parsed, source)
        return _imported(altk_evolve.read(parsed, source, beside), source, data)
    return _imported(FOREIGN_FORMATS[kind][1](parsed, source), source, data)


def _lm_eval_beside(path: Path, parsed: Any, source: Source) -> tuple[list[Row], Provenance]:
    """An lm-eval results file with its samples files, or a samples file with its results file."""
    records = json_lines.records(parsed)
    if records is None:
        tasks, missing = samples_beside(path, parsed, source)
        rows, prov = lm_eval.read_run(parsed, tasks, source)
        prov.warnings[:0] = missing
        return rows, prov
    found = results_beside(path)
    if found is None:
        return lm_eval.read(parsed, source)
    results, task = found
    return lm_eval.read_run(results, [lm_eval.TaskSamples(task, "", records)], source)


def _appworld_folder(path: Path) -> LoadedLog:
    tree = read_folder(path)
    if not tree.files:
        raise LogError(
            f"{path}: is a folder with no AppWorld experiment outputs (evaluations/ or tasks/) in it, "
            "not a run log file"
        )
    return _appworld(tree)


def _appworld(tree: Tree) -> LoadedLog:
    return _imported(appworld.read(tree), Source(tree.name), tree.digest())


def _imported(read: tuple[list[Row], Provenance], source: Source, data: bytes) -> LoadedLog:
    rows, prov = read
    log = build_log(rows, prov, source, data)
    return LoadedLog(log=log, source=source.name, warnings=[*prov.warnings, *structural_warnings(log)])


def _refuse_empty_zip(data: bytes, source: Source) -> None:
    if is_empty_zip(data):
        source.fail("", "an empty zip archive (no entries): no Inspect AI log or AppWorld outputs in it")


def _match(parsed: Any, source: Source) -> str:
    if isinstance(parsed, dict) and isinstance(parsed.get("runs"), list):
        return NATIVE
    for kind, (looks_like, _) in FOREIGN_FORMATS.items():
        if looks_like(parsed):
            return kind
    lines = json_lines.records(parsed)
    if lines is not None:
        source.fail(
            "top level",
            f"JSON Lines ({len(lines)} records) whose records are no log RerunLens reads "
            f"(a log of {format_list()})",
        )
    source.fail(
        "top level",
        f"not a RerunLens run log (no `runs`) nor a log of {format_list()}",
    )


def _maybe_native(data: bytes) -> bool:
    """Cheap byte test: a JSON object that mentions `"runs"` (a foreign file almost never does)."""
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1] == b"{" and b'"runs"' in data


def _foreign(data: bytes, source: Source) -> tuple[str, Any] | None:
    """(format, parsed content) of a file the native loader refused; None when it is not foreign
    either, and the native loader's error is the one to show."""
    try:
        parsed = _parsed(data, source)
    except LogError:
        return None
    for kind, (looks_like, _) in FOREIGN_FORMATS.items():
        if looks_like(parsed):
            return kind, parsed
    return None


def _parsed(data: bytes, source: Source) -> Any:
    """The parsed content: one JSON value, a proxy journal's JSON lines, or other JSON Lines."""
    text = _text(data, source.name)
    if proxy_journal.is_journal(data):
        return proxy_journal.parse_lines(text, source)
    if json_lines.is_json_lines(text):
        return json_lines.parse(text, source)
    return parse_json(text, source)


def _text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LogError(
            f"{name}: not UTF-8 text (byte 0x{data[exc.start : exc.start + 1].hex()} at offset {exc.start})"
        ) from None
