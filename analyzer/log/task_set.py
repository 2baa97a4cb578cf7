"""Which task set a log ran: its task ids and, where the log records them, its prompts.

Two logs are the same task set only when their shared ids carry the same prompts: logs of different
tools often number their tasks 1, 2, 3, and pairing those by id alone compares different questions.
Compare, the history and the audit all decide "same tasks" here, so they can never disagree.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from analyzer.log.model import RunLog
from analyzer.log.table import log_table


def task_ids(log: RunLog) -> list[str]:
    """Every result's task id as text, read from the log's columns (no result objects are built) and
    kept with its table, so each reader of a loaded log converts them once."""
    table = log_table(log)
    ids = table.cache.get("task_id_list")
    if ids is None:
        ids = table.cache["task_id_list"] = [str(t) for t in table.results["task_id"]]
    return list(ids)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class TaskSet:
    """A log's tasks: ids (as text) and, per id whose prompt the log records, the prompt's hash."""

    ids: frozenset[str]
    prompt_hashes: dict[str, str]
    experiment_file: str | None = None
    """The file this log is one experiment group of (promptfoo's prompts or providers side by side):
    its groups ask the same tests, each in its own wording, so they pair by test whatever the prompt."""

    @property
    def key(self) -> str:
        """One id for the set: a hash over every id and its prompt's hash ("" where not recorded)."""
        text = "\n".join(f"{i}\t{self.prompt_hashes.get(i, '')}" for i in sorted(self.ids))
        return "taskset:" + _digest(text)[:16]

    @property
    def prompts_recorded(self) -> bool:
        return bool(self.ids) and self.ids <= self.prompt_hashes.keys()


def task_set(log: RunLog) -> TaskSet:
    """The ids of every task the log ran or lists, with the prompts its task list records."""
    ids = set(task_ids(log))
    hashes: dict[str, str] = {}
    for spec in log.tasks or []:
        ids.add(str(spec.task_id))
        hashes[str(spec.task_id)] = _digest(spec.prompt)
    source = (log.imported_from or {}).get("experiment_of")
    return TaskSet(frozenset(ids), hashes, source if isinstance(source, str) else None)


@dataclass(frozen=True)
class Pairing:
    """Whether two task sets may be set side by side, over which ids, and why not when they may not."""

    shared: frozenset[str]
    comparable: bool
    reason: str | None
    by_id_only: bool


def pairing(a: TaskSet, b: TaskSet) -> Pairing:
    """Tasks pair when they share ids and every shared id whose prompt both record has the same one.

    A shared id whose prompts differ makes the two logs different task sets: nothing is paired. Where
    either log does not record a prompt, ids are all there is, and `by_id_only` says so.
    """
    shared = a.ids & b.ids
    if not shared:
        return Pairing(frozenset(), False, "they share no task id", False)
    if a.experiment_file is not None and a.experiment_file == b.experiment_file:
        return Pairing(frozenset(shared), True, None, False)  # one file's groups: the same tests
    both = [i for i in shared if i in a.prompt_hashes and i in b.prompt_hashes]
    differing = sorted(i for i in both if a.prompt_hashes[i] != b.prompt_hashes[i])
    if differing:
        n = len(differing)
        reason = (
            f"{n} of the {len(both)} task ids both record ({', '.join(differing[:3])}"
            f"{', ...' if n > 3 else ''}) carry different prompts: they are different tasks"
        )
        return Pairing(frozenset(), False, reason, False)
    return Pairing(frozenset(shared), True, None, len(both) < len(shared))
