"""tau-bench results (sierra-research/tau-bench): a JSON list of `{task_id, trial, reward, info, traj}`.

Field map: `task_id` -> task, `trial` (0-based) -> round `trial + 1`, `reward` -> score, success when
the reward is 1 within 1e-6 (tau-bench's own `is_successful`), `traj` -> trajectory (the agent's tool
calls with their arguments) and the answer (the agent's last message with text), `info.task` ->
task definition and expected actions, `info.error` -> an errored result. tau-bench records no
tokens, no model, no key and no retries.
"""

from __future__ import annotations

from typing import Any

from analyzer.importers.common import Provenance, Row, Source, plural
from analyzer.importers.messages import final_answer, trajectory
from analyzer.log.model import TaskSpec

FORMAT = "tau-bench"
SUCCESS_TOLERANCE = 1e-6
"""tau-bench and tau2-bench count a reward as a success when it is 1 within this tolerance."""


def is_success(reward: float) -> bool:
    """tau-bench's `is_successful`: reward within 1e-6 of 1."""
    return (1 - SUCCESS_TOLERANCE) <= reward <= (1 + SUCCESS_TOLERANCE)


def looks_like(data: Any) -> bool:
    """A non-empty list whose first entry has `task_id`, `reward` and `traj` or `trial`."""
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return False
    first = data[0]
    return "task_id" in first and "reward" in first and ("traj" in first or "trial" in first)


def read(data: Any, source: Source) -> tuple[list[Row], Provenance]:
    """Rows and provenance from a parsed tau-bench results list."""
    entries = source.items(data, "top level")
    rows: list[Row] = []
    tasks: dict[str, TaskSpec] = {}
    errored = untried = 0
    for i, raw in enumerate(entries):
        place = f"[{i}]"
        entry = source.obj(raw, place)
        row, task = _row(entry, place, source)
        rows.append(row)
        errored += row.fields.get("status") == "error"
        untried += "trial" not in entry
        if task is not None:
            tasks.setdefault(str(task.task_id), task)
    warnings = []
    if errored:
        warnings.append(
            f"{plural(errored, 'result')} raised an exception in tau-bench (info.error): RerunLens "
            "counts them as errors and leaves them out of Pass^k; tau-bench counted them as failures "
            "(reward 0), so its Pass^k is lower by that"
        )
    if untried:
        warnings.append(f"{plural(untried, 'result')} have no trial number and were taken as trial 0")
    if _trial_is_a_task_index(rows):
        rows = [Row(task_id=r.task_id, round=1, fields=r.fields, place=r.place) for r in rows]
        warnings.append(
            f"`trial` takes a different value for each of the {len(rows)} tasks and no task has two: it "
            "numbers the tasks, not repeats, so every result is read as round 1 (one run per task)"
        )
    warnings.append("tau-bench records no tokens, model, key or retries: those figures are unknown")
    prov = Provenance(
        format=FORMAT,
        version=None,
        importer=__name__,
        label=f"tau-bench: {source.name.rsplit('/', 1)[-1]}",
        tasks=list(tasks.values()) or None,
        warnings=warnings,
    )
    return rows, prov


def _trial_is_a_task_index(rows: list[Row]) -> bool:
    """True when every task has one result and the trial numbers differ from task to task: a runner
    that wrote each task's index as `trial`. Read literally, each task would be a round of its own."""
    if len(rows) < 2:
        return False
    tasks = {str(r.task_id) for r in rows}
    trials = {r.round for r in rows}
    return len(tasks) == len(rows) and len(trials) == len(rows)


def _row(entry: dict[str, Any], place: str, source: Source) -> tuple[Row, TaskSpec | None]:
    task_id = source.task_id(entry.get("task_id"), f"{place}.task_id")
    trial = entry.get("trial", 0)
    if isinstance(trial, bool) or not isinstance(trial, int) or trial < 0:
        source.fail(f"{place}.trial", "expected a trial number (0 or more)")
    reward = source.number(entry.get("reward"), f"{place}.reward")
    info = source.obj(entry["info"], f"{place}.info") if "info" in entry else {}
    traj = source.items(entry["traj"], f"{place}.traj") if "traj" in entry else None
    fields: dict[str, Any] = {
        "answer": final_answer(traj or []),
        "score": reward,
        "success": is_success(reward),
        "trajectory": None if traj is None else trajectory(traj),
    }
    task = source.optional_obj(info.get("task"), f"{place}.info.task") or None
    if task is not None:
        fields["expected"] = {"actions": task.get("actions"), "outputs": task.get("outputs")}
    if info.get("error"):
        message = str(info["error"]).strip().splitlines()[0] if str(info["error"]).strip() else "error"
        fields.update(
            status="error", answer=None, success=None, error={"type": "exception", "message": message}
        )
    spec = None
    instruction = source.optional_text((task or {}).get("instruction"), f"{place}.info.task.instruction")
    if instruction is not None:
        spec = TaskSpec(task_id=task_id, prompt=instruction, expected=fields.get("expected"))
    return Row(task_id=task_id, round=trial + 1, fields=fields, place=place), spec
