"""Base-URL rotation, the twin of key rotation: attempts go to the profile's API roots in turn, each
attempt records the root it went to, the key goes to each root the user named (and to no other host),
and when the answers follow the endpoint the attribution names the base URL."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY
from plan_kit import run_tasks

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.simulator import AnswerRule, Choice, Scenario, Simulator

TASKS = [TaskSpec(task_id=f"t{i}", prompt=f"capital question {i}") for i in range(6)]


def _endpoint(answer: str) -> Scenario:
    rule = AnswerRule(match="capital", choices=[Choice(text=answer)])
    return Scenario(answers=[rule], latency_ms=(0.0, 0.0))


@pytest.fixture
def endpoints() -> Iterator[tuple[Simulator, Simulator]]:
    """Two OpenAI-compatible endpoints that answer the same question differently."""
    first, second = Simulator(_endpoint("Paris")).start(), Simulator(_endpoint("Lyon")).start()
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def test_attempts_rotate_over_the_base_urls_and_the_attribution_names_them(
    endpoints: tuple[Simulator, Simulator], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = endpoints
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    profile = RouteProfile(
        base_url=first.base_url, base_url_rotation=[second.base_url], max_retries=0, seed=None
    )
    out = tmp_path / "rotated.altk_runs.json"
    run_tasks(TASKS, profile, out, rounds=10)
    log = load_path(out).log
    attempts = [a for _rnd, r in log.results() for a in r.attempts or []]
    used = Counter(a.base_url for a in attempts)
    assert set(used) == {first.base_url, second.base_url}
    assert min(used.values()) >= 15  # 60 attempts: both roots well used, not one pinned per task
    assert all(a.key_fingerprint for a in attempts)  # the key went to both: the user named them
    answers = {(a.base_url, r.answer) for _rnd, r in log.results() for a in r.attempts or []}
    assert answers == {(first.base_url, "Paris"), (second.base_url, "Lyon")}
    analysis = analyze(log)
    causes = {(a.cause, a.factor) for a in analysis.headline.attribution}
    assert causes == {("route", "base URL")}  # every task: its answers follow the endpoint


def test_a_pinned_rerun_drops_the_rotation() -> None:
    from analyzer.runner.pinned_rerun import pinned_profile

    profile = RouteProfile(base_url="https://a.example/v1", base_url_rotation=["https://b.example/v1"])
    assert pinned_profile(profile).base_urls() == ["https://a.example/v1"]


def test_a_rotation_url_must_be_http() -> None:
    with pytest.raises(ValueError, match="base_url_rotation"):
        RouteProfile(base_url="https://a.example/v1", base_url_rotation=["file:///etc/passwd"])
