"""The `judge` key end to end over real HTTP: the simulator's judge offline, a hostile endpoint for a
failing or unclear judge, and the CLI's consent (the most calls shown, `--yes` or a limit)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Received, Reply, completion

from analyzer.analysis import analyze
from analyzer.cli import main
from analyzer.log.frames import results_frame
from analyzer.log.loader import load_bytes
from analyzer.metrics.answers import answer_keys
from analyzer.metrics.judge import DecisionCache, JudgeOptions
from analyzer.metrics.judge.prompt import judge_messages
from analyzer.routes.profile import build_profile
from analyzer.runner.judge import JudgeRoute, RouteJudge, judge_profile
from analyzer.simulator.judge import simulated_verdict

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "A_baseline.altk_runs.json"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RERUNLENS_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ALTK_MODEL"):
        monkeypatch.delenv(name, raising=False)


def _log():
    return load_bytes(SAMPLE.read_bytes(), SAMPLE.name).log


def _options(judge: RouteJudge, tmp_path: Path) -> JudgeOptions:
    return JudgeOptions(
        decide=judge.decide, model=judge.name, band=None, decisions=DecisionCache(tmp_path / "j")
    )


def test_clusters_follow_the_simulators_verdicts_within_the_bound(tmp_path: Path) -> None:
    log = _log()
    judge = RouteJudge(build_profile(env={}))
    prompts = {t.task_id: t.prompt for t in log.tasks or []}
    keys = answer_keys(results_frame(log), "judge", semantic=_options(judge, tmp_path), prompts=prompts)
    judged = keys.attrs["judged"]
    assert judged, "no task was put to the judge"
    said = lambda task, a, b: simulated_verdict(judge_messages(prompts[task], a, b))  # noqa: E731
    for task, result in judged.items():
        reps = [m.answer for m in result.members if m.verdict is None]
        for m in result.members:
            if m.verdict is not None:
                assert said(task, m.representative, m.answer).startswith("yes"), (task, m)
        for i, later in enumerate(reps):
            assert not any(said(task, r, later).startswith("yes") for r in reps[:i]), (task, later)
        k, clusters = len(result.members), len(reps)
        assert result.calls <= k * clusters
    assert judge.calls == sum(t.calls for t in judged.values())


def test_the_cache_makes_a_second_pass_free(tmp_path: Path) -> None:
    first, second = RouteJudge(build_profile(env={})), RouteJudge(build_profile(env={}))
    one = analyze(_log(), "judge", semantic=_options(first, tmp_path))
    two = analyze(_log(), "judge", semantic=_options(second, tmp_path))
    assert first.calls > 0 and second.calls == 0
    assert one.results["answer_key"].tolist() == two.results["answer_key"].tolist()
    assert any("0 asked now" in w for w in two.headline.warnings)


def _failing(_got: Received) -> Reply:
    return Reply(500, {"content-type": "application/json"}, b'{"error": {"message": "judge is down"}}')


def _unclear(_got: Received) -> Reply:
    return completion("It depends on the context.")


def _judge_at(ep: HostileEndpoint, monkeypatch: pytest.MonkeyPatch) -> RouteJudge:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    return RouteJudge(
        judge_profile(JudgeRoute("judge-model", ep.base_url, None)).model_copy(update={"max_retries": 0})
    )


def test_a_failing_judge_leaves_the_answers_apart_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with HostileEndpoint(_failing) as ep:
        analysis = analyze(_log(), "judge", semantic=_options(_judge_at(ep, monkeypatch), tmp_path))
    normalized = analyze(_log(), "normalized")
    assert analysis.results["answer_key"].tolist() == normalized.results["answer_key"].tolist()
    said = [w for w in analysis.headline.warnings if "the judge failed" in w]
    assert said and "kept apart" in said[0] and FAKE_KEY not in " ".join(analysis.headline.warnings)


def test_an_unclear_reply_is_counted_and_kept_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with HostileEndpoint(_unclear) as ep:
        analysis = analyze(_log(), "judge", semantic=_options(_judge_at(ep, monkeypatch), tmp_path))
        asked = len(ep.received)
    assert any(f"{asked:,} judge replies were neither yes nor no" in w for w in analysis.headline.warnings)
    assert not (tmp_path / "j").exists() or not list((tmp_path / "j").iterdir())  # never cached


def test_every_judge_call_is_temperature_0_with_a_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with HostileEndpoint(lambda got: completion("yes: same")) as ep:
        analyze(_log(), "judge", semantic=_options(_judge_at(ep, monkeypatch), tmp_path))
    bodies = [json.loads(r.body) for r in ep.received]
    assert bodies and all(b["temperature"] == 0 and isinstance(b["seed"], int) for b in bodies)
    assert all(b["model"] == "judge-model" for b in bodies)


def test_the_cli_shows_the_calls_and_needs_yes_or_a_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["analyze", str(SAMPLE), "--key", "judge"])
    err = capsys.readouterr().err
    assert code == 2 and "at most" in err and "--yes" in err and len(err.strip().splitlines()) == 1
    assert main(["analyze", str(SAMPLE), "--key", "judge", "--judge-limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "judge key (gpt-4o-mini@" in out
    assert "Answers (key: judge, judged by gpt-4o-mini)" in out  # the figure names its judge


def test_the_judge_key_variable_follows_the_rerun_rules(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_KEY)
    with HostileEndpoint(lambda got: completion("yes: same")) as ep:
        argv = ["analyze", str(SAMPLE), "--key", "judge", "--yes", "--judge-base-url", ep.base_url]
        code = main([*argv, "--judge-key-env", "GITHUB_TOKEN"])
    out = capsys.readouterr()
    assert code == 2 and ep.received == [] and "GITHUB_TOKEN" in out.err and FAKE_KEY not in out.err + out.out


@pytest.mark.parametrize("command", ["compare", "export", "report"])
def test_compare_export_and_report_take_the_judge_key(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = SAMPLE.with_name("C_pinned.altk_runs.json")
    argv = {
        "compare": ["compare", str(SAMPLE), str(other)],
        "export": ["export", str(SAMPLE), "--csv", str(tmp_path / "t.csv")],
        "report": ["report", str(SAMPLE), "-o", str(tmp_path / "r.html")],
    }[command]
    assert main([*argv, "--key", "judge", "--yes"]) == 0
    err = capsys.readouterr().err
    assert "the judge key asks gpt-4o-mini at most 13 questions over 13 tasks" in err
    if command == "report":
        assert "judge key (gpt-4o-mini@" in (tmp_path / "r.html").read_text()


def test_a_reruns_verdicts_take_the_judge_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.altk_runs.json"
    argv = ["rerun", str(SAMPLE), "--only", "shop-001", "--repeat", "2", "--out", str(out), "--quiet"]
    assert main([*argv, "--key", "judge", "--yes"]) == 0
    captured = capsys.readouterr()
    assert "the judge key asks" in captured.err and "shop-001" in captured.out


def test_a_rerun_under_the_judge_key_is_refused_before_it_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.altk_runs.json"
    argv = ["rerun", str(SAMPLE), "--only", "shop-001", "--repeat", "2", "--out", str(out), "--quiet"]
    assert main([*argv, "--key", "judge"]) == 2
    assert "--judge-limit" in capsys.readouterr().err and not out.exists()


def test_one_connection_and_one_simulator_serve_a_whole_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import analyzer.runner.judge as judge_module

    real, entered = judge_module.serving, []

    def counted(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        entered.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(judge_module, "serving", counted)
    judge = RouteJudge(build_profile(env={}))
    analyze(_log(), "judge", semantic=_options(judge, tmp_path))
    assert judge.calls > 1 and len(entered) == 1
    judge.close()
    judge.decide("Total?", "$1", "1 dollar")  # opens again after a close
    assert len(entered) == 2
    judge.close()
