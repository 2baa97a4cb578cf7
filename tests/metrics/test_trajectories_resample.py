"""Step-level resampling: the per-step uncertainty (hand-computed), the flags, and a resample of the
shipped agent sample through the embedded simulator on a pinned route, saved as a linked log."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.errors import RerunLensError
from analyzer.log.loader import load_path
from analyzer.metrics.step_uncertainty import Sample, StepScore, flag_steps, score_step, similarity
from analyzer.routes.profile import RouteProfile
from analyzer.runner.resample import ResampleRequest, replay_points, resample
from analyzer.safety.keys import read_keys
from analyzer.simulator.agent import AGENT_KEYS, agent_scenario

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "E_agent_tools.altk_runs.json"
A, B = 'get_order {"order_id":"O-1"}', 'get_order {"order_id":"O-2"}'


def test_similarity_of_calls_texts_and_a_mix() -> None:
    assert similarity(Sample((A, B), ""), Sample((A,), "")) == 0.5
    assert similarity(Sample((), ""), Sample((), "")) == 1.0
    assert similarity(Sample(None, "yes"), Sample(None, "yep")) == pytest.approx(2 / 3)
    assert similarity(Sample((A,), ""), Sample(None, A)) == 0.0


def test_uncertainty_and_entropy_by_hand() -> None:
    samples = [Sample((A, B), ""), Sample((A,), ""), Sample(None, "yes"), Sample(None, "yes")]
    score = score_step(samples)
    # pairs: (1,2) 1/2, (3,4) 1, the four call/text pairs 0: mean 1.5 / 6 = 0.25
    assert score.uncertainty == pytest.approx(0.75)
    assert score.low is not None and score.high is not None and score.low <= 0.75 <= score.high
    # actions 1/4, 1/4, 1/2: 1.5 bits, over log2(4) = 2 bits
    assert score.entropy_bits == pytest.approx(1.5) and score.entropy == pytest.approx(0.75)
    assert score.actions == {"yes": 2, f"{A} | {B}": 1, A: 1}


def test_samples_that_agree_have_no_uncertainty_but_an_honest_interval() -> None:
    """Five samples that agree show uncertainty 0, but five samples cannot rule out a step that
    varies now and then: Wilson 95 % for 0 of 5 is 0 to 0.434, not 0 to 0."""
    score = score_step([Sample((A,), "")] * 5)
    assert (score.uncertainty, score.low, round(score.high, 3), score.entropy) == (0.0, 0.0, 0.434, 0.0)
    assert score_step([Sample((A,), "")]).uncertainty is None


def _score(u: float | None) -> StepScore:
    return StepScore(5, u, u, u, 0.0, 0.0, {})


def test_flags_at_most_three_steps_from_0_2_up() -> None:
    scores = {
        0: _score(0.19),
        1: _score(0.2),
        2: _score(0.9),
        3: _score(0.5),
        4: _score(0.5),
        5: _score(None),
    }
    assert flag_steps(scores) == [2, 3, 4]
    assert flag_steps({0: _score(0.1)}) == []


def pinned() -> tuple[RouteProfile, object]:
    profile = RouteProfile(model="gpt-4o-mini", temperature=0.0, seed=42, rounds=1, max_retries=0)
    return profile, read_keys(profile.key_envs(), rotation=AGENT_KEYS[:1])


def test_replay_points_read_the_recorded_conversation() -> None:
    log = load_path(SAMPLE).log
    rnd, messages, tools = replay_points(log, "agent-cancel")
    assert rnd == 1 and [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert {t["function"]["name"] for t in tools} >= {"get_order", "cancel_order"}
    with pytest.raises(RerunLensError, match="no recorded conversation"):
        replay_points(log, "no-such-task")


def test_resample_without_model_noise_finds_no_uncertain_step(tmp_path: Path) -> None:
    profile, keys = pinned()
    out = tmp_path / "resample.json"
    request = ResampleRequest(
        load_path(SAMPLE).log, "agent-cancel", out, samples=3, scenario=agent_scenario(noise=0.0)
    )
    seen: list[tuple[int, int]] = []
    report = resample(request, profile, keys, progress=lambda d, t: seen.append((d, t)))  # type: ignore[arg-type]
    assert [s.step for s in report.steps] == [0, 1, 2] and [s.tool_step for s in report.steps] == [0, 1, 2]
    assert all(s.score.uncertainty == 0.0 for s in report.steps) and report.flagged == []
    assert report.steps[0].recorded == 'get_order {"order_id":"O-6101"}'
    assert report.steps[2].score.actions == {"cancelled": 3}
    assert seen[-1] == (9, 9)
    log = load_path(out).log
    assert log.parent_run_id == "sample-E_agent_tools"
    assert len(log.runs) == 3 and [r.task_id for r in log.runs[0]] == [
        f"agent-cancel#step{k}" for k in range(3)
    ]
    assert all(a.key_fingerprint for _r, res in log.results() for a in res.attempts or [])
    saved = json.loads(out.read_text())["resample"]
    assert saved["flagged"] == [] and saved["steps"][0]["samples"] == 3
    assert analyze(log).headline.consistent_tasks == 3  # every step's samples agree


def test_resample_flags_the_steps_where_model_noise_lives(tmp_path: Path) -> None:
    _pinned, keys = pinned()
    profile = RouteProfile(model="gpt-4o-mini", temperature=0.0, seed=None, rounds=1, max_retries=0)
    request = ResampleRequest(
        load_path(SAMPLE).log,
        "agent-cheapest-monitor",
        tmp_path / "noisy.json",
        samples=8,
        steps=[1, 2, 3],
        scenario=agent_scenario(noise=3.0),
    )
    report = resample(request, profile, keys)  # type: ignore[arg-type]
    assert [s.step for s in report.steps] == [1, 2, 3]
    assert 1 <= len(report.flagged) <= 3
    flagged = {s.step: s.score for s in report.steps if s.step in report.flagged}
    assert all(score.uncertainty >= 0.2 and len(score.actions) > 1 for score in flagged.values())  # type: ignore[operator]
    assert all(not math.isnan(s.score.entropy) for s in report.steps)


def test_resample_refuses_bad_requests_and_stops_when_cancelled(tmp_path: Path) -> None:
    profile, keys = pinned()
    log = load_path(SAMPLE).log
    with pytest.raises(RerunLensError, match="at least 2"):
        resample(ResampleRequest(log, "agent-cancel", tmp_path / "a.json", samples=1), profile, keys)  # type: ignore[arg-type]
    with pytest.raises(RerunLensError, match="--steps 7"):
        resample(ResampleRequest(log, "agent-cancel", tmp_path / "b.json", steps=[7]), profile, keys)  # type: ignore[arg-type]
    stop = threading.Event()
    stop.set()
    report = resample(ResampleRequest(log, "agent-cancel", tmp_path / "c.json"), profile, keys, cancel=stop)  # type: ignore[arg-type]
    assert report.cancelled and report.steps[0].score.samples == 0
    assert json.loads((tmp_path / "c.json").read_text())["resample"]["cancelled"] is True


def test_a_background_resample_reports_progress_and_stops_on_cancel(tmp_path: Path) -> None:
    import time

    from analyzer.jobs.resample_jobs import cancel_resample, start_resample

    profile, keys = pinned()
    out = tmp_path / "bg.json"
    request = ResampleRequest(load_path(SAMPLE).log, "agent-late-audit", out, samples=20)
    job = start_resample(request, profile, keys)  # type: ignore[arg-type]
    assert start_resample(request, profile, keys) is job  # type: ignore[arg-type]  # no duplicate
    deadline = time.monotonic() + 30
    while job.done < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    cancel_resample(out)
    while job.state == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.state == "cancelled" and 3 <= job.done < job.planned == 13 * 20
    assert json.loads(out.read_text())["resample"]["cancelled"] is True
