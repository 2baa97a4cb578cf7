"""The simulator is a real OpenAI-compatible server: the real SDK talks to it over loopback."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import openai
import pytest

from analyzer.errors import RerunLensError
from analyzer.simulator import (
    AnswerRule,
    Choice,
    Faults,
    KeyConfig,
    RateLimit,
    Scenario,
    ScriptRule,
    Simulator,
    load_scenario,
)

FAST = {"latency_ms": (0.0, 0.0)}


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator(Scenario(**FAST)) as s:
        yield s


def client(sim: Simulator, key: str = "k-test", **kw: object) -> openai.OpenAI:
    return openai.OpenAI(api_key=key, base_url=sim.base_url, max_retries=0, **kw)


def ask(c: openai.OpenAI, prompt: str, **kw: object):
    return c.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}], **kw
    )


def test_chat_completion_shape_and_usage(sim: Simulator) -> None:
    r = ask(client(sim), "Find order 4411 in the shop and tell me its total.", temperature=0, seed=1)
    assert r.object == "chat.completion"
    assert r.model.startswith("gpt-4o-mini-")
    assert r.system_fingerprint and r.system_fingerprint.startswith("fp_sim_")
    assert r.choices[0].finish_reason == "stop" and r.choices[0].message.content
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens
    assert r.usage.prompt_tokens > 5


def test_models_list(sim: Simulator) -> None:
    ids = [m.id for m in client(sim).models.list().data]
    assert "gpt-4o-mini" in ids


def test_unknown_path_is_404(sim: Simulator) -> None:
    c = openai.OpenAI(api_key="k", base_url=sim.base_url.removesuffix("/v1"), max_retries=0)
    with pytest.raises(openai.NotFoundError):
        ask(c, "hello")


def test_unknown_and_missing_keys_are_401() -> None:
    scenario = Scenario(accept_any_key=False, keys={"good-key-1": KeyConfig()}, **FAST)
    with Simulator(scenario) as s:
        assert ask(client(s, "good-key-1"), "Reply with OK.").choices[0].message.content == "OK"
        with pytest.raises(openai.AuthenticationError) as err:
            ask(client(s, "sk-wrong-key-123"), "Reply with OK.")
        assert "sk-wrong" not in str(err.value)
        with pytest.raises(openai.AuthenticationError):
            client(s, "x").with_options(api_key="").models.list()


def test_unknown_model_is_404_when_models_are_strict() -> None:
    with Simulator(Scenario(accept_any_model=False, **FAST)) as s:
        with pytest.raises(openai.NotFoundError) as err:
            client(s).chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "hi"}])
        assert err.value.body["code"] == "model_not_found"


def answers(seed: int, prompts: list[str], **kw: object) -> list[str]:
    with Simulator(Scenario(seed=seed, **FAST)) as s:
        c = client(s)
        return [ask(c, p, **kw).choices[0].message.content or "" for p in prompts]


PROMPTS = [
    f"Task {i}: find the invoice for customer Miller{i} and report amount {100 + i * 7}." for i in range(30)
]


def test_deterministic_given_its_own_seed() -> None:
    assert answers(3, PROMPTS, temperature=1.0) == answers(3, PROMPTS, temperature=1.0)
    assert answers(3, PROMPTS, temperature=1.0) != answers(4, PROMPTS, temperature=1.0)


def test_temperature_widens_the_distribution() -> None:
    prompt = PROMPTS[1]
    rule = AnswerRule(
        match="Miller1 ",
        choices=[Choice(text="A", weight=6), Choice(text="B", weight=3), Choice(text="C", weight=1)],
        flake=0,
    )
    with Simulator(Scenario(answers=[rule], backends=Scenario().backends[:1], **FAST)) as s:
        c = client(s)
        cold = {ask(c, prompt, temperature=0).choices[0].message.content for _ in range(20)}
        hot = {ask(c, prompt, temperature=1.5).choices[0].message.content for _ in range(40)}
    assert len(cold) == 1
    assert len(hot) >= 2


def test_seed_makes_a_backend_reproducible() -> None:
    rule = AnswerRule(match="coin", choices=[Choice(text="heads"), Choice(text="tails")], flake=0)
    one = Scenario(answers=[rule], backends=Scenario().backends[:1], **FAST)
    with Simulator(one) as s:
        c = client(s)
        seeded = {
            ask(c, "flip a coin", temperature=1.0, seed=11).choices[0].message.content for _ in range(15)
        }
        unseeded = {ask(c, "flip a coin", temperature=1.0).choices[0].message.content for _ in range(30)}
    assert len(seeded) == 1
    assert len(unseeded) == 2


def test_backends_have_their_own_fingerprints_and_retries_may_switch() -> None:
    scenario = Scenario(faults=Faults(spill_rate=0.5), **FAST)
    with Simulator(scenario) as s:
        c = client(s)
        fps = {ask(c, f"{p} #{i}", temperature=0).system_fingerprint for i, p in enumerate(PROMPTS)}
    assert len(fps) >= 2


def test_per_key_rate_limit_answers_429_with_retry_after() -> None:
    scenario = Scenario(rate_limit=RateLimit(requests_per_s=2, burst=2), **FAST)
    with Simulator(scenario) as s:
        c = client(s, "limited-key")
        ask(c, "one")
        ask(c, "two")
        with pytest.raises(openai.RateLimitError) as err:
            ask(c, "three")
        retry_after = float(err.value.response.headers["retry-after"])
        assert 0 < retry_after <= 0.5
        ask(client(s, "other-key"), "a different key has its own bucket")
        time.sleep(retry_after + 0.05)
        ask(c, "four")


def test_scripted_server_errors_and_timeouts() -> None:
    script = [ScriptRule(match="boom", actions=["503"]), ScriptRule(match="slow", actions=["timeout"])]
    with Simulator(Scenario(script=script, faults=Faults(hang_s=5), **FAST)) as s:
        with pytest.raises(openai.InternalServerError):
            ask(client(s), "boom")
        t0 = time.perf_counter()
        with pytest.raises(openai.APITimeoutError):
            ask(client(s, timeout=0.2), "slow")
        assert time.perf_counter() - t0 < 2
        assert ask(client(s), "boom").choices[0].message.content  # the script ran out: normal service
        assert s.status_counts[503] == 1


def test_max_tokens_truncates_with_finish_reason_length() -> None:
    rule = AnswerRule(
        match="essay", choices=[Choice(text="one two three four five six seven eight nine ten")]
    )
    with Simulator(Scenario(answers=[rule], **FAST)) as s:
        r = ask(client(s), "write an essay", max_tokens=3)
    assert r.choices[0].finish_reason == "length"
    assert r.usage.completion_tokens <= 3


def test_scenario_file_is_validated(tmp_path) -> None:
    good = tmp_path / "s.json"
    good.write_text(json.dumps({"seed": 5, "faults": {"rate_limit_rate": 0.1}}))
    assert load_scenario(good).faults.rate_limit_rate == 0.1
    with pytest.raises(RerunLensError, match="surprise|backends"):
        load_scenario("tests/fixtures/scenarios/bad_field.json")


def test_binds_loopback_only(sim: Simulator) -> None:
    assert sim.base_url.startswith("http://127.0.0.1:")


def test_simulate_command_serves_until_stopped() -> None:
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "analyzer.cli", "simulate", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "Simulator listening on http://127.0.0.1:" in line and "any non-empty key" in line
        base_url = line.split(" on ", 1)[1].split(" ", 1)[0]
        c = openai.OpenAI(api_key="k", base_url=base_url, max_retries=0)
        assert ask(c, "Reply with OK.").choices[0].message.content == "OK"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_simulate_refuses_a_port_out_of_range_in_one_line(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from analyzer.cli import main

    assert main(["simulate", "--port", port]) == 2
    assert "a port is 0 to 65535" in capsys.readouterr().err
