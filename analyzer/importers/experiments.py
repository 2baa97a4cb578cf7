"""One file that compares experiments (a promptfoo eval of two providers or two prompts) as one log per
experiment group, so it opens in Compare rather than as one run whose route changed.

The importer lists the groups in the log's provenance (`imported_from.experiments`: each group's label
and its tasks, renamed to the test alone so the same test lines up across groups); `experiment_groups`
cuts the log into those groups.
"""

from __future__ import annotations

from typing import Any

from analyzer.log.loader import LoadedLog
from analyzer.log.model import RunLog


def experiments_of(log: RunLog) -> list[dict[str, Any]]:
    """The experiment groups a log's importer listed; empty when it is one experiment."""
    found = (log.imported_from or {}).get("experiments")
    if not isinstance(found, list) or len(found) < 2:
        return []
    return [g for g in found if isinstance(g, dict) and isinstance(g.get("tasks"), dict)]


def groups_share_route(log: RunLog) -> bool:
    """Whether every experiment group was sent on one and the same route (two prompts through one
    provider), so the groups differ by what they asked, not by where they went."""
    routes: set[str] = set()
    for group in experiments_of(log):
        names = {str(k) for k in group["tasks"]}
        routes |= {
            r.route.model_dump_json(exclude_none=True) if r.route is not None else ""
            for rnd in log.runs
            for r in rnd
            if str(r.task_id) in names
        }
    return len(routes) <= 1


def experiment_groups(loaded: LoadedLog) -> list[tuple[str, LoadedLog]]:
    """(label, log) per experiment group, in the source's order; `[]` when the log is one experiment.

    Each group's log holds only its tasks' results, named as in the group, and says which group of
    the file it is.
    """
    groups = experiments_of(loaded.log)
    base = loaded.log.label or loaded.source
    out = []
    for number, group in enumerate(groups, start=1):
        label = str(group.get("label") or f"group {number}")
        log = _one_group(loaded.log, group["tasks"], f"{base}: {label}", number, loaded.source)
        note = f"one of {len(groups)} experiment groups in {loaded.source}: {label}"
        # Only the note: the file's own warnings count every group's rows ("10 results have no token
        # counts" beside this group's 1), and the group's analysis states them again for its rows.
        out.append((label, LoadedLog(log=log, source=loaded.source, warnings=[note])))
    return out


def _one_group(log: RunLog, tasks: dict[str, Any], label: str, number: int, source: str) -> RunLog:
    names = {str(k): str(v) for k, v in tasks.items()}
    runs = [
        [r.model_copy(update={"task_id": names[str(r.task_id)]}) for r in rnd if str(r.task_id) in names]
        for rnd in log.runs
    ]
    specs = [
        t.model_copy(update={"task_id": names[str(t.task_id)]})
        for t in log.tasks or []
        if str(t.task_id) in names
    ]
    provenance = {k: v for k, v in (log.imported_from or {}).items() if k != "experiments"}
    provenance["experiment_of"] = source  # task_set pairs one file's groups by test, not by prompt
    return log.model_copy(
        update={
            "runs": [rnd for rnd in runs if rnd],
            "tasks": specs or None,
            "label": label,
            "run_id": f"{log.run_id}-g{number}" if log.run_id else None,
            "imported_from": provenance,
        }
    )
