"""The route a run log was pinned to, as the profile the coding-tool export starts from, and the
benchmark's key fingerprints the doctor compares against."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.coding_tools import benchmark_fingerprints, profile_from_log
from analyzer.errors import RouteError
from analyzer.log.loader import load_path
from analyzer.log.model import Attempt, Result, Route, RunLog

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def result(task: str, base_url: str | None, model: str = "gw-coder", fp: str | None = None) -> Result:
    route = Route(base_url=base_url, model=model, key_fingerprint=fp) if base_url else None
    attempts = [Attempt(attempt=0, outcome="ok", key_fingerprint=fp)] if fp else None
    return Result(task_id=task, answer="a", route=route, attempts=attempts)


def test_the_logs_own_route_wins() -> None:
    log = RunLog(
        route=Route(base_url="https://gw.example.com/v1", key_env="BENCH_KEY", model="gw-coder"),
        runs=[[result("t1", "https://other.example.com/v1")]],
    )
    profile = profile_from_log(log)
    assert (profile.base_url, profile.key_env, profile.model) == (
        "https://gw.example.com/v1",
        "BENCH_KEY",
        "gw-coder",
    )


def test_the_one_route_its_results_recorded() -> None:
    log = RunLog(
        runs=[[result("t1", "https://gw.example.com/v1")], [result("t1", "https://gw.example.com/v1")]]
    )
    profile = profile_from_log(log)
    assert (profile.base_url, profile.key_env, profile.model) == (
        "https://gw.example.com/v1",
        "OPENAI_API_KEY",
        "gw-coder",
    )


def test_a_log_with_two_routes_is_refused() -> None:
    log = RunLog(
        runs=[[result("t1", "https://a.example.com/v1")], [result("t1", "https://b.example.com/v1")]]
    )
    with pytest.raises(RouteError, match="used 2 routes"):
        profile_from_log(log)


def test_a_format1_log_gives_its_summarys_route() -> None:
    profile = profile_from_log(load_path(SAMPLES / "format1_plain_script.json").log)
    assert (profile.base_url, profile.model) == ("https://api.openai.com/v1", "gpt-4o-mini")


def test_a_simulator_log_has_no_gateway() -> None:
    with pytest.raises(RouteError, match="built-in simulator"):
        profile_from_log(load_path(SAMPLES / "C_pinned.altk_runs.json").log)


def test_benchmark_fingerprints_from_route_results_and_attempts() -> None:
    log = RunLog(
        route=Route(base_url="https://gw.example.com/v1", key_fingerprint="sha256:aaaaaaaaaaaa"),
        runs=[[result("t1", "https://gw.example.com/v1", fp="sha256:bbbbbbbbbbbb")], [result("t1", None)]],
    )
    assert benchmark_fingerprints(log) == ["sha256:aaaaaaaaaaaa", "sha256:bbbbbbbbbbbb"]
    rotation = load_path(SAMPLES / "D_key_rotation.altk_runs.json").log
    assert len(benchmark_fingerprints(rotation)) == 3  # the three keys of the rotation
