"""The runner against the simulator with the real SDK: attempts, errors, journal, resume, cancel, keys."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import openai._base_client
import pytest
from fake_keys import FAKE_KEY
from plan_kit import run_tasks

from analyzer.errors import RerunLensError
from analyzer.log.loader import load_path
from analyzer.log.model import TaskSpec
from analyzer.log.taskfile import load_tasks
from analyzer.routes.profile import RouteProfile
from analyzer.runner import Progress, journal_path
from analyzer.runner.journal import read_journal
from analyzer.safety.keys import key_fingerprint
from analyzer.simulator import Faults, Scenario, ScriptRule, Simulator

TASKS = Path("tests/fixtures/tasks/three_tasks.json")
FAST = {"latency_ms": (0.0, 1.0)}


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """SDK backoff without a Retry-After (timeouts) shrinks to milliseconds."""
    monkeypatch.setattr(openai._base_client, "INITIAL_RETRY_DELAY", 0.01)
    monkeypatch.setattr(openai._base_client, "MAX_RETRY_DELAY", 0.02)


@pytest.fixture
def tasks() -> list[TaskSpec]:
    return load_tasks(TASKS)


@pytest.fixture
def sim_factory() -> Iterator:
    started: list[Simulator] = []

    def make(**kw: object) -> Simulator:
        sim = Simulator(Scenario(**{**FAST, **kw})).start()
        started.append(sim)
        return sim

    yield make
    for sim in started:
        sim.stop()


def test_embedded_run_writes_a_format2_log(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    notices: list[str] = []
    seen: list[Progress] = []
    out = tmp_path / "run.altk_runs.json"
    outcome = run_tasks(
        tasks, RouteProfile(concurrency=2), out, rounds=2, echo=notices.append, progress=seen.append
    )
    assert outcome.path == out and not outcome.cancelled
    assert any("built-in simulator" in n for n in notices)
    log = load_path(out).log
    assert log.version == 2 and log.run_id == outcome.run_id
    assert log.route is not None and log.route.simulator is True
    assert log.route.key_fingerprint and log.route.key_fingerprint.startswith("sha256:")
    assert [len(r) for r in log.runs] == [3, 3]
    assert log.summary is not None and log.summary.repeat == 2 and log.summary.task_count == 3
    first = log.runs[0][0]
    assert first.round == 1 and first.status == "ok" and first.attempts and first.attempts[0].outcome == "ok"
    assert first.served_model and first.system_fingerprint and first.finish_reason == "stop"
    assert first.expected == "5521" and first.success is not None
    assert first.route and first.route.max_tokens == 256
    assert log.runs[0][2].route and log.runs[0][2].route.max_tokens == 16  # the task's own cap wins
    assert seen[-1].done == seen[-1].total == 6
    assert not journal_path(out).exists()


def test_429_then_success_is_two_attempts_and_retry_after_is_honoured(
    tmp_path: Path, tasks: list[TaskSpec], sim_factory
) -> None:
    sim = sim_factory(script=[ScriptRule(match="order 5521", actions=["429"], retry_after_s=0.3)])
    out = tmp_path / "r.json"
    run_tasks(tasks[:1], RouteProfile(base_url=sim.base_url, max_retries=1), out, rounds=1, api_key="k")
    result = load_path(out).log.runs[0][0]
    assert result.status == "ok"
    assert [a.outcome for a in result.attempts or []] == ["rate_limited", "ok"]
    first, second = result.attempts or []
    assert first.status_code == 429 and first.retry_after_s == pytest.approx(0.3)
    assert first.ended_at and second.started_at
    assert (second.started_at - first.ended_at).total_seconds() >= 0.29
    assert [a.retry for a in (first, second)] == [0, 1] and result.retries == 1  # the SDK's own numbering


def test_a_timeout_is_an_attempt(tmp_path: Path, tasks: list[TaskSpec], sim_factory) -> None:
    sim = sim_factory(script=[ScriptRule(match="order 5521", actions=["timeout"])], faults=Faults(hang_s=3))
    out = tmp_path / "t.json"
    profile = RouteProfile(base_url=sim.base_url, max_retries=1, timeout_s=0.3)
    run_tasks(tasks[:1], profile, out, rounds=1, api_key="k")
    attempts = load_path(out).log.runs[0][0].attempts or []
    assert [a.outcome for a in attempts] == ["timeout", "ok"]
    assert attempts[0].status_code is None


def test_a_failing_task_becomes_an_error_result_and_the_run_goes_on(
    tmp_path: Path, tasks: list[TaskSpec], sim_factory
) -> None:
    sim = sim_factory(script=[ScriptRule(match="dentist", actions=["400", "500", "500"])])
    out = tmp_path / "e.json"
    run_tasks(tasks, RouteProfile(base_url=sim.base_url, max_retries=1), out, rounds=2, api_key="k")
    log = load_path(out).log
    bad = [r for rnd in log.runs for r in rnd if r.task_id == "cal-1"]
    assert bad[0].status == "error" and bad[0].error and bad[0].error.http_status == 400
    assert bad[0].error.type == "BadRequestError"
    assert bad[1].status == "error" and [a.status_code for a in bad[1].attempts or []] == [500, 500]
    assert all(r.status == "ok" for rnd in log.runs for r in rnd if r.task_id != "cal-1")


def test_connection_refused_is_recorded(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    out = tmp_path / "c.json"
    run_tasks(
        tasks[:1],
        RouteProfile(base_url=f"http://127.0.0.1:{port}/v1", max_retries=0),
        out,
        rounds=1,
        api_key="k",
    )
    result = load_path(out).log.runs[0][0]
    assert result.status == "error" and result.error and result.error.http_status is None
    assert [a.outcome for a in result.attempts or []] == ["connection_error"]


def test_cancel_leaves_a_journal_and_no_log_then_resume_finishes(
    tmp_path: Path, tasks: list[TaskSpec]
) -> None:
    out = tmp_path / "c.altk_runs.json"
    cancel = threading.Event()

    def stop_after_four(p: Progress) -> None:
        if p.done >= 4:
            cancel.set()

    first = run_tasks(tasks, RouteProfile(), out, rounds=4, progress=stop_after_four, cancel=cancel)
    assert first.cancelled and first.path is None and not out.exists()
    assert first.resume_hint and "--resume" in first.resume_hint
    saved = read_journal(journal_path(out)).results
    assert 4 <= len(saved) < 12
    second = run_tasks(None, RouteProfile(), out, resume=True)
    assert second.path == out and second.run_id == first.run_id
    log = load_path(out).log
    keys = [(str(r.task_id), r.round) for rnd in log.runs for r in rnd]
    assert sorted(keys) == sorted({(str(t.task_id), n) for t in tasks for n in range(1, 5)})
    for key, result in saved.items():  # journaled results are kept, not redone
        again = next(r for rnd in log.runs for r in rnd if (str(r.task_id), r.round) == key)
        assert again.started_at == result.started_at


def test_journal_in_the_way_and_nothing_to_resume(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    out = tmp_path / "x.json"
    with pytest.raises(RerunLensError, match="no journal"):
        run_tasks(tasks, RouteProfile(), out, resume=True)
    journal_path(out).write_text('{"type": "header"}\n')
    with pytest.raises(RerunLensError, match="--resume"):
        run_tasks(tasks, RouteProfile(), out)


def test_torn_journal_tail_is_dropped(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    out = tmp_path / "torn.json"
    cancel = threading.Event()
    run_tasks(
        tasks,
        RouteProfile(),
        out,
        rounds=2,
        cancel=cancel,
        progress=lambda p: cancel.set() if p.done >= 2 else None,
    )
    jp = journal_path(out)
    with open(jp, "a") as fh:
        fh.write('{"type": "result", "result": {"task_id": "shop-1", "ro')
    run_tasks(None, RouteProfile(), out, resume=True)
    log = load_path(out).log
    assert sum(len(r) for r in log.runs) == 6


def test_key_rotation_alternates_fingerprints(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    out = tmp_path / "rot.json"
    run_tasks(tasks, RouteProfile(concurrency=3), out, rounds=2, api_keys=["key-one-aaaa", "key-two-bbbb"])
    log = load_path(out).log
    fps = {a.key_fingerprint for rnd in log.runs for r in rnd for a in r.attempts or []}
    assert fps == {key_fingerprint("key-one-aaaa"), key_fingerprint("key-two-bbbb")}
    assert log.route and log.route.model_extra and len(log.route.model_extra["key_fingerprints"]) == 2


def test_example_executor_records_trajectory_and_summed_usage(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    out = tmp_path / "agent.json"
    run_tasks(tasks[:2], RouteProfile(), out, rounds=1, executor="examples/agent_executor.py:run_task")
    result = load_path(out).log.runs[0][0]
    assert result.status == "ok"
    assert [s.type for s in result.trajectory or []] == ["tool_call", "message"]
    assert len(result.attempts or []) == 2
    assert result.total_tokens == (result.prompt_tokens or 0) + (result.completion_tokens or 0)


def test_executor_callable_and_bad_spec(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    out = tmp_path / "fn.json"
    run_tasks(tasks[:1], RouteProfile(), out, rounds=2, executor=lambda task, client, route: "fixed")
    assert {r.answer for rnd in load_path(out).log.runs for r in rnd} == {"fixed"}
    with pytest.raises(RerunLensError, match="module:function"):
        run_tasks(tasks, RouteProfile(), tmp_path / "y.json", executor="nocolon")
    with pytest.raises(RerunLensError, match="cannot import"):
        run_tasks(tasks, RouteProfile(), tmp_path / "y.json", executor="no_such_module_xyz:f")


def test_the_key_never_appears_in_files_or_output(
    tmp_path: Path,
    tasks: list[TaskSpec],
    sim_factory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    sim = sim_factory(script=[ScriptRule(match="dentist", actions=["401", "429"])])
    out = tmp_path / "leak.json"
    cancel = threading.Event()
    from analyzer.cli import main

    run_tasks(tasks, RouteProfile(), tmp_path / "embedded.json", rounds=1, echo=print)
    run_tasks(
        tasks,
        RouteProfile(base_url=sim.base_url, max_retries=0),
        out,
        rounds=2,
        echo=print,
        cancel=cancel,
        progress=lambda p: cancel.set() if p.done >= 3 else None,
    )
    main(
        [
            "run",
            "--tasks",
            str(TASKS),
            "--out",
            str(out),
            "--resume",
            "--base-url",
            sim.base_url,
            "--max-retries",
            "0",
        ]
    )
    main(["check", "--base-url", sim.base_url])
    main(["check", "--base-url", sim.base_url.removesuffix("/v1")])
    in_url = f"{sim.base_url}?api-key={FAKE_KEY}"  # a key pasted into the URL is never written either
    main(
        [
            "run",
            "--tasks",
            str(TASKS),
            "--out",
            str(tmp_path / "url.json"),
            "--base-url",
            in_url,
            "--repeat",
            "1",
        ]
    )
    main(["check", "--base-url", in_url])
    captured = capsys.readouterr()
    assert FAKE_KEY not in captured.out + captured.err
    assert "DO-NOT-LEAK" not in captured.out + captured.err
    written = list(tmp_path.rglob("*"))
    assert written
    for path in written:
        if path.is_file():
            assert "DO-NOT-LEAK" not in path.read_text(errors="replace"), path
    assert key_fingerprint(FAKE_KEY) in json.dumps(load_path(out).log.model_dump(mode="json"))


@pytest.mark.parametrize("command", ["run", "rerun", "check", "simulate"])
def test_each_command_has_help_with_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from analyzer.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "example:" in text and f"rerunlens {command}" in text


def test_executor_may_return_a_dict_with_usage_and_may_raise(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    def agent(task: TaskSpec, client, route):  # noqa: ANN001 - the documented executor signature
        if task.task_id == "cal-1":
            raise RuntimeError("tool crashed")
        return {
            "answer": "done",
            "usage": {"prompt_tokens": 7, "completion_tokens": 3},
            "trajectory": [{"type": "tool_call", "name": "open_app", "arguments": {"app": "shop"}}],
        }

    out = tmp_path / "dict.json"
    run_tasks(tasks, RouteProfile(), out, rounds=1, executor=agent)
    ok, failed, _ = load_path(out).log.runs[0]
    assert (ok.answer, ok.total_tokens, ok.trajectory[0].name) == ("done", 10, "open_app")  # type: ignore[index]
    assert failed.status == "error" and failed.error and failed.error.type == "RuntimeError"
    assert failed.error.message == "tool crashed" and failed.attempts == []


def test_default_executor_sends_exactly_what_create_sends() -> None:
    import httpx2
    import openai

    from analyzer.runner.executors import SYSTEM_PROMPT, default_executor

    seen: list[tuple[str, object, dict[str, str]]] = []
    reply = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    }

    def handler(request: httpx2.Request) -> httpx2.Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() != "idempotency-key"}
        seen.append((str(request.url), json.loads(request.content), headers))
        return httpx2.Response(200, json=reply)

    client = openai.OpenAI(
        api_key="k",
        base_url="http://127.0.0.1:1/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    route = RouteProfile()
    assert default_executor(TaskSpec(task_id="a", prompt="p"), client, route).answer == "ok"
    client.chat.completions.create(
        model=route.model,
        messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "p"}],
        temperature=route.temperature,
        top_p=route.top_p,
        seed=route.seed,
        max_tokens=route.max_tokens,
    )
    assert seen[0] == seen[1]  # same URL, same JSON body (key order aside), same headers


def test_a_journal_has_one_writer_at_a_time(tmp_path: Path) -> None:
    from analyzer.runner.journal import JournalWriter

    path = tmp_path / "x.journal.jsonl"
    first = JournalWriter(path, {"run_id": "r"})
    with pytest.raises(RerunLensError, match="another process"):
        JournalWriter(path, None)
    first.close()
    JournalWriter(path, None).close()  # free again once the first writer is done
