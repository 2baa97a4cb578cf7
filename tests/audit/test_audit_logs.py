"""The route audit on logs the runner wrote over real HTTP against honest and distorted simulators."""

from __future__ import annotations

import html as html_module
import json
from pathlib import Path

import pytest
from plan_kit import run_tasks

from analyzer.audit import audit_figures, audit_logs, audit_text
from analyzer.cli.main import main
from analyzer.log.loader import load_path
from analyzer.log.model import RunLog, TaskSpec
from analyzer.metrics.token_count import count_text
from analyzer.routes.profile import RouteProfile
from analyzer.simulator import Faults, Scenario, Simulator
from analyzer.simulator.scenario import Distortion, Substitute

PROMPTS = [
    f"Which of the {n} offices in {city} opens first on {day}? Reply with the office name."
    for n, city, day in [
        (3, "Lisbon", "Monday"),
        (4, "Porto", "Tuesday"),
        (5, "Madrid", "Friday"),
        (2, "Berlin", "Sunday"),
        (6, "Paris", "Monday"),
        (3, "Vienna", "Thursday"),
        (7, "Prague", "Saturday"),
        (4, "Oslo", "Tuesday"),
        (5, "Rome", "Wednesday"),
        (2, "Milan", "Friday"),
        (3, "Dublin", "Monday"),
        (6, "Zurich", "Sunday"),
        (4, "Athens", "Thursday"),
        (5, "Warsaw", "Friday"),
        (3, "Krakow", "Tuesday"),
        (2, "Riga", "Monday"),
        (7, "Tallinn", "Saturday"),
        (4, "Vilnius", "Wednesday"),
        (6, "Sofia", "Friday"),
        (5, "Bern", "Monday"),
        (3, "Geneva", "Tuesday"),
        (2, "Lyon", "Thursday"),
        (4, "Seville", "Sunday"),
        (5, "Bilbao", "Friday"),
        (3, "Munich", "Saturday"),
    ]
]
TASKS = [TaskSpec(task_id=f"q{i}", prompt=p) for i, p in enumerate(PROMPTS)]


def _log(tmp_path: Path, name: str, distortion: Distortion, seed: int, rounds: int = 10) -> RunLog:
    scenario = Scenario(seed=0, latency_ms=(0.0, 0.5), billing="o200k_base", distortion=distortion)
    out = tmp_path / f"{name}.altk_runs.json"
    with Simulator(scenario) as sim:
        profile = RouteProfile(
            base_url=sim.base_url, temperature=1.0, max_retries=0, concurrency=4, seed=None
        )
        run_tasks(TASKS, profile, out, rounds=rounds, api_key="sim-key", run_id=name)
    return load_path(out).log


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunLog]:
    tmp = tmp_path_factory.mktemp("audit")
    return {
        "reference": _log(tmp, "reference", Distortion(), 1),
        "honest": _log(tmp, "honest", Distortion(), 2),
        "other model": _log(tmp, "other", Distortion(substitute=Substitute(shift=3.0)), 3),
        "overbilled": _log(tmp, "overbilled", Distortion(usage_factor=1.25), 4),
        "cut short": _log(tmp, "cut", Distortion(truncate_share=0.5), 5),
    }


def test_a_substituted_model_is_found_and_named(logs: dict[str, RunLog]) -> None:
    figures = audit_figures(audit_logs(logs["reference"], logs["other model"]))
    assert figures["identity"]["verdict"] == "differ"
    assert figures["identity"]["p_value"] <= 0.05
    assert "evidence, not proof of substitution" in figures["sentences"][0]


def test_cut_completions_differ_in_length_or_finish_reason(logs: dict[str, RunLog]) -> None:
    identity = audit_figures(audit_logs(logs["reference"], logs["cut short"]))["identity"]
    assert identity["verdict"] == "differ"
    assert identity["differs_most"] in ("finish reason", "length", "opening", "wording", "tokens")


def test_an_honest_route_is_no_difference_with_its_power_stated(logs: dict[str, RunLog]) -> None:
    result = audit_logs(logs["reference"], logs["honest"])
    figures = audit_figures(result)
    assert figures["identity"]["verdict"] == "no difference found"
    assert 0 <= figures["identity"]["power"]["power"] <= 1
    assert "not proof of the same model" in audit_text(result)
    assert figures["tokens"]["verdict"] == "as counted"
    assert figures["tokens"]["prompt_ratio"] == pytest.approx(1.0, abs=0.01)
    assert figures["tokens"]["completion_ratio"] == pytest.approx(1.0, abs=0.01)


def test_over_reported_usage_is_overbilled_at_its_factor(logs: dict[str, RunLog]) -> None:
    tokens = audit_figures(audit_logs(logs["reference"], logs["overbilled"]))["tokens"]
    assert tokens["verdict"] == "overbilled"
    assert tokens["prompt_ratio"] == pytest.approx(1.25, abs=0.01)
    # completions are 1 to 5 tokens, so the route's rounding of 1.25x is part of what it bills
    served = [count_text(r.answer) for _, r in logs["overbilled"].results() if r.answer]
    billed = sum(round(n * 1.25) for n in served) / sum(served)
    assert tokens["completion_ratio"] == pytest.approx(billed, abs=0.01)
    assert billed > 1.05


def test_too_few_samples_is_inconclusive_and_says_how_many(tmp_path: Path) -> None:
    a = _log(tmp_path, "a", Distortion(), 1, rounds=2)
    b = _log(tmp_path, "b", Distortion(), 2, rounds=2)
    a_small = RunLog(tasks=a.tasks[:3], runs=[r[:3] for r in a.runs])
    b_small = RunLog(tasks=b.tasks[:3], runs=[r[:3] for r in b.runs])
    figures = audit_figures(audit_logs(a_small, b_small))
    assert figures["identity"]["verdict"] == "inconclusive"
    assert "20 samples per route" in figures["identity"]["needed"]


def test_cli_prints_the_json_fields(
    logs: dict[str, RunLog], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for name in ("reference", "other model"):
        path = tmp_path / f"{name.replace(' ', '_')}.json"
        path.write_text(logs[name].model_dump_json(exclude_none=True), encoding="utf-8")
        paths.append(str(path))
    assert main(["audit", *paths, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["identity"]["verdict"] == "differ"
    for section, field in [
        ("tokens", "prompt_ratio"),
        ("tokens", "completion_ratio"),
        ("tokens", "verdict"),
        ("tool_calls", "verdict"),
    ]:
        assert field in out[section]
    assert main(["audit", paths[0]]) == 2
    page = tmp_path / "audit.html"
    assert main(["audit", *paths, "--html", str(page)]) == 0
    text = capsys.readouterr().out.splitlines()[0]
    assert text.startswith("Identity: the routes differ")
    assert html_module.escape(text) in page.read_text(encoding="utf-8")


def test_retried_requests_are_counted_as_attempts_a_provider_may_bill(tmp_path: Path) -> None:
    honest = _log(tmp_path, "honest", Distortion(), 1, rounds=2)
    scenario = Scenario(
        latency_ms=(0.0, 0.5), billing="o200k_base", faults=Faults(server_error_rate=0.4, retry_after_s=0.0)
    )
    out = tmp_path / "flaky.altk_runs.json"
    with Simulator(scenario) as sim:
        profile = RouteProfile(base_url=sim.base_url, temperature=1.0, max_retries=3, concurrency=4)
        run_tasks(TASKS, profile, out, rounds=2, api_key="sim-key", run_id="flaky")
    flaky = load_path(out).log
    calls = audit_figures(audit_logs(honest, flaky))["tokens"]["candidate"]["calls"]
    attempts = sum(len(r.attempts or []) for _, r in flaky.results())
    assert calls["results"] == 50 and calls["attempts"] == attempts > 50
    assert audit_figures(audit_logs(honest, flaky))["tokens"]["reference"]["calls"]["attempts"] == 50


def test_logs_of_different_prompts_are_refused_in_one_line(
    logs: dict[str, RunLog], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = logs["honest"].model_copy(deep=True)
    assert other.tasks is not None
    other.tasks[0] = other.tasks[0].model_copy(update={"prompt": "A different question?"})
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    paths[0].write_text(logs["reference"].model_dump_json(exclude_none=True), encoding="utf-8")
    paths[1].write_text(other.model_dump_json(exclude_none=True), encoding="utf-8")
    assert main(["audit", str(paths[0]), str(paths[1])]) == 2
    err = capsys.readouterr().err.strip()
    assert "not runs of the same prompts" in err and "q0" in err and len(err.splitlines()) == 1


def _tool_log(run_id: str, city_case: str, seed: int) -> RunLog:
    """25 prompts x 10 samples answered by a tool call alone (no text), with `city` spelled as asked."""
    import random

    rnd = random.Random(seed)
    runs = []
    for r in range(10):
        results = []
        for t in TASKS:
            city = t.prompt.split(" in ")[1].split(" opens")[0]
            args = {"city": getattr(city, city_case)(), "day": rnd.choice(["mon", "tue"])}
            step = {"type": "tool_call", "name": "find_office", "arguments": json.dumps(args)}
            results.append(
                {
                    "task_id": t.task_id,
                    "round": r + 1,
                    "status": "ok",
                    "answer": None,
                    "trajectory": [step],
                    "completion_tokens": 12,
                    "prompt_tokens": 40,
                    "finish_reason": "tool_calls",
                }
            )
        runs.append(results)
    log = {"format": "altk-runs/2", "run_id": run_id, "tasks": [t.model_dump() for t in TASKS], "runs": runs}
    return RunLog.model_validate(log)


def test_a_route_that_changes_its_tool_calls_differs() -> None:
    """Completions that are tool calls alone are read as their calls: a candidate that lower-cases
    every argument differs, in wording, while an honest candidate does not."""
    reference = _tool_log("ref", "title", seed=1)
    changed, honest = _tool_log("cand", "lower", seed=2), _tool_log("same", "title", seed=3)
    assert audit_logs(reference, changed).identity.verdict == "differ"
    assert audit_logs(reference, honest).identity.verdict != "differ"
