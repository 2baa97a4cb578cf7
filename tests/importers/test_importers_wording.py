"""Warnings and labels of imported logs that a user of the source tool reads: true for the file at hand,
said once, naming what tells two runs apart. Fixtures: tests/fixtures/foreign/*/SOURCE.md."""

from __future__ import annotations

import json
from pathlib import Path

from analyzer.analysis import analyze
from analyzer.importers import load_any, load_any_bytes
from analyzer.numbers import counted

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"


def test_epochs_are_counted_as_epochs() -> None:
    assert counted(27, "epoch") == "27 epochs"
    assert counted(2, "match") == "2 matches"


def test_a_promptfoo_file_with_no_repeats_says_nothing_of_repeats() -> None:
    raw = json.loads((FOREIGN / "promptfoo" / "two_prompts" / "results.json").read_text(encoding="utf-8"))
    rows = raw["results"]["results"]
    keep, seen = [], set()
    for row in rows:  # one row per (prompt, provider, test): the file as a run without --repeat
        key = (row["promptId"], row["provider"]["id"], json.dumps(row["testCase"], sort_keys=True))
        if key not in seen:
            seen.add(key)
            keep.append(row)
    assert len(keep) < len(rows)
    raw["results"]["results"] = keep
    warnings = load_any_bytes(json.dumps(raw).encode(), "results.json").warnings
    assert any("each test ran once" in w for w in warnings)
    assert not any("repeat index" in w for w in warnings)
    assert any(
        "repeat index" in w for w in load_any(FOREIGN / "promptfoo" / "two_prompts" / "results.json").warnings
    )


def test_groups_on_one_provider_are_not_each_on_its_own_route() -> None:
    verdict = analyze(
        load_any(FOREIGN / "promptfoo" / "two_prompts" / "results.json").log
    ).headline.route.verdict
    assert "all on one route" in verdict and "each on its own route" not in verdict
    other = analyze(load_any(FOREIGN / "promptfoo" / "results.json").log).headline.route.verdict
    assert "each on its own route" in other


def test_a_tau2_label_names_the_agent_type() -> None:
    log = load_any(FOREIGN / "tau2_bench" / "solo_stop.json").log
    raw = json.loads((FOREIGN / "tau2_bench" / "solo_stop.json").read_text(encoding="utf-8"))
    agent = raw["info"]["agent_info"]
    assert log.label == f"tau2-bench: airline {agent['implementation']} on {agent['llm']}"


def test_no_warning_is_said_twice() -> None:
    for path in [
        FOREIGN / "inspect_ai" / "stopped_part_way.json",
        FOREIGN / "inspect_ai" / "client_type_error.json",
        FOREIGN / "promptfoo" / "results.json",
        FOREIGN / "lm_eval" / "simulated" / "gpt-4o-mini",
    ]:
        warnings = analyze(load_any(path).log).headline.warnings
        assert len(warnings) == len(set(warnings)), path
        assert sum("token" in w for w in warnings) <= 1, path  # unknown tokens: said once
