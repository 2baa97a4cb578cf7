"""Cost, a figure like tokens: reported by the source, computed from tokens and the user's price
table, or not recorded (never 0). Real files: tests/fixtures/foreign/*/SOURCE.md.

The source tools' own figures: promptfoo sums each row's `cost` per (prompt, provider) column into
`prompts[].metrics.cost` (promptfoo src/commands/retry.ts, `recalculatePromptMetrics`:
`metrics.cost += result.cost || 0`); tau2 writes each simulation's `agent_cost` (the agent's LLM
cost) and averages it (`avg_agent_cost`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.errors import PriceFileError
from analyzer.importers import load_any
from analyzer.importers.experiments import experiment_groups
from analyzer.metrics.cost import cost_phrase
from analyzer.metrics.prices import load_prices, parse_prices

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"
PRICES = '{"openai/gpt-4o-mini": {"prompt": 0.15, "completion": 0.60, "cached": 0.075}}'


def test_promptfoo_cost_per_column_is_promptfoos_own_and_a_zero_without_usage_is_not_recorded() -> None:
    raw = json.loads((FOREIGN / "promptfoo" / "results.json").read_text(encoding="utf-8"))
    own = {p["provider"]: p["metrics"]["cost"] for p in raw["results"]["prompts"]}
    groups = dict(experiment_groups(load_any(FOREIGN / "promptfoo" / "results.json")))
    scripted = analyze(groups["scripted"].log).headline.cost
    assert scripted is not None and scripted.total_usd == pytest.approx(own["scripted"], abs=1e-12)
    rows = [r for r in raw["results"]["results"] if r["provider"]["id"] == "file://scripted_provider.js"]
    costed = [
        r for r in rows if r.get("cost") or ((r.get("response") or {}).get("tokenUsage") or {}).get("total")
    ]
    assert scripted.reported_results == len(costed) and scripted.computed_results == 0
    assert scripted.unknown_results == len(rows) - len(costed)  # an errored row: no usage, cost 0
    echo = analyze(groups["echo"].log).headline.cost
    assert own["echo"] == 0  # promptfoo's 0 for a provider that reports no usage at all
    assert echo is not None and echo.total_usd is None and echo.unknown_results == 9
    assert cost_phrase(echo).startswith("cost not recorded")


def test_tau2_agent_cost_is_reported_per_result_round_and_task() -> None:
    raw = json.loads((FOREIGN / "tau2_bench" / "solo_stop.json").read_text(encoding="utf-8"))
    own = [s["agent_cost"] for s in raw["simulations"]]
    cost = analyze(load_any(FOREIGN / "tau2_bench" / "solo_stop.json").log).headline.cost
    assert cost is not None and cost.total_usd == pytest.approx(sum(own))
    assert cost.reported_results == len(own)
    assert sum(v for v in cost.per_round.values() if v is not None) == pytest.approx(sum(own))
    assert sum(v for v in cost.per_task.values() if v is not None) == pytest.approx(sum(own))


def test_a_cost_is_computed_from_tokens_only_with_a_price_for_that_model() -> None:
    path = FOREIGN / "inspect_ai" / "retried_calls.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    usage = [u for s in raw["samples"] for u in s["model_usage"].values()]
    expected = sum(u["input_tokens"] * 0.15 + u["output_tokens"] * 0.60 for u in usage) / 1e6
    log = load_any(path).log
    assert analyze(log).headline.cost.total_usd is None  # no table: not recorded, not 0
    cost = analyze(log, prices=parse_prices(PRICES, "prices.json")).headline.cost
    assert cost.total_usd == pytest.approx(expected, rel=1e-12)
    assert cost.computed_results == 2 and cost.reported_results == 0
    assert list(cost.per_route) == ["openai/gpt-4o-mini @ http://127.0.0.1:18766/v1"]
    other = analyze(log, prices=parse_prices('{"gpt-4o-mini": {"prompt": 1, "completion": 1}}', "p")).headline
    assert other.cost.total_usd is None and other.cost.unpriced_models == ["openai/gpt-4o-mini"]


def test_a_bad_price_table_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "prices.json"
    bad.write_text('{"gpt-4o": {"prompt": -1, "completion": 2}}', encoding="utf-8")
    with pytest.raises(PriceFileError, match=r"prices\.json: gpt-4o\.prompt: expected a price of 0 or more"):
        load_prices(bad)
    bad.write_text('{"gpt-4o": {"prompt": 1}}', encoding="utf-8")
    with pytest.raises(PriceFileError, match="no completion price"):
        load_prices(bad)


def test_analyze_json_carries_cost_and_says_not_recorded_as_null(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(PRICES, encoding="utf-8")
    path = FOREIGN / "inspect_ai" / "retried_calls.json"
    run = [sys.executable, "-m", "analyzer.cli", "analyze", "--json", str(path)]
    without = json.loads(subprocess.run(run, capture_output=True, text=True, check=True).stdout)
    assert without["cost"]["total_usd"] is None
    priced = json.loads(
        subprocess.run([*run, "--prices", str(prices)], capture_output=True, text=True, check=True).stdout
    )
    assert priced["cost"]["computed_results"] == 2 and priced["cost"]["total_usd"] > 0
    text = subprocess.run(
        [sys.executable, "-m", "analyzer.cli", "analyze", str(path), "--prices", str(prices)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "computed from tokens and the price table" in text


def test_the_html_report_and_comparison_say_the_cost_in_the_same_words() -> None:
    from analyzer.report.compare_view import cost_caption
    from analyzer.report.html import ReportEntry, render_report_html

    path = FOREIGN / "tau2_bench" / "solo_stop.json"
    analysis = analyze(load_any(path).log)
    html = render_report_html([ReportEntry("solo", str(path), analysis)], title="t")
    assert cost_phrase(analysis.headline.cost) in html and "$0.04" in html
    caption = cost_caption(["solo", "none"], [analysis.headline.cost, None])
    assert caption == f"Cost: solo {cost_phrase(analysis.headline.cost)} · none cost not recorded"
