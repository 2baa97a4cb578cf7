"""Job state files: one small JSON file per job in the runs folder, readable by any process.

`<runs_dir>/.rerunlens/jobs/<job_id>.jobstate` holds a `JobStatus`. A job whose file says `running`
but whose process is gone reads as `interrupted` (resumable from its journal). A cancel from another
process is a flag in the file that the owner checks.
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from pathlib import Path
from typing import Any

from analyzer.atomic import write_text_atomic
from analyzer.errors import RerunLensError
from analyzer.jobs.status import JobStatus

STATE_DIR = Path(".rerunlens") / "jobs"
STATE_SUFFIX = ".jobstate"
PROCESS_TOKEN = uuid.uuid4().hex
"""Identifies this process in state files (a pid alone can be reused)."""
RUNNING_HERE: set[str] = set()
"""Ids of jobs whose thread runs in this process (whichever manager started them)."""


class StateStore:
    """The state files of one runs folder."""

    def __init__(self, runs_dir: Path) -> None:
        self.state_dir = runs_dir / STATE_DIR

    def path(self, job_id: str) -> Path:
        """The state file of a job (an id with anything but letters, digits, - and _ is refused)."""
        if not job_id or not all(c.isalnum() or c in "-_" for c in job_id):
            raise RerunLensError(f"job id {job_id!r} is not valid")
        return self.state_dir / f"{job_id}{STATE_SUFFIX}"

    def job_ids(self) -> list[str]:
        """Every job with a state file."""
        if not self.state_dir.is_dir():
            return []
        return [p.name.removesuffix(STATE_SUFFIX) for p in self.state_dir.glob(f"*{STATE_SUFFIX}")]

    def read_raw(self, job_id: str) -> dict[str, Any] | None:
        """The file's JSON as it is; None when missing or unreadable."""
        try:
            data = json.loads(self.path(job_id).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def read(self, job_id: str) -> JobStatus | None:
        """The job's status; `running` becomes `interrupted` when its process is gone."""
        data = self.read_raw(job_id)
        if data is None:
            return None
        try:
            status = JobStatus.model_validate(data)
        except ValueError:
            return None
        if status.state == "running" and not owner_alive(status):
            status.state = "interrupted"
        return status

    def cancel_requested(self, job_id: str) -> bool:
        """True when some process asked this job to stop."""
        on_disk = self.read_raw(job_id)
        return bool(on_disk and on_disk.get("cancel_requested"))

    def write(self, status: JobStatus) -> None:
        """Replace the job's file atomically."""
        self.write_text(status.job_id, status.model_dump_json(indent=2))

    def write_text(self, job_id: str, text: str) -> None:
        """Replace the job's file atomically with a status already dumped (under its owner's lock)."""
        write_text_atomic(self.path(job_id), text)


def owner() -> dict[str, Any]:
    """The fields that name this process as a job's owner."""
    return {"pid": os.getpid(), "host": socket.gethostname(), "process_token": PROCESS_TOKEN}


def owner_alive(status: JobStatus) -> bool:
    """Whether the process running a job still exists (a job of ours missing from the registry is dead)."""
    if status.host and status.host != socket.gethostname():
        return True  # another machine sharing the folder: trust the file
    if status.process_token == PROCESS_TOKEN:
        return status.job_id in RUNNING_HERE
    try:
        os.kill(status.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
