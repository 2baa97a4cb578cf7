"""Your route (key, base URL, parameters, retries) and the provider's backend (served model,
fingerprint) are kept apart in every sentence, count and verdict; after a pinned re-run of sample A
the tasks said to agree on the pinned route are the ones its table shows consistent after."""

from __future__ import annotations

from pathlib import Path

from plan_kit import rerun

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.metrics.attribution import verdict_counts
from analyzer.metrics.route_factors import side_counts
from analyzer.report.finding import finding
from analyzer.routes.profile import RouteProfile

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def test_one_key_and_a_changing_backend_is_not_called_pinned() -> None:
    route = analyze(load_path(SAMPLES / "B_one_key.altk_runs.json").log).headline.route
    assert route.pinned is True and not route.held  # your route one; the provider's backend not
    assert not route.verdict.startswith("Route pinned")
    assert route.verdict.startswith("Your route held") and "provider's backend did not" in route.verdict


def test_the_route_cause_is_split_by_whose_side_its_factor_is_on() -> None:
    analysis = analyze(load_path(SAMPLES / "A_baseline.altk_runs.json").log)
    items = analysis.headline.attribution
    sides = side_counts(items)
    assert sides["route"] + sides["backend"] + sides["route or backend"] == verdict_counts(items)["route"]
    on_backend = [a for a in items if a.cause == "route" and a.passes and a.factor == "backend"]
    assert on_backend and sides["backend"] == len(on_backend)
    sentence = finding(analysis.report()).sentence
    assert "key, base URL or backend" not in sentence
    assert f"{sides['backend']} follow the provider's backend" in sentence
    assert f"{sides['backend']} follow the provider's backend" in analysis.headline.route.verdict


def test_a_task_said_to_agree_on_the_pinned_route_agrees_in_the_table(tmp_path: Path) -> None:
    parent = load_path(SAMPLES / "A_baseline.altk_runs.json").log
    out = tmp_path / "A.rerun.json"
    report = rerun(
        parent, "inconsistent", profile=RouteProfile(), out=out, source=SAMPLES / "A_baseline.altk_runs.json"
    )
    frame = report.before_after
    agreed = frame[frame["verdict"].isin(["route", "inconclusive"])]  # "agreed on the pinned route"
    assert len(agreed) and agreed["consistent_after"].eq(True).all(), agreed[["task_id", "consistent_after"]]
    varied = frame[frame["verdict"].isin(["both", "model"])]  # "still vary on the pinned route"
    assert varied["consistent_after"].eq(False).all()
