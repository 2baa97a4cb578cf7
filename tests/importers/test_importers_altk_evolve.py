"""ALTK-Evolve consistency score cards: the debug artifacts altk-evolve-core 1.7.1 wrote for one
trajectory (fixtures/foreign/altk_evolve/SOURCE.md), imported as one task with its per-step scores."""

from __future__ import annotations

import base64
import json
import shutil
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from analyzer.errors import LogError
from analyzer.importers import detect_format, load_any, load_any_bytes

HERE = Path(__file__).parents[1] / "fixtures" / "foreign" / "altk_evolve"
CARD = HERE / "consistency_score_card_7f3a9c21.json"
IR = HERE / "trajectory_ir_7f3a9c21_cns.json"


def _card() -> dict[str, Any]:
    return json.loads(CARD.read_text(encoding="utf-8"))


def test_the_card_brings_altk_evolves_own_step_scores_and_the_trajectory() -> None:
    loaded = load_any(CARD)
    assert detect_format(CARD.read_bytes()) == "altk-evolve"
    log = loaded.log
    result = log.runs[0][0]
    assert (result.task_id, result.answer) == ("7f3a9c21", "Booked DL40, the cheapest flight at $289.")
    calls = [s.name for s in result.trajectory if s.type == "tool_call"]
    assert calls == ["search_flights", "book_flight"]
    assert log.route is not None and log.route.model == "gpt-4o-mini"
    assert log.tasks[0].prompt == "Book me the cheapest flight from SFO to JFK tomorrow."
    own = {s["step_number"] - 1: s["step_uncertainty"] for s in _card()["steps"]}
    steps = log.resample["steps"]
    assert {s["step"]: s["altk_uncertainty"] for s in steps} == own == {0: 0.0, 1: 0.2, 2: 0.7388}
    assert log.resample["altk_aggregate_uncertainty"] == pytest.approx(
        _card()["aggregate_trajectory_uncertainty"]
    )
    # x positions on the divergence tree: tool calls made before each assistant turn
    assert [s["tool_step"] for s in steps] == [0, 1, 2]


def test_with_the_samples_each_step_also_gets_rerunlens_score_and_interval() -> None:
    steps = load_any(CARD).log.resample["steps"]
    ir = json.loads(IR.read_text(encoding="utf-8"))
    booking = ir["steps"][1]["sampling"]["raw_samples"]
    flights = [json.loads(s[0]["function"]["arguments"])["flight_id"] for s in booking]
    assert sorted(flights) == ["DL40", "DL40", "DL40", "UA12", "UA12"]
    # hand-computed: 10 pairs, 4 agree (3 choose 2 + 2 choose 2): uncertainty 1 - 4/10
    agree = sum(a == b for a, b in combinations(flights, 2))
    assert steps[1]["uncertainty"] == pytest.approx(1 - agree / 10) == pytest.approx(0.6)
    assert steps[0]["uncertainty"] == 0.0 and steps[0]["samples"] == 5
    for s in steps:
        assert s["uncertainty_low"] <= s["uncertainty"] <= s["uncertainty_high"]
    assert load_any(CARD).log.resample["flagged"] == [1, 2]  # >= 0.2, most uncertain first


def test_the_ir_file_alone_reads_the_same_as_the_card_with_its_siblings() -> None:
    from_card = load_any(CARD).log
    from_ir = load_any(IR).log
    assert from_ir.resample["steps"] == from_card.resample["steps"]
    assert from_ir.runs[0][0].answer == from_card.runs[0][0].answer
    assert [s.model_dump() for s in from_ir.runs[0][0].trajectory if s.type == "tool_call"] == [
        s.model_dump() for s in from_card.runs[0][0].trajectory if s.type == "tool_call"
    ]


def test_an_uploaded_card_alone_has_no_interval_and_flags_nothing() -> None:
    loaded = load_any_bytes(CARD.read_bytes(), "card.json")
    block = loaded.log.resample
    assert [s["uncertainty"] for s in block["steps"]] == [0.0, 0.2, 0.7388]
    assert all(s["uncertainty_low"] is None and s["samples"] is None for s in block["steps"])
    assert block["flagged"] == []
    assert any("no samples at hand" in w for w in loaded.warnings)
    assert loaded.log.runs[0][0].trajectory is None


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda c: c["steps"][1].update(step_uncertainty="high"),
            "card.json: steps[1].step_uncertainty: expected a number",
        ),
        (
            lambda c: c["steps"][0].update(step_number=0),
            "card.json: steps[0].step_number: expected a step number",
        ),
        (lambda c: c.update(steps=[1]), "card.json: steps[0]: expected an object"),
    ],
)
def test_a_damaged_card_is_one_line(edit: Any, message: str) -> None:
    card = _card()
    edit(card)
    with pytest.raises(LogError) as info:
        load_any_bytes(json.dumps(card).encode(), "card.json")
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def _tasks_page(path: Path) -> AppTest:
    def script(path: str) -> None:
        import importlib

        from analyzer.analysis import analyze
        from analyzer.importers import load_any
        from app import data

        loaded = load_any(path)
        name = path.rsplit("/", 1)[-1]
        g = data.Group(label="A", source=name, loaded=loaded, analysis=analyze(loaded.log))
        importlib.import_module("app.views.tasks").render(data.Selection(groups=[g], key="exact", focus=g))

    at = AppTest.from_function(script, kwargs={"path": str(path)}, default_timeout=60)
    at.query_params.update({"task": "7f3a9c21", "tasks.detail": "Trajectory"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_tasks_page_shows_the_imported_step_scores_with_the_trajectory(tmp_path: Path) -> None:
    at = _tasks_page(CARD)
    spec = next(
        json.loads(el.proto.spec)
        for el in at.get("plotly_chart")
        if "Step uncertainty" in json.loads(el.proto.spec)["layout"]["title"]["text"]
    )
    assert "resampled by ALTK-Evolve" in spec["layout"]["title"]["text"]
    bars = spec["data"][0]
    ys = (
        np.frombuffer(base64.b64decode(bars["y"]["bdata"]), dtype=bars["y"]["dtype"])
        if isinstance(bars["y"], dict)
        else np.asarray(bars["y"])
    )
    assert np.allclose(ys, [s["uncertainty"] for s in load_any(CARD).log.resample["steps"]])
    caption = next(c.value for c in at.caption if "ALTK-Evolve's own step uncertainty" in c.value)
    assert "tool call 2: 0.20 (mixed)" in caption  # tool calls counted from 1, as everywhere on the page
    assert "flagged (≥ 0.2, at most three): tool call 2, tool call 3" in caption
    assert not [b for b in at.button if "resample" in (b.label or "").lower()]
    shutil.copy(CARD, tmp_path / CARD.name)  # alone: ALTK-Evolve's own scores, no interval
    caption = next(c.value for c in _tasks_page(tmp_path / CARD.name).caption if "ALTK-Evolve" in c.value)
    assert "no step is flagged" in caption
