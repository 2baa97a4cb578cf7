"""Keeping what a person uploads in the runs folder: checked first, written atomically, never over a file.

Task files hold prompts, never keys. Logs are validated by the loader before a byte is written.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

from analyzer.atomic import write_text_atomic
from analyzer.history.on_write import history_wanted, index_written
from analyzer.importers import load_any_bytes, native_text
from analyzer.log.taskfile import load_tasks_bytes

TASK_UPLOADS = Path(".rerunlens") / "tasks"
"""Where uploaded task files are kept, inside the runs folder."""


def _safe_stem(name: str, limit: int = 60) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)[:limit]


def store_task_upload(runs_dir: Path, name: str, content: bytes) -> Path:
    """Keep an uploaded task file so a job can read (and resume) it; the same content is kept once.

    Raises:
        TaskFileError: the file is not a task file (nothing is written).
    """
    load_tasks_bytes(content, name)
    digest = hashlib.sha256(content).hexdigest()[:12]
    target = runs_dir / TASK_UPLOADS / f"{_safe_stem(Path(name).stem)}-{digest}.json"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, content.decode("utf-8-sig"))
    return target


def store_log_upload(
    runs_dir: Path, name: str, content: bytes, warn: Callable[[str], object] | None = None
) -> Path:
    """Keep an uploaded log in the runs folder under a free name (an existing file is never replaced),
    indexed into the runs folder's history at once (unless `RERUNLENS_HISTORY=0`); a failure to index
    is one line to `warn` (default: the `logging` warning), the log is kept all the same.

    Another tool's log (an Inspect `.eval`, a tau-bench list) is kept as the format-2 log it imports to.

    Raises:
        LogError: the file is not a run log (nothing is written).
    """
    loaded = load_any_bytes(content, name)
    foreign = loaded.log.imported_from is not None
    stem = _safe_stem(Path(name).stem if foreign else Path(name).name.removesuffix(".json"), 200)
    target, n = runs_dir / f"{stem}.json", 2
    while target.exists():
        target, n = runs_dir / f"{stem}-upload-{n}.json", n + 1
    write_text_atomic(target, native_text(loaded.log) if foreign else content.decode("utf-8-sig"))
    if history_wanted():
        index_written([target], runs_dir, warn or logging.getLogger(__name__).warning)
    return target
