"""AppWorld experiment outputs as a tree of files, read from a folder or from a zip of one.

AppWorld writes each experiment to `experiments/outputs/<experiment>/`: `evaluations/<dataset>.json`
(from `appworld evaluate`) and `tasks/<task_id>/{logs,evaluation,version,dbs}/...` (from the run).
A repeated run is one experiment per round, so RerunLens opens a folder (or a zip) holding several
experiment folders, or a single experiment folder (one round). `experiments(tree)` finds them by
the files inside, never by a folder's name.
"""

from __future__ import annotations

import hashlib
import io
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from analyzer.errors import LogError
from analyzer.safety.bounded_read import read_file
from analyzer.safety.bounded_zip import archive_problem

_MARK = re.compile(r"^(.*?)(?:evaluations/[^/]+\.json|tasks/[^/]+/(?:logs|evaluation|version)/[^/]+)$")
"""A file AppWorld writes inside an experiment folder; group 1 is the experiment's prefix."""
_NATURAL = re.compile(r"(\d+)")
_NON_BLANK_LINE = re.compile(rb"[^\s][^\n]*")
"""From a line's first non-blank character to its end."""
MAX_TREE_BYTES = 512 * 1024 * 1024
"""Most bytes the AppWorld outputs of one folder or zip may hold (inflated): their request logs and
reports, never their databases; a tree is held in memory whole while it is read."""
PRESENCE_ONLY = "/logs/environment_io.md"
"""A file only whose presence is read (it says code ran): its content is never loaded."""


@dataclass
class Tree:
    """Files by their `/`-separated path relative to the opened folder or zip."""

    name: str
    """The folder or zip, for messages."""
    files: dict[str, bytes] = field(default_factory=dict)

    def lines(self, name: str) -> Iterator[tuple[int, str]]:
        """The non-blank lines of one file with their numbers, found one at a time (a file of a
        hundred million newlines is never split into a list)."""
        raw, number, at = self.files[name], 1, 0
        for match in _NON_BLANK_LINE.finditer(raw):
            number += raw.count(b"\n", at, match.start())
            at = match.start()
            yield number, match.group().decode("utf-8", "replace")

    def digest(self) -> bytes:
        """A digest of every name and content, so importing the same outputs twice gives one run id."""
        h = hashlib.sha256()
        for name in sorted(self.files):
            h.update(name.encode() + b"\0" + self.files[name] + b"\0")
        return h.digest()


def experiments(tree: Tree) -> list[str]:
    """The experiment folders in the tree (prefixes ending in `/`, or `` for the root itself), in
    natural order of their names (`run2` before `run10`)."""
    found = {m.group(1) for name in tree.files if (m := _MARK.match(name))}
    return sorted(found, key=_natural_key)


def _natural_key(prefix: str) -> list[object]:
    return [int(part) if part.isdigit() else part for part in _NATURAL.split(prefix)]


def _read_within(path: Path, root: Path, room: int) -> bytes:
    """One output file, refused before reading when it alone would pass what is left of the cap."""
    try:
        return read_file(path, max(room, 0), "AppWorld output", LogError)
    except LogError as exc:
        if "limit" in str(exc):
            raise LogError(
                f"{root}: the AppWorld outputs are over the {MAX_TREE_BYTES // 2**20} MiB limit"
            ) from None
        raise


def read_folder(root: Path) -> Tree:
    """Every AppWorld output file under `root` (task databases left out: they are not read).

    Raises:
        LogError: the files together are over the size limit, or one cannot be read.
    """
    tree = Tree(name=str(root))
    total = 0
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if "/dbs/" in f"/{rel}" or "/checkpoints/" in f"/{rel}" or not _MARK.match(rel) or not path.is_file():
            continue
        data = b"" if rel.endswith(PRESENCE_ONLY) else _read_within(path, root, MAX_TREE_BYTES - total)
        total += len(data)
        if total > MAX_TREE_BYTES:
            raise LogError(f"{root}: the AppWorld outputs are over the {MAX_TREE_BYTES // 2**20} MiB limit")
        tree.files[rel] = data
    return tree


def zip_names(data: bytes) -> list[str] | None:
    """The entry names of a zip, or None when the bytes are not a readable zip."""
    try:
        return zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error):
        return None


def looks_like_zip(data: bytes) -> bool:
    """True for a zip holding AppWorld experiment outputs (and not Inspect's `header.json`)."""
    names = zip_names(data)
    if not names or "header.json" in names or "_journal/start.json" in names:
        return False
    return any(_MARK.match(n) for n in names)


def read_zip(data: bytes, name: str) -> Tree:
    """The AppWorld output files of a zip.

    Raises:
        LogError: the zip is damaged or inflates past the size limit.
    """
    tree = Tree(name=name)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = [i for i in archive.infolist() if not i.is_dir() and _MARK.match(i.filename)]
        tree.files.update({i.filename: b"" for i in infos if i.filename.endswith(PRESENCE_ONLY)})
        wanted = [i for i in infos if i.filename not in tree.files and "/dbs/" not in f"/{i.filename}"]
        if (problem := archive_problem(wanted, MAX_TREE_BYTES)) is not None:
            raise LogError(f"{name}: AppWorld outputs refused: {problem}")
        for info in wanted:
            tree.files[info.filename] = _entry(archive, info, name)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error) as exc:
        raise LogError(f"{name}: damaged zip ({exc})") from None
    return tree


def _entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> bytes:
    """One entry's bytes; a damaged one (bad compressed data, bad CRC, cut short) is one line naming it."""
    try:
        return archive.read(info)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, ValueError) as exc:
        raise LogError(f"{name}: {info.filename}: damaged zip entry ({exc})") from None
