"""Cost, a figure like tokens: per result, task, round and route, and the whole log's.

A result's cost is the one its source reported (`cost_usd`: promptfoo's `cost`, tau2's
`agent_cost`), else one computed from its tokens and the user's price table (`metrics.prices`) for
the model its route names, else not recorded. Nothing is guessed: no table, no model in it, or no
token counts means no computed cost, and a total over results of which some are not recorded says
how many it covers. Cached prompt tokens (`cached_tokens`, where a log records them) are priced at
the table's cached price when it has one; otherwise every prompt token at the prompt price.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from analyzer.log.model import Result, RunLog
from analyzer.metrics.prices import PriceTable
from analyzer.numbers import counted

CostSource = Literal["reported", "computed"]


class CostFigures(BaseModel):
    """Cost over the whole log, in US dollars; None where no result's cost is known."""

    total_usd: float | None
    """Sum of the known costs; None when no result's cost is known (not recorded, never 0)."""
    reported_results: int
    """Results whose source reported their cost."""
    computed_results: int
    """Results whose cost was computed from their tokens and the price table."""
    unknown_results: int
    """Results with no cost: none reported, and no price or no tokens to compute one."""
    per_round: dict[int, float | None]
    """Known cost per round; None for a round with none known."""
    per_task: dict[str, float | None]
    """Known cost per task over its rounds; None for a task with none known."""
    per_route: dict[str, float | None]
    """Known cost per route (its model, and base URL where recorded)."""
    unpriced_models: list[str]
    """Models with token counts but no entry in the price table (so no computed cost)."""
    priced: bool
    """Whether a price table was given."""


def result_cost(result: Result, prices: PriceTable | None) -> tuple[float, CostSource] | None:
    """A result's cost and where it comes from; None when not recorded."""
    reported = getattr(result, "cost_usd", None)
    if isinstance(reported, int | float) and not isinstance(reported, bool):
        return float(reported), "reported"
    model = result.route.model if result.route is not None else None
    price = prices.get(model) if prices and model else None
    if price is None or result.prompt_tokens is None or result.completion_tokens is None:
        return None
    cached = getattr(result, "cached_tokens", None)
    cached = (
        cached if isinstance(cached, int) and not isinstance(cached, bool) and price.cached is not None else 0
    )
    fresh = max(result.prompt_tokens - cached, 0)
    usd = (
        fresh * price.prompt + cached * (price.cached or 0.0) + result.completion_tokens * price.completion
    ) / 1e6
    return usd, "computed"


def route_name(result: Result) -> str:
    """A route as a person reads it: `model @ base URL` (what is recorded of them)."""
    route = result.route
    if route is None:
        return "route not recorded"
    parts = [route.model or "model not recorded"]
    if route.base_url:
        parts.append(route.base_url)
    return " @ ".join(parts)


def cost_figures(log: RunLog, prices: PriceTable | None = None) -> CostFigures:
    """The log's cost figures (see the module's docstring)."""
    counts = {"reported": 0, "computed": 0}
    unknown = 0
    per_round: dict[int, float | None] = {}
    per_task: dict[str, float | None] = {}
    per_route: dict[str, float | None] = {}
    unpriced: set[str] = set()
    for number, results in enumerate(log.runs, start=1):
        per_round.setdefault(number, None)
        for result in results:
            task = str(result.task_id)
            per_task.setdefault(task, None)
            route = route_name(result)
            per_route.setdefault(route, None)
            found = result_cost(result, prices)
            if found is None:
                unknown += 1
                model = result.route.model if result.route is not None else None
                if prices is not None and model and model not in prices and result.total_tokens is not None:
                    unpriced.add(model)
                continue
            usd, source = found
            counts[source] += 1
            per_round[number] = (per_round[number] or 0.0) + usd
            per_task[task] = (per_task[task] or 0.0) + usd
            per_route[route] = (per_route[route] or 0.0) + usd
    known = [v for v in per_round.values() if v is not None]
    return CostFigures(
        total_usd=sum(known) if known else None,
        reported_results=counts["reported"],
        computed_results=counts["computed"],
        unknown_results=unknown,
        per_round=per_round,
        per_task=per_task,
        per_route=per_route,
        unpriced_models=sorted(unpriced),
        priced=prices is not None,
    )


def cost_phrase(cost: CostFigures) -> str:
    """One line for every view: the total, where it comes from, and what it leaves out."""
    if cost.total_usd is None:
        why = " (no price table given: --prices FILE)" if not cost.priced and cost.unknown_results else ""
        return f"cost not recorded{why}"
    sources = []
    if cost.reported_results:
        sources.append(f"{counted(cost.reported_results, 'result')} reported by the source")
    if cost.computed_results:
        sources.append(f"{counted(cost.computed_results, 'result')} computed from tokens and the price table")
    missing = f"; {cost.unknown_results} not recorded" if cost.unknown_results else ""
    unpriced = f" (no price for {', '.join(cost.unpriced_models)})" if cost.unpriced_models else ""
    return f"{usd(cost.total_usd)} over {' and '.join(sources)}{missing}{unpriced}"


def usd(value: float | None) -> str:
    """US dollars to a cent, or to six decimals below a cent; "not recorded" for None."""
    if value is None:
        return "not recorded"
    return f"${value:,.2f}" if abs(value) >= 0.01 else f"${value:.6f}"
