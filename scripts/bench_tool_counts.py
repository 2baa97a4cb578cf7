"""What counting tool definitions costs the recording proxy per request, beside what it already does.

    python scripts/bench_tool_counts.py [--repeats 2000] [--tools 20]

One agent turn (a system prompt and a user message, answered) is counted as the proxy counts an
attempt (`analyzer/proxy/counting.attempt_counts`, after the answer has gone out): without tools, with
`--tools` function definitions seen before (their count kept by hash, an agent's every later turn),
and with the same definitions new (the kept counts cleared first, an agent's first turn); the
request is read once beforehand, as the proxy reads it on arrival. The baseline, measured in the
same run and alternated with them, is `json.loads` of the request body with the tools, which the
proxy does for every request anyway. Medians in microseconds and as ratios to the
baseline; figures only, no assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from analyzer.metrics.token_count import RunningCount, count_text
from analyzer.proxy import counting
from analyzer.proxy.facts import RequestFacts, ResponseFacts, request_facts

PATH = "/v1/chat/completions"


def _tool(i: int) -> dict[str, Any]:
    """A function definition of the shape agents send: six parameters, one an enum, all described."""
    about = "what it means and how to fill it in"
    properties: dict[str, Any] = {
        f"field_{j}": {"type": "string", "description": f"Field {j} of tool {i}: {about}."} for j in range(5)
    }
    properties["mode"] = {"type": "string", "enum": ["fast", "slow", "careful"], "description": "How."}
    return {
        "type": "function",
        "function": {
            "name": f"tool_{i}",
            "description": f"Tool number {i}: looks a record up or changes it, as the agent asks.",
            "parameters": {"type": "object", "properties": properties, "required": ["field_0"]},
        },
    }


def _body(tools: int) -> bytes:
    messages = [
        {"role": "system", "content": "You are a careful booking agent. Follow the policy. " * 40},
        {"role": "user", "content": "Please move my flight to Friday morning."},
    ]
    body: dict[str, Any] = {"model": "gpt-4o", "messages": messages}
    if tools:
        body["tools"] = [_tool(i) for i in range(tools)]
    return json.dumps(body).encode()


async def _count(asked: RequestFacts) -> None:
    answered = ResponseFacts(counting=RunningCount("o200k_base"), parts=["Done: Friday at 9:10."])
    await counting.attempt_counts(asked, answered)


async def _measure(repeats: int, tools: int) -> dict[str, float]:
    raw = _body(tools)
    plain, with_tools = request_facts(PATH, _body(0)), request_facts(PATH, raw)  # read as it arrived
    await _count(plain)
    await _count(with_tools)  # the messages' and the tools' counts kept, as on an agent's later turns

    async def new_tools() -> None:
        counting._tools_seen.clear()
        await _count(with_tools)

    async def parse() -> None:
        json.loads(raw)

    cases: dict[str, Callable[[], Awaitable[None]]] = {
        "json.loads of the body (baseline)": parse,
        "counted, no tools": lambda: _count(plain),
        f"counted, {tools} tools seen before": lambda: _count(with_tools),
        f"counted, {tools} tools new": new_tools,
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeats):
        for name, case in cases.items():  # alternated: every case sees the same machine load
            started = time.perf_counter()
            await case()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(t) * 1e6 for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--tools", type=int, default=20)
    args = parser.parse_args()
    count_text("warm up the vocabulary")
    medians = asyncio.run(_measure(args.repeats, args.tools))
    base = medians["json.loads of the body (baseline)"]
    print(f"{'per request, median of ' + str(args.repeats):45} {'us':>9} {'x baseline':>11}")
    for name, us in medians.items():
        print(f"{name:45} {us:9.1f} {us / base:11.2f}")


if __name__ == "__main__":
    main()
