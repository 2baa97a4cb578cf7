"""A multi-step tool-using agent scenario for the simulator: tasks, and the scripted model's policy.

At each decision point (the user's request, or the result of the tool just called) the scripted
model picks its next step from weighted options: a tool call or a final answer. The simulator plays
this as answer rules matched on the last user or tool message, so everything that shapes a plain
answer shapes a step too:

- `noise` (per task, scaled by `agent_scenario(noise=...)`) is the rule's `flake`: the chance that a
  temperature-0 step is resampled anyway. It is model noise: a pinned route does not cure it.
- Options with close weights are route-dependent: each backend perturbs the weights its own way, so
  two keys on two backends take different turns while each backend repeats itself.

A tool-call option is the reply `tool:NAME {json arguments}`; when the request offered `tools`, the
simulator sends it back as a real `tool_calls` message (see `parse_tool_reply`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from analyzer.log.model import TaskSpec
from analyzer.simulator.agent_world import run_tool
from analyzer.simulator.scenario import AnswerRule, Choice, Faults, KeyConfig, Scenario

TOOL_REPLY = "tool:"
"""Prefix of a scripted reply that is a tool call."""
AGENT_KEYS = ["sim-agent-key-1", "sim-agent-key-2"]
"""Simulator keys for the agent sample (public, not secrets): one per backend."""

Call = tuple[str, dict[str, Any]]
"""A tool call: name and arguments."""


@dataclass(frozen=True)
class Decision:
    """What the model may do after seeing `after`'s result (None: the user's request)."""

    after: Call | None
    """The call whose result the model looks at; None for the task's prompt."""
    options: tuple[tuple[Call | str, float], ...]
    """Next steps with relative weights: a tool call, or a final answer text."""


@dataclass(frozen=True)
class AgentTask:
    """One task of the agent scenario."""

    task_id: str
    prompt: str
    expected: str
    noise: float
    """Chance a temperature-0 step is resampled anyway (model noise)."""
    policy: tuple[Decision, ...]


def tool_reply(call: Call) -> str:
    """The scripted reply text for a tool call."""
    name, args = call
    return f"{TOOL_REPLY}{name} {json.dumps(args, sort_keys=True, separators=(',', ':'))}"


def parse_tool_reply(text: str) -> tuple[str, str] | None:
    """(tool name, JSON arguments) when a reply is a scripted tool call, else None."""
    if not text.startswith(TOOL_REPLY):
        return None
    name, _, args = text[len(TOOL_REPLY) :].partition(" ")
    return (name, args or "{}") if name else None


def _chain(calls: list[Call], answer: str) -> tuple[Decision, ...]:
    """A straight policy: each call leads to the next, the last result to the answer."""
    out = [Decision(None, ((calls[0], 1.0),))]
    following: list[Call | str] = [*calls[1:], answer]
    for here, nxt in zip(calls, following, strict=True):
        out.append(Decision(here, ((nxt, 1.0),)))
    return tuple(out)


def _lamp() -> tuple[Decision, ...]:
    find = ("find_customer", {"email": "ana.ruiz@example.com"})
    latest, older = ("get_order", {"order_id": "O-5002"}), ("get_order", {"order_id": "O-5001"})
    kb = ("search_kb", {"query": "refund policy"})
    refund = ("refund_order", {"amount": 24.5, "order_id": "O-5002"})
    return (
        Decision(None, ((find, 1.0),)),
        Decision(find, ((latest, 1.2), (older, 1.0))),  # route-dependent: which order to open first
        Decision(older, ((latest, 1.0),)),
        Decision(latest, ((refund, 3.0), (kb, 1.1))),
        Decision(kb, ((refund, 1.0),)),
        Decision(refund, (("$24.50", 4.0), ("Refunded $24.50 for the Lumo desk lamp.", 1.0))),
    )


def _monitor() -> tuple[Decision, ...]:
    search = ("search_products", {"query": "monitor"})
    views = [("get_product", {"product_id": p}) for p in ("P-301", "P-302", "P-303")]
    return (
        Decision(None, ((search, 1.0),)),
        Decision(search, ((views[0], 2.0), (views[2], 1.6))),
        Decision(views[0], ((views[1], 2.0), ("P-301", 0.6))),
        Decision(views[1], ((views[2], 1.0), ("P-302", 0.9))),
        Decision(views[2], (("P-302", 2.0), (views[0], 0.5))),
    )


def _address() -> tuple[Decision, ...]:
    read = ("get_order", {"order_id": "O-7002"})
    full = ("update_address", {"address": "12 Harbour Road, Leith", "order_id": "O-7002"})
    short = ("update_address", {"address": "12 Harbour Rd, Leith", "order_id": "O-7002"})
    return (
        Decision(None, ((read, 1.0),)),
        Decision(read, ((full, 1.4), (short, 1.0))),  # the same tool, other arguments
        Decision(full, (("Address updated.", 1.0),)),
        Decision(short, (("Address updated.", 1.0),)),
    )


def _audit() -> tuple[Decision, ...]:
    find = ("find_customer", {"email": "chen.wei@example.com"})
    listed = ("list_orders", {"customer_id": "C-900"})
    orders = [("get_order", {"order_id": f"O-90{i:02d}"}) for i in range(1, 11)]
    out = [
        Decision(None, ((find, 1.0),)),
        Decision(find, ((listed, 1.0),)),
        Decision(listed, ((orders[0], 1.0),)),
    ]
    for here, nxt in zip(orders, orders[1:], strict=False):
        out.append(Decision(here, ((nxt, 6.0), ("O-9003, O-9007", 0.3))))  # sometimes stops early
    out.append(Decision(orders[-1], (("O-9003, O-9007", 1.0),)))
    return tuple(out)


AGENT_TASKS: tuple[AgentTask, ...] = (
    AgentTask(
        "agent-refund-lamp",
        "ana.ruiz@example.com says the desk lamp from her latest order arrived broken. Refund the lamp "
        "and reply with the amount refunded.",
        "$24.50",
        0.05,
        _lamp(),
    ),
    AgentTask(
        "agent-cancel",
        "Cancel order O-6101 for Ben Okafor if it has not shipped yet. Reply with the order's new status.",
        "cancelled",
        0.0,
        _chain(
            [
                ("get_order", {"order_id": "O-6101"}),
                ("cancel_order", {"order_id": "O-6101", "reason": "customer request"}),
            ],
            "cancelled",
        ),
    ),
    AgentTask(
        "agent-cheapest-monitor",
        "Which monitor in stock is the cheapest? Reply with its product id.",
        "P-302",
        0.35,
        _monitor(),
    ),
    AgentTask(
        "agent-address",
        "Change the shipping address of order O-7002 to 12 Harbour Road, Leith.",
        "Address updated.",
        0.1,
        _address(),
    ),
    AgentTask(
        "agent-delay-email",
        "Email dana.lee@example.com that her order O-8001 is delayed, with the new delivery date. "
        "Reply with 'sent' when done.",
        "sent",
        0.0,
        _chain(
            [
                ("get_order", {"order_id": "O-8001"}),
                (
                    "send_email",
                    {
                        "body": "New delivery date: 2026-12-04.",
                        "subject": "Order O-8001 delayed",
                        "to": "dana.lee@example.com",
                    },
                ),
            ],
            "sent",
        ),
    ),
    AgentTask(
        "agent-late-audit",
        "Check every order of chen.wei@example.com and list the ones more than 5 days late.",
        "O-9003, O-9007",
        0.08,
        _audit(),
    ),
)


def agent_task_specs() -> list[TaskSpec]:
    """The agent tasks as a task set."""
    return [TaskSpec(task_id=t.task_id, prompt=t.prompt, expected=t.expected) for t in AGENT_TASKS]


def agent_answer_rules(noise: float = 1.0) -> list[AnswerRule]:
    """One rule per decision point, matched on the prompt or on the tool result the model sees.

    Args:
        noise: Factor on every task's own noise (0 switches model noise off; capped at 1 per step).
    """
    rules: list[AnswerRule] = []
    for task in AGENT_TASKS:
        for d in task.policy:
            seen = task.prompt if d.after is None else run_tool(*d.after)
            choices = [
                Choice(text=o if isinstance(o, str) else tool_reply(o), weight=w) for o, w in d.options
            ]
            rules.append(AnswerRule(match=seen, choices=choices, flake=min(1.0, task.noise * noise)))
    matches = [r.match for r in rules]
    for i, m in enumerate(matches):
        if any(m in other for j, other in enumerate(matches) if j != i):
            raise ValueError(f"agent scenario: decision point {m[:60]!r} is not unique")
    return rules


def with_agent_tasks(scenario: Scenario, *, noise: float = 1.0) -> Scenario:
    """`scenario` that also plays the agent tasks (their rules and the agent keys' backends)."""
    own = agent_scenario(noise=noise)
    return scenario.model_copy(
        update={"answers": [*scenario.answers, *own.answers], "keys": {**own.keys, **scenario.keys}}
    )


def agent_scenario(*, noise: float = 1.0, seed: int = 2026) -> Scenario:
    """The scenario for the agent tasks: two keys on two backends that disagree on close calls."""
    return Scenario(
        seed=seed,
        latency_ms=(1.0, 4.0),
        keys={AGENT_KEYS[0]: KeyConfig(backend="east-a"), AGENT_KEYS[1]: KeyConfig(backend="canary-c")},
        faults=Faults(spill_rate=0.0, retry_switch_rate=0.5),
        answers=agent_answer_rules(noise),
    )
