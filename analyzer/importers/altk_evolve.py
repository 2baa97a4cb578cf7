"""ALTK-Evolve consistency score cards (altk-evolve-core, `altk_evolve.llm.guidelines`).

ALTK-Evolve's "accurate" consistency method resamples each assistant step of one agent trajectory
and scores how much the samples agree. With `EVOLVE_DEBUG_DIR` set it writes, per trajectory (`<id>`
= the trace id's first 8 characters): `trajectory_<id>.json` (the input: OpenAI-format `messages`,
`model`, `tools`), `trajectory_ir_<id>_cns.json` (each step with its prompt, recorded response,
samples and consistency) and `consistency_score_card_<id>.json` (`task`, `total_steps`,
`aggregation`, `aggregate_trajectory_uncertainty`, `steps[]` of `name`, `step_number` (1-based over
assistant turns), `step_uncertainty` (1 - step consistency), `metric`).

A card (or the IR file alone) imports as one task and one round: the recorded trajectory, and a
`resample` block like `rerunlens resample` writes, so the dashboard shows the per-step uncertainty
with the trajectory. Where the samples are at hand (the IR file), each step is also scored by
RerunLens's own measure with its 95% bootstrap interval; ALTK-Evolve's own score rides along as
`altk_uncertainty`. A card alone has no samples: its scores carry no interval and flag nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from analyzer.errors import LogError
from analyzer.importers.common import Provenance, Row, Source, make_route, member_list, member_obj, parse_json
from analyzer.importers.messages import final_answer, trajectory
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.log.model import TaskSpec
from analyzer.metrics.step_uncertainty import Sample, flag_steps, score_step
from analyzer.metrics.trajectories import call_token
from analyzer.safety.bounded_read import read_file

FORMAT = "altk-evolve"
_CARD_NAME = re.compile(r"consistency_score_card_(.+)\.json$")
_IR_NAME = re.compile(r"trajectory_ir_(.+)_cns\.json$")


def looks_like(data: Any) -> bool:
    """A score card (`aggregate_trajectory_uncertainty` and `steps`) or an annotated IR (`steps`
    with `step_number`, and `consistency.aggregate_step_consistency`). `steps` of the wrong type is
    still recognised, so the reader names it rather than the file being called unknown."""
    if not isinstance(data, dict) or "steps" not in data:
        return False
    if "aggregate_trajectory_uncertainty" in data:
        return True
    consistency = data.get("consistency")
    return isinstance(consistency, dict) and "aggregate_step_consistency" in consistency


def siblings(path: Path, data: Any, source: Source) -> dict[str, Any]:
    """The other debug artifacts of the same trace beside a file on disk, parsed, by kind."""
    return {
        kind: parse_json(read_file(other, MAX_LOG_BYTES, "score card", LogError), Source(str(other)))
        for kind, other in sibling_paths(path).items()
    }


def sibling_paths(path: Path) -> dict[str, Path]:
    """The other debug artifacts of the same trace that exist beside `path`, by kind."""
    found = _CARD_NAME.search(path.name) or _IR_NAME.search(path.name)
    if found is None:
        return {}
    trace = found.group(1)
    names = {"ir": f"trajectory_ir_{trace}_cns.json", "input": f"trajectory_{trace}.json"}
    others = {kind: path.with_name(name) for kind, name in names.items()}
    return {kind: other for kind, other in others.items() if other != path and other.is_file()}


def read(data: Any, source: Source, beside: dict[str, Any] | None = None) -> tuple[list[Row], Provenance]:
    """One row (the trajectory) and provenance carrying the per-step scores as a `resample` block."""
    beside = dict(beside or {})
    card = source.obj(data, "top level")
    source.optional_text(card.get("task"), "task")
    if "aggregate_trajectory_uncertainty" not in card:
        beside["ir"], card = card, _card_from_ir(card, source)
    ir = beside.get("ir") if isinstance(beside.get("ir"), dict) else None
    messages = _messages(beside.get("input"), ir)
    task_id = _task_id(source.name)
    fields: dict[str, Any] = {
        "answer": final_answer(messages) if messages else None,
        "trajectory": trajectory(messages) if messages else None,
    }
    block, warnings = _block(card, ir, messages, source, task_id)
    model = _model(beside.get("input"), ir)
    prov = Provenance(
        format=FORMAT,
        version=None,
        importer=__name__,
        label=f"ALTK-Evolve score card: {task_id}",
        route=make_route({"model": model}, source, {"model": "model"}) if model else None,
        tasks=[TaskSpec(task_id=task_id, prompt=str(card.get("task") or ""))] if card.get("task") else None,
        warnings=warnings,
        resample=block,
    )
    return [Row(task_id=task_id, round=1, fields=fields, place="steps")], prov


def _block(
    card: dict[str, Any], ir: dict[str, Any] | None, messages: list[Any], source: Source, task_id: str
) -> tuple[dict[str, Any], list[str]]:
    """The `resample` block: per step ALTK-Evolve's score and, with samples, RerunLens's own."""
    samples = _samples_by_step(ir)
    steps, scores = [], {}
    for i, raw in enumerate(source.items(card.get("steps"), "steps")):
        step = source.obj(raw, f"steps[{i}]")
        number = step.get("step_number")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            source.fail(f"steps[{i}].step_number", "expected a step number (1 or more)")
        altk = source.number(step.get("step_uncertainty"), f"steps[{i}].step_uncertainty")
        if not 0.0 <= altk <= 1.0:
            source.fail(f"steps[{i}].step_uncertainty", f"expected an uncertainty from 0 to 1, got {altk}")
        entry = {
            "step": number - 1,
            "tool_step": _tool_step(messages, number),
            "recorded": _recorded(messages, number),
            "altk_uncertainty": altk,
            "altk_metric": step.get("metric"),
            "samples": None,
            "errors": 0,
            "uncertainty": altk,
            "uncertainty_low": None,
            "uncertainty_high": None,
        }
        if number in samples and len(samples[number]) >= 2:
            score = scores[number - 1] = score_step(samples[number])
            entry.update(
                samples=score.samples,
                uncertainty=score.uncertainty,
                uncertainty_low=score.low,
                uncertainty_high=score.high,
                entropy_bits=score.entropy_bits,
                entropy=score.entropy,
                actions=score.actions,
            )
        steps.append(entry)
    warnings = []
    if len(scores) < len(steps):
        warnings.append(
            f"{len(steps) - len(scores)} of {len(steps)} steps have no samples at hand (only the score card, "
            "not trajectory_ir_<id>_cns.json beside it): ALTK-Evolve's own step uncertainty is shown for "
            "them, without an interval, and they are never flagged"
        )
    warnings.append(
        "one trajectory, one round: ALTK-Evolve scores consistency by resampling each step, not by "
        "repeated runs; answer consistency and outcome figures need repeated runs"
    )
    block = {
        "task_id": task_id,
        "round": 1,
        "source": FORMAT,
        "flagged": flag_steps(scores),
        "cancelled": False,
        "aggregation": card.get("aggregation"),
        "altk_aggregate_uncertainty": card.get("aggregate_trajectory_uncertainty"),
        "steps": steps,
    }
    return block, warnings


def _card_from_ir(ir: dict[str, Any], source: Source) -> dict[str, Any]:
    """What `create_consistency_score_card` makes of an annotated IR (steps with a defined score)."""
    steps = []
    for i, raw in enumerate(source.items(ir.get("steps"), "steps")):
        step = source.obj(raw, f"steps[{i}]")
        consistency = member_obj(step, "consistency")
        value = consistency.get("step_consistency", -1)
        if isinstance(value, int | float) and not isinstance(value, bool) and value != -1:
            steps.append(
                {
                    "name": step.get("name"),
                    "step_number": step.get("step_number", i),
                    "step_uncertainty": round(1.0 - value, 4),
                    "metric": consistency.get("metric"),
                }
            )
    total = member_obj(ir, "consistency")
    aggregate = total.get("aggregate_step_consistency", -1)
    return {
        "task": ir.get("task"),
        "total_steps": len(source.items(ir.get("steps"), "steps")),
        "aggregation": total.get("aggregation"),
        "aggregate_trajectory_uncertainty": -1 if aggregate == -1 else 1.0 - aggregate,
        "steps": steps,
    }


def _samples_by_step(ir: dict[str, Any] | None) -> dict[int, list[Sample]]:
    out: dict[int, list[Sample]] = {}
    for step in ir.get("steps", []) if ir else []:
        if not isinstance(step, dict) or not isinstance(step.get("step_number"), int):
            continue
        sampling = member_obj(step, "sampling")
        raw = member_list(sampling, "raw_samples")
        out[step["step_number"]] = [_sample(s) for s in raw]
    return out


def _sample(raw: Any) -> Sample:
    """A raw sample as ALTK-Evolve keeps it: a list of OpenAI tool calls, or the reply's text."""
    if isinstance(raw, list):
        calls = []
        for call in raw:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                calls.append(call_token(function["name"], function.get("arguments")))
        return Sample(tuple(calls), "")
    return Sample(None, str(raw or ""))


def _messages(given: Any, ir: dict[str, Any] | None) -> list[Any]:
    """The conversation: the input trajectory's messages, else the last IR step's prompt and reply."""
    if isinstance(given, dict) and isinstance(given.get("messages"), list):
        return given["messages"]
    steps = [
        s for s in (ir or {}).get("steps", []) if isinstance(s, dict) and isinstance(s.get("messages"), list)
    ]
    if not steps:
        return []
    last = steps[-1]
    reply: dict[str, Any] = {"role": "assistant", "content": ""}
    if last.get("raw_response_type") == "tool_calls":
        try:
            reply["tool_calls"] = json.loads(str(last.get("raw_response")))
        except json.JSONDecodeError:
            reply["tool_calls"] = []
    else:
        reply["content"] = str(last.get("raw_response") or "")
    return [*last["messages"], reply]


def _assistant(messages: list[Any]) -> list[dict[str, Any]]:
    return [m for m in messages if isinstance(m, dict) and m.get("role") == "assistant"]


def _tool_step(messages: list[Any], number: int) -> int:
    """Tool calls the agent made before assistant turn `number` (1-based): the strip's x position."""
    turns = _assistant(messages)
    if not turns:
        return number - 1
    return sum(len(m.get("tool_calls") or []) for m in turns[: number - 1])


def _recorded(messages: list[Any], number: int) -> str | None:
    turns = _assistant(messages)
    if number > len(turns):
        return None
    message = turns[number - 1]
    calls = message.get("tool_calls") or []
    if calls:
        return " | ".join(_sample(calls).calls or ())
    return str(message.get("content") or "")


def _model(given: Any, ir: dict[str, Any] | None) -> str | None:
    if isinstance(given, dict) and isinstance(given.get("model"), str) and given["model"] != "unknown":
        return given["model"]
    for step in (ir or {}).get("steps", []):
        params = step.get("llm_params") if isinstance(step, dict) else None
        if isinstance(params, dict) and isinstance(params.get("model"), str):
            return params["model"]
    return None


def _task_id(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    found = _CARD_NAME.search(base) or _IR_NAME.search(base)
    return found.group(1) if found else "trajectory"
