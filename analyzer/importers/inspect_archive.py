"""Read an Inspect AI `.eval` archive without importing inspect_ai.

A `.eval` file is a zip whose entries Inspect compresses with zstd (zip method 93), which the
standard library's `zipfile` (before Python 3.14) cannot inflate; the entries are read raw and
inflated with `zstandard`. Deflated and stored entries (older Inspect versions) are read as usual.

The archive holds `header.json` (eval spec, plan, results, stats; written when the eval ends),
`_journal/start.json` (eval spec and plan, written when it starts), `samples/<id>_epoch_<n>.json`
and `reductions.json`. `read_eval_archive` assembles them into the shape of Inspect's `.json` log.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import Any

import zstandard

import analyzer.numbers as numbers
from analyzer.importers.common import Source, parse_json
from analyzer.safety.bounded_zip import archive_problem

ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"
"""An empty zip archive is only its end-of-central-directory record, which starts with this."""
ZSTD_METHOD = 93
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
MAX_ENTRY_BYTES = 256 * 1024 * 1024
"""Largest inflated entry accepted (a guard against a zip bomb)."""
MAX_INFLATED_BYTES = 1024 * 1024 * 1024
"""Most bytes the entries read from one archive may inflate to together."""


def is_eval_archive(data: bytes) -> bool:
    """True when the bytes are a zip archive (the caller then expects Inspect's entries in it)."""
    return data[:4] == ZIP_MAGIC


def is_empty_zip(data: bytes) -> bool:
    """True for an empty zip archive (no entries at all)."""
    return data[:4] == EMPTY_ZIP_MAGIC


def read_eval_archive(data: bytes, source: Source) -> dict[str, Any]:
    """The log as one dict shaped like Inspect's `.json` log (`samples` and `reductions` included)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error) as exc:
        source.fail(
            "", f"not a readable zip archive (an Inspect .eval or AppWorld outputs; cut short?): {exc}"
        )
    with archive:
        _check_bounds(archive, ["header.json", "_journal/start.json"], source)
        if "header.json" in names:
            log = source.obj(_entry(archive, "header.json", data, source), "header.json")
        elif "_journal/start.json" in names:
            log = dict(
                source.obj(_entry(archive, "_journal/start.json", data, source), "_journal/start.json")
            )
            log.setdefault("status", "started")
        else:
            source.fail(
                "", "a zip archive, but not an Inspect AI .eval log (no header.json or _journal/start.json)"
            )
        samples = (n for n in names if n.startswith("samples/") and n.endswith(".json"))
        sample_names = sorted(samples, key=numbers.natural_key)  # sample 10 before 100, as Inspect lists them
        _check_bounds(
            archive, ["header.json", "_journal/start.json", "reductions.json", *sample_names], source
        )
        log = {**log, "samples": [_entry(archive, n, data, source) for n in sample_names]}
        log["_sample_places"] = sample_names
        if "reductions.json" in names:
            log["reductions"] = _entry(archive, "reductions.json", data, source)
    return log


def _check_bounds(archive: zipfile.ZipFile, names: list[str], source: Source) -> None:
    """Refuse, before inflating them, entries that would inflate past the limit or like a zip bomb."""
    listed = set(archive.namelist())
    problem = archive_problem([archive.getinfo(n) for n in names if n in listed], MAX_INFLATED_BYTES)
    if problem is not None:
        source.fail("", f"archive refused: {problem}")


def _entry(archive: zipfile.ZipFile, name: str, data: bytes, source: Source) -> Any:
    info = archive.getinfo(name)
    if info.file_size > MAX_ENTRY_BYTES:
        source.fail(name, f"entry of {info.file_size} bytes is over the {MAX_ENTRY_BYTES} byte limit")
    if info.compress_type == ZSTD_METHOD:
        raw = _raw_bytes(info, data, source)
        try:
            text = zstandard.ZstdDecompressor().decompress(raw, max_output_size=max(info.file_size, 1))
        except zstandard.ZstdError as exc:
            source.fail(name, f"damaged zstd data: {exc}")
        if zlib.crc32(text) != info.CRC:
            source.fail(name, "damaged entry: its CRC-32 does not match the data (corrupted archive?)")
    else:
        try:
            text = archive.read(name)
        except (zipfile.BadZipFile, zlib.error, OSError, NotImplementedError, EOFError, ValueError) as exc:
            source.fail(name, f"damaged entry: {exc}")
    return parse_json(text, source, name)


def _raw_bytes(info: zipfile.ZipInfo, data: bytes, source: Source) -> bytes:
    """An entry's compressed bytes, located through its local file header."""
    start = info.header_offset
    header = data[start : start + _LOCAL_HEADER.size]
    if len(header) < _LOCAL_HEADER.size or header[:4] != ZIP_MAGIC:
        source.fail(info.filename, "damaged entry: local header missing (truncated archive?)")
    fields = _LOCAL_HEADER.unpack(header)
    name_len, extra_len = fields[-2], fields[-1]
    begin = start + _LOCAL_HEADER.size + name_len + extra_len
    raw = data[begin : begin + info.compress_size]
    if len(raw) < info.compress_size:
        source.fail(info.filename, "damaged entry: the archive ends inside it (truncated file?)")
    return raw
