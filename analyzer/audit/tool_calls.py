"""Tool-call fidelity per route: the share of calls that are valid JSON, name a declared tool and
match its JSON Schema (checked by the jsonschema library), set against the reference route's own spread.

Tools are declared by each task's `tools` (OpenAI's list of function tools, as the live audit writes
it). The candidate is `worse` when its share of valid calls lies below the lowest share any reference
round reached (the reference's run-to-run spread, as K2 Vendor Verifier sets its threshold) and a
one-sided Fisher exact test puts it below the reference's share at p <= alpha; `unmeasured` when a
route made no call to a declared toolset.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import jsonschema

from analyzer.log.model import RunLog, ToolCallStep

WORSE, NO_DIFFERENCE, UNMEASURED = "worse", "no difference found", "unmeasured"


@dataclass(frozen=True)
class RouteCalls:
    calls: int
    valid_json: int
    declared: int
    schema_valid: int
    round_shares: list[float]

    @property
    def share(self) -> float | None:
        return self.schema_valid / self.calls if self.calls else None


@dataclass(frozen=True)
class ToolFidelity:
    reference: RouteCalls
    candidate: RouteCalls
    p_value: float | None
    verdict: str


def _validator(schema: Any) -> Any:
    """A validator for a tool's parameters schema, built once; None when the schema itself is invalid
    (no call can match it)."""
    schema = schema if isinstance(schema, dict) else {}
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError:
        return None
    return cls(schema)


def _declared(log: RunLog) -> dict[str, dict[str, Any]]:
    """Per task id: tool name -> the validator of its parameters schema."""
    out: dict[str, dict[str, Any]] = {}
    for task in log.tasks or []:
        tools = (task.model_extra or {}).get("tools")
        if isinstance(tools, list):
            fns = [t.get("function") for t in tools if isinstance(t, dict)]
            out[str(task.task_id)] = {
                f["name"]: _validator(f.get("parameters") or {})
                for f in fns
                if isinstance(f, dict) and isinstance(f.get("name"), str)
            }
    return out


def _check(name: str, arguments: Any, tools: dict[str, Any]) -> tuple[bool, bool, bool]:
    """(valid JSON, declared tool, matches the schema) for one call."""
    try:
        value = json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return False, name in tools, False
    if name not in tools:
        return True, False, False
    validator = tools[name]
    return True, True, validator is not None and validator.is_valid(value)


def route_calls(log: RunLog) -> RouteCalls:
    declared = _declared(log)
    totals = [0, 0, 0, 0]
    per_round: list[float] = []
    if not declared:  # no task declares tools: nothing to check (and no result object is built)
        return RouteCalls(0, 0, 0, 0, per_round)
    for results in log.runs:
        calls = valid = 0
        for r in results:
            tools = declared.get(str(r.task_id))
            if tools is None:
                continue
            for step in r.trajectory or []:
                if not isinstance(step, ToolCallStep):
                    continue
                checks = _check(step.name, step.arguments, tools)
                totals = [totals[0] + 1, *(t + c for t, c in zip(totals[1:], checks, strict=True))]
                calls, valid = calls + 1, valid + checks[2]
        if calls:
            per_round.append(valid / calls)
    return RouteCalls(totals[0], totals[1], totals[2], totals[3], per_round)


def fisher_lower(a_good: int, a_n: int, b_good: int, b_n: int) -> float:
    """One-sided Fisher exact p-value that B's share of good is below A's (hypergeometric tail)."""
    good, n = a_good + b_good, a_n + b_n
    total = math.comb(n, b_n)
    return sum(math.comb(good, k) * math.comb(n - good, b_n - k) for k in range(0, b_good + 1)) / total


def tool_fidelity(reference: RunLog, candidate: RunLog, alpha: float) -> ToolFidelity:
    ref, cand = route_calls(reference), route_calls(candidate)
    if not ref.calls or not cand.calls:
        return ToolFidelity(ref, cand, None, UNMEASURED)
    p = fisher_lower(ref.schema_valid, ref.calls, cand.schema_valid, cand.calls)
    floor = min(ref.round_shares)
    share = cand.share or 0.0
    return ToolFidelity(ref, cand, p, WORSE if share < floor and p <= alpha else NO_DIFFERENCE)
