"""Where a dashboard job stands: the content of its state file (never a key)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from analyzer.metrics.answer_keys import AnswerKey

JobKind = Literal["run", "rerun"]
JobState = Literal["running", "done", "cancelled", "failed", "interrupted"]


class JobStatus(BaseModel):
    """Where a job stands; also the content of its state file (no key, ever)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    job_id: str
    """Short unique id."""
    kind: JobKind
    """`run` (a task file) or `rerun` (tasks of a parent log)."""
    state: JobState
    """`running`, `done`, `cancelled` (resumable), `failed`, or `interrupted` (process died; resumable)."""
    request_key: str
    """Hash of what was asked (kind, tasks, rounds, route): the same request finds the same job."""
    label: str | None = None
    """Label of the log being written."""
    out: str
    """Final log path."""
    journal: str
    """Journal path (exists while unfinished)."""
    parent: str | None = None
    """Parent log path, for a re-run."""
    tasks_file: str | None = None
    """Task file with the definitions, for a re-run of a format-1 log."""
    answer_key: AnswerKey = "exact"
    """Answer key a re-run's verdict uses (kept so a resumed job judges the same way)."""
    selection: str | None = None
    """A re-run's selection when it was named (`flagged`, `inconsistent`); None for a hand pick."""
    task_ids: list[str] = Field(default_factory=list)
    """Tasks in the job."""
    rounds: int
    """Rounds per task."""
    profile: dict[str, Any]
    """The route profile (base URL, key variable, parameters; never a key)."""
    key_source: str
    """`env:<VARIABLE>` or `session` (a key typed into the page; needed again to resume)."""
    key_fingerprint: str | None = None
    """Fingerprint of the key used."""
    done: int = 0
    """Results finished."""
    total: int = 0
    """Results the job will have."""
    tokens: int = 0
    """Tokens so far."""
    retries: int = 0
    """Retries so far."""
    errors: int = 0
    """Errored results so far."""
    pid: int = 0
    """Process running the job."""
    host: str = ""
    """Host of that process."""
    process_token: str = ""
    """Token of that process."""
    started_at: datetime | None = None
    """When the job (or its latest resume) started."""
    updated_at: datetime | None = None
    """Last state write."""
    finished_at: datetime | None = None
    """When it ended."""
    cancel_requested: bool = False
    """Set by a cancel from any process; the owner stops at the next check."""
    run_id: str | None = None
    """Run id of the log being written."""
    simulator: bool = False
    """True when the embedded simulator serves."""
    notice: str | None = None
    """The simulator notice, or another one-line note for the page."""
    error: str | None = None
    """One-line reason when failed."""
    turned_consistent: list[str] | None = None
    """Re-run: tasks that became consistent on the pinned route."""
    still_inconsistent: list[str] | None = None
    """Re-run: tasks still inconsistent on the pinned route."""
    pinned: list[str] | None = None
    """Re-run: what it pinned (`route`, and `seed` or `scenario` where it changed them too)."""
    changes: list[str] | None = None
    """Re-run: what it changed besides the route, in sentences (`RerunReport.warnings`)."""

    @property
    def fraction(self) -> float:
        """done / total, 0..1."""
        return self.done / self.total if self.total else 0.0

    @property
    def active(self) -> bool:
        """True while running."""
        return self.state == "running"

    @property
    def resumable(self) -> bool:
        """True when cancelled or interrupted and its journal is still there."""
        return self.state in ("cancelled", "interrupted") and Path(self.journal).exists()


def now() -> datetime:
    """The time stamps of a status (UTC)."""
    return datetime.now(UTC)
