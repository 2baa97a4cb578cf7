"""`rerunlens audit JOURNAL`: a route a harness ran through the recording proxy, its reported tokens
read against the proxy's own counts, over real HTTP to honest and over-reporting simulators."""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest
from fake_keys import FAKE_KEY

from analyzer.cli.main import main
from analyzer.errors import LogError
from analyzer.importers import load_any, native_text
from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing
from analyzer.simulator import Faults, Scenario, Simulator
from analyzer.simulator.scenario import Distortion

PROMPTS = [f"In one sentence: why does {thing} float on water?" for thing in (
    "ice", "a wooden log", "a steel ship", "a rubber duck", "pumice", "a coconut", "an apple", "a cork",
    "an empty bottle", "a candle",
)]  # fmt: skip


def _harness_through_proxy(tmp_path: Path, scenario: Scenario, rounds: int = 2) -> tuple[Path, int]:
    """A harness's calls (each prompt `rounds` times, the SDK retrying failures) through the proxy;
    its journal and how many requests reached the upstream."""
    journal = tmp_path / "run.proxy.jsonl"
    with Simulator(scenario) as sim:
        config = ProxyConfig(upstream=sim.base_url, keys=KeyRing([FAKE_KEY]), journal=str(journal))
        with RecordingProxy(config) as proxy:
            client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=6)
            for _ in range(rounds):
                for prompt in PROMPTS:
                    messages = [{"role": "user", "content": prompt}]
                    client.chat.completions.create(model="gpt-4o-mini", messages=messages, temperature=1)
        return journal, sim.state.requests


def _audit(journal: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main(["audit", str(journal), *extra]) == 0
    return capsys.readouterr().out


def test_an_over_reporting_route_is_overbilled_against_the_proxy_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=Distortion(usage_factor=1.3))
    journal, _ = _harness_through_proxy(tmp_path, scenario)
    tokens = json.loads(_audit(journal, capsys, "--json"))["tokens"]
    assert tokens["verdict"] == "overbilled"
    assert tokens["prompt_ratio"] == pytest.approx(1.3, abs=0.01)
    counted = [
        r["counted"]["completion_tokens"]
        for r in map(json.loads, journal.read_text().splitlines())
        if r["kind"] == "attempt"
    ]  # one-token answers: the simulator rounds each 1.3 back to 1, so the ratio is less than 1.3
    assert tokens["completion_ratio"] == pytest.approx(sum(round(1.3 * c) for c in counted) / sum(counted))
    assert tokens["prompt"]["interval"][0] > 1.05 and tokens["prompt"]["results"] == 2 * len(PROMPTS)
    text = _audit(journal, capsys)
    assert "the route is overbilled" in text and "reasoning tokens not recorded" in text


def test_an_honest_route_is_as_counted_and_its_retries_show_as_billed_attempts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    faults = Faults(server_error_rate=0.3, retry_after_s=0.01)
    scenario = Scenario(seed=3, latency_ms=(0.0, 0.5), billing="o200k_base", faults=faults)
    journal, reached = _harness_through_proxy(tmp_path, scenario)
    tokens = json.loads(_audit(journal, capsys, "--json"))["tokens"]
    assert tokens["verdict"] == "as counted"
    assert tokens["prompt_ratio"] == pytest.approx(1.0, abs=0.01)
    assert tokens["completion_ratio"] == pytest.approx(1.0, abs=0.01)
    calls = tokens["calls"]
    assert calls["logical"] == 2 * len(PROMPTS) and calls["billed_attempts"] == reached > calls["logical"]
    text = _audit(journal, capsys)
    assert f"{reached} attempts for {2 * len(PROMPTS)} calls" in text


def test_reasoning_reported_in_the_usage_details_is_kept_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    distortion = Distortion(reasoning_tokens=25)
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=distortion)
    journal, _ = _harness_through_proxy(tmp_path, scenario, rounds=1)
    tokens = json.loads(_audit(journal, capsys, "--json"))["tokens"]
    assert tokens["reasoning_reported"] == 25 * len(PROMPTS) and tokens["cached_reported"] is None
    assert tokens["verdict"] == "as counted"  # the hidden reasoning is not taken for overbilling


def test_a_journal_without_answered_calls_is_unmeasured_and_html_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "empty.proxy.jsonl"
    journal.write_text('{"journal": "rerunlens-proxy/1", "kind": "start"}\n')
    tokens = json.loads(_audit(journal, capsys, "--json"))["tokens"]
    assert tokens["verdict"] == "unmeasured" and tokens["prompt_ratio"] is None
    assert tokens["calls"] == {"logical": 0, "billed_attempts": 0}
    assert main(["audit", str(journal), "--html", str(tmp_path / "a.html")]) == 2
    assert "--html is for two logs" in capsys.readouterr().err and not (tmp_path / "a.html").exists()


def test_a_wrapped_runs_log_is_audited_through_the_journal_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=Distortion(usage_factor=1.3))
    journal, _ = _harness_through_proxy(tmp_path, scenario, rounds=1)
    log = load_any(journal).log
    wrapped = tmp_path / "run.altk_runs.json"
    wrapped.write_text(native_text(log.model_copy(update={"wrapped": {"journal": journal.name}})))
    assert json.loads(_audit(wrapped, capsys, "--json")) == json.loads(_audit(journal, capsys, "--json"))
    plain = tmp_path / "plain.altk_runs.json"
    plain.write_text(native_text(log))
    assert main(["audit", str(plain)]) == 2
    assert "not a wrapped run's log" in capsys.readouterr().err


def test_a_log_never_chooses_which_file_is_read_as_its_journal(tmp_path: Path) -> None:
    """A shared wrapped log naming a file elsewhere (an absolute path, `..`) reads nothing there: only a
    journal of that name beside the log, and the error says to give the journal itself."""
    from analyzer.audit.journal_ledger import wrapped_journal

    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "x.proxy.jsonl").write_text("not a journal\n", encoding="utf-8")
    folder = tmp_path / "shared"
    folder.mkdir()
    for named in (str(outside / "x.proxy.jsonl"), "../secret/x.proxy.jsonl"):
        log = folder / "wrapped.altk_runs.json"
        body = {"format": "2", "wrapped": {"journal": named}, "runs": [[{"task_id": "t", "answer": "a"}]]}
        log.write_text(json.dumps(body), encoding="utf-8")
        with pytest.raises(LogError, match="not beside it") as caught:
            wrapped_journal(log)
        assert "give the journal itself" in str(caught.value)
