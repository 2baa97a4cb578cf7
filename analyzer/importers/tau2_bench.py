"""tau2-bench results (sierra-research/tau2-bench): `results.json` with `simulations`, either in the
one file (the text-run default and the older layout) or, in the directory layout, one file per
simulation under `simulations/` beside a `results.json` that holds only the metadata.

Field map: `task_id` -> task, `trial` (0-based) -> round `trial + 1`, `reward_info.reward` -> score,
success when the reward is 1 within 1e-6 (tau2's `is_successful`), `messages` -> trajectory and
answer, the agent's message `usage` -> tokens, `agent_cost` -> cost, the agent's `raw_data.model`
and `system_fingerprint` -> served model and fingerprint, `start_time`/`end_time`/`duration` ->
times, `info.agent_info.llm`/`llm_args` -> route. `termination_reason` `infrastructure_error`
-> an errored result (left out of Pass^k, as tau2's own metrics exclude it); every other
termination (`max_steps`, `too_many_errors`, `agent_error`, ...) stays a graded failure, as in tau2,
and is kept as the finish reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analyzer.errors import LogError
from analyzer.importers.common import (
    Provenance,
    Row,
    Source,
    make_route,
    member_obj,
    parse_json,
    parse_time,
    plural,
)
from analyzer.importers.messages import actions_answer, ends_on_stop, final_answer, is_agent, trajectory
from analyzer.importers.tau_bench import is_success
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.log.model import Route, TaskSpec
from analyzer.safety.bounded_read import read_file

FORMAT = "tau2-bench"
INFRASTRUCTURE_ERROR = "infrastructure_error"
SIMULATIONS_DIR = "simulations"
_ROUTE_ARGS = ("temperature", "top_p", "seed", "max_tokens")


def looks_like(data: Any) -> bool:
    """A results object: `info` plus `simulations` (one file) or `tasks` (directory-layout metadata)."""
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        return False
    return isinstance(data.get("simulations"), list) or (
        isinstance(data.get("tasks"), list) and "num_trials" in data["info"]
    )


def needs_folder(data: dict[str, Any]) -> bool:
    """True for directory-layout metadata: the simulations are in files beside it (the file names
    none; an empty list is a run in which nothing ran, `empty_run`)."""
    return not data.get("simulations") and not empty_run(data)


def empty_run(data: dict[str, Any]) -> bool:
    """True for a run whose file lists its simulations and lists none, with no index of files."""
    return data.get("simulations") == [] and not data.get("simulation_index")


def read_folder_simulations(
    results_path: Path, data: dict[str, Any], source: Source
) -> list[tuple[str, Any]]:
    """(place, simulation) pairs from `simulations/*.json` beside a directory-layout `results.json`.

    The order follows `simulation_index` where the metadata has one, else the file names.
    """
    folder = results_path.parent / SIMULATIONS_DIR
    if not folder.is_dir():
        source.fail("simulations", "no simulations in the file and no simulations/ folder beside it")
    files = {p.stem: p for p in folder.glob("*.json")}
    index = data.get("simulation_index")
    order = [e.get("id") for e in index if isinstance(e, dict)] if isinstance(index, list) else []
    names = [n for n in order if n in files] + sorted(n for n in files if n not in set(order))
    out = []
    for name in names:
        place = f"{SIMULATIONS_DIR}/{files[name].name}"
        try:
            text = read_file(files[name], MAX_LOG_BYTES, "simulation", LogError)
        except LogError as exc:
            source.fail(place, str(exc).removeprefix(f"{files[name]}: "))
        out.append((place, parse_json(text, source, place)))
    return out


def read(
    data: Any, source: Source, simulations: list[tuple[str, Any]] | None = None
) -> tuple[list[Row], Provenance]:
    """Rows and provenance from a parsed tau2 results object.

    Args:
        data: The parsed `results.json`.
        source: The file, for error messages.
        simulations: (place, simulation) pairs read from the `simulations/` folder (directory
            layout); None to read `data["simulations"]`.
    """
    top = source.obj(data, "top level")
    info = source.obj(top.get("info"), "info")
    if simulations is None:
        sims = source.items(top.get("simulations"), "simulations")
        simulations = [(f"simulations[{i}]", s) for i, s in enumerate(sims)]
    checked = [(place, source.obj(sim, place)) for place, sim in simulations]
    rows = [_row(sim, place, source) for place, sim in checked]
    prov = Provenance(
        format=FORMAT,
        version=info.get("git_commit") if isinstance(info.get("git_commit"), str) else None,
        importer=__name__,
        label=_label(info, source),
        created_at=parse_time(top.get("timestamp")),
        route=_route(info, source),
        tasks=_tasks(top.get("tasks")),
        warnings=_warnings(rows) + _answer_warnings(rows, checked),
    )
    return rows, prov


def _row(sim: dict[str, Any], place: str, source: Source) -> Row:
    task_id = source.task_id(sim.get("task_id"), f"{place}.task_id")
    trial = sim.get("trial")  # tau2's SimulationRun.trial is Optional[int]: null is taken as trial 0
    if trial is not None and (isinstance(trial, bool) or not isinstance(trial, int) or trial < 0):
        source.fail(f"{place}.trial", "expected a trial number (0 or more)")
    reason = source.optional_text(sim.get("termination_reason"), f"{place}.termination_reason")
    reward_info = source.optional_obj(sim.get("reward_info"), f"{place}.reward_info")
    reward = source.optional_number(reward_info.get("reward"), f"{place}.reward_info.reward")
    messages = sim.get("messages")
    messages = source.items(messages, f"{place}.messages") if messages is not None else None
    steps = None if messages is None else trajectory(messages)
    answer = final_answer(messages or [])
    if answer is None and steps and ends_on_stop(messages or []):
        answer = actions_answer(steps)  # a solo agent: it acts and stops, and says nothing
    fields: dict[str, Any] = {
        "answer": answer,
        "score": reward,
        "success": None if reward is None else is_success(reward),
        "finish_reason": reason,
        "trajectory": steps,
        "started_at": parse_time(sim.get("start_time")),
        "finished_at": parse_time(sim.get("end_time")),
        "cost_usd": source.optional_number(sim.get("agent_cost"), f"{place}.agent_cost"),
        **_usage(messages or [], f"{place}.messages", source),
        **_served(messages or []),
    }
    duration = source.optional_number(sim.get("duration"), f"{place}.duration")
    if duration is not None and duration >= 0:
        fields["latency_ms"] = duration * 1000.0
    if reason == INFRASTRUCTURE_ERROR:
        detail = (sim.get("info") or {}).get("error") if isinstance(sim.get("info"), dict) else None
        fields.update(
            status="error",
            answer=None,
            success=None,
            error={"type": INFRASTRUCTURE_ERROR, "message": str(detail or "infrastructure error")[:300]},
        )
    return Row(task_id=task_id, round=(trial or 0) + 1, fields=fields, place=place)


def _answer_warnings(rows: list[Row], checked: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Trials taken as 0, and answers that are the agent's actions (it only said the stop token)."""
    out = []
    untried = sum(sim.get("trial") is None for _, sim in checked)
    if untried:
        out.append(
            f"{plural(untried, 'simulation')} with no trial number (null, as tau2 allows): taken as trial 0"
        )
    acted = sum(
        r.fields.get("answer") is not None and not _spoke(sim)
        for r, (_, sim) in zip(rows, checked, strict=True)
    )
    if acted:
        out.append(
            f"{plural(acted, 'simulation')} ended on the stop token with no words from the agent (an "
            "agent without a user simulator): the answer is the agent's tool calls in order, one a line"
        )
    return out


def _spoke(sim: dict[str, Any]) -> bool:
    """Whether the agent said anything but a stop token (checked shapes: `_row` ran first)."""
    messages = sim.get("messages")
    return final_answer(messages if isinstance(messages, list) else []) is not None


def _usage(messages: list[Any], place: str, source: Source) -> dict[str, int]:
    """The agent's tokens: the sum of its messages' `usage`; nothing when none recorded usage."""
    prompt = completion = 0
    seen = False
    for i, m in enumerate(messages):
        if is_agent(m) and m.get("usage") is not None:
            source.obj(m["usage"], f"{place}[{i}].usage")
            seen = True
            prompt += source.count(m["usage"].get("prompt_tokens"), f"{place}[{i}].usage.prompt_tokens")
            completion += source.count(
                m["usage"].get("completion_tokens"), f"{place}[{i}].usage.completion_tokens"
            )
    if not seen:
        return {}
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _served(messages: list[Any]) -> dict[str, str]:
    """Served model and fingerprint from the agent's last raw provider response (never the user's)."""
    for m in reversed(messages):
        if is_agent(m) and isinstance(m.get("raw_data"), dict):
            raw = m["raw_data"]
            out = {}
            if isinstance(raw.get("model"), str):
                out["served_model"] = raw["model"]
            if isinstance(raw.get("system_fingerprint"), str):
                out["system_fingerprint"] = raw["system_fingerprint"]
            return out
    return {}


def _route(info: dict[str, Any], source: Source) -> Route | None:
    agent = source.optional_obj(info.get("agent_info"), "info.agent_info")
    if not agent:
        return None
    args = source.optional_obj(agent.get("llm_args"), "info.agent_info.llm_args")
    fields = {k: args.get(k) for k in _ROUTE_ARGS}
    places = {k: f"info.agent_info.llm_args.{k}" for k in _ROUTE_ARGS}
    fields["model"], places["model"] = agent.get("llm"), "info.agent_info.llm"
    return make_route(fields, source, places)


def _label(info: dict[str, Any], source: Source) -> str:
    env = member_obj(info, "environment_info")
    agent = member_obj(info, "agent_info")
    kind = agent.get("implementation")  # the agent type: two agents on one model differ only here
    llm = agent.get("llm")
    who = f"{kind} on {llm}" if kind and llm and kind != llm else kind or llm
    parts = [str(p) for p in (env.get("domain_name"), who) if p]
    return "tau2-bench: " + (" ".join(parts) if parts else source.name.rsplit("/", 1)[-1])


def _tasks(tasks: Any) -> list[TaskSpec] | None:
    if not isinstance(tasks, list):
        return None
    out = []
    for t in tasks:
        if not isinstance(t, dict) or isinstance(t.get("id"), bool) or not isinstance(t.get("id"), str | int):
            continue
        scenario = member_obj(t, "user_scenario")
        instructions = scenario.get("instructions")
        if isinstance(instructions, dict):
            instructions = instructions.get("reason_for_call") or instructions.get("task_instructions")
        prompt = instructions if isinstance(instructions, str) else ""
        out.append(TaskSpec(task_id=t["id"], prompt=prompt, expected=t.get("evaluation_criteria")))
    return out or None


def _warnings(rows: list[Row]) -> list[str]:
    out = []
    infra = sum(
        r.fields.get("error", {}).get("type") == INFRASTRUCTURE_ERROR for r in rows if "error" in r.fields
    )
    if infra:
        out.append(
            f"{plural(infra, 'simulation')} ended in an infrastructure error: counted as errors and "
            "left out of Pass^k and Mean@n, as tau2-bench's own metrics exclude them"
        )
    failed = [
        r.fields["finish_reason"]
        for r in rows
        if r.fields.get("finish_reason") not in (None, "user_stop", "agent_stop", INFRASTRUCTURE_ERROR)
    ]
    if failed:
        kinds = ", ".join(sorted(set(failed)))
        out.append(
            f"{plural(len(failed), 'simulation')} ended abnormally ({kinds}): graded as failures, as "
            "tau2-bench grades them; the reason is kept as the finish reason"
        )
    if any(r.fields.get("trajectory") is None for r in rows):
        out.append(
            "some simulations store no messages (voice runs keep ticks): their answer and actions are unknown"
        )
    if not any("total_tokens" in r.fields for r in rows):
        out.append("the agent's messages record no token usage: tokens are unknown")
    return out
