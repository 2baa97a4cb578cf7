"""Reviewer's defects in the runner: key hygiene, resume route, bad executor results, damaged journals,
all-errored runs, failures after the requests. Each test failed before its fix."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from plan_kit import run_tasks

from analyzer.cli import main
from analyzer.errors import RerunLensError, RouteError
from analyzer.log.loader import load_path
from analyzer.log.model import TaskSpec
from analyzer.log.taskfile import load_tasks
from analyzer.routes.profile import RouteProfile
from analyzer.runner import journal_path
from analyzer.runner.journal import read_journal
from analyzer.safety.scrub import scrub

TASKS = Path("tests/fixtures/tasks/three_tasks.json")
LEAK = "myorgkey_LEAKCHECK0123456789abcdef"
"""A key that does not look like `sk-...`, so only the known-secret scrubbing can catch it."""


@pytest.fixture
def tasks() -> list[TaskSpec]:
    return load_tasks(TASKS)


def _no_leak(text: str) -> None:
    assert "leakcheck" not in text.lower(), text


def _files_clean(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            _no_leak(path.read_text(errors="replace"))


# 1. key leak ---------------------------------------------------------------------------------------


def test_scrub_removes_escaped_and_differently_cased_forms_of_a_key() -> None:
    key = LEAK + "\n"
    for text in (
        f"Illegal header value b'Bearer {LEAK}\\n'",
        f"value {key!r}",
        json.dumps({"auth": key}),
        f"key {LEAK.upper()} refused",
        f"url ?k={LEAK}%0A",
    ):
        _no_leak(scrub(text, [key]))


@pytest.mark.parametrize("base", [None, "http://127.0.0.1:9/v1"])
@pytest.mark.parametrize("key", [LEAK + "\n", " " + LEAK, LEAK[:10] + "\t" + LEAK[10:], LEAK + "\x1b"])
def test_check_diagnoses_a_dirty_key_without_sending_or_echoing_it(
    base: str | None, key: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    code = main(["check", *(["--base-url", base] if base else [])])
    out = capsys.readouterr()
    assert code == 1
    assert "the key in OPENAI_API_KEY contains white space or control characters; strip it" in out.out
    _no_leak(out.out + out.err)
    code = main(["check", "--json", *(["--base-url", base] if base else [])])
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["kind"] == "bad_key" and data["attempts"] == []
    _no_leak(out.out + out.err)


@pytest.mark.parametrize("base", [None, "http://127.0.0.1:9/v1"])
def test_run_and_rerun_refuse_a_dirty_key_in_one_line_before_any_request(
    base: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", LEAK + "\n")
    flags = ["--base-url", base] if base else []
    out = tmp_path / "r.json"
    assert main(["run", "--tasks", str(TASKS), "--out", str(out), "--repeat", "1", *flags]) == 2
    err = capsys.readouterr().err
    assert "rerunlens: error: the key in OPENAI_API_KEY contains white space" in err
    assert not journal_path(out).exists() and not out.exists()
    sample = "sample_runs/C_pinned.altk_runs.json"
    code = main(["rerun", sample, "--only", "shop-001", "--out", str(tmp_path / "n.json"), *flags])
    assert code == 2
    captured = capsys.readouterr()
    assert "white space or control characters" in captured.err
    _no_leak(captured.out + captured.err)
    _files_clean(tmp_path)


def test_a_dirty_session_key_is_refused_by_the_library(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    with pytest.raises(RouteError, match="white space or control characters") as info:
        run_tasks(tasks, RouteProfile(), tmp_path / "s.json", rounds=1, api_key=LEAK + "\r\n")
    _no_leak(str(info.value))


# 2. resume keeps the journal's route ---------------------------------------------------------------


def _interrupted(tmp_path: Path, flags: list[str]) -> Path:
    """A CLI run stopped after two results (the journal stays, as after Ctrl-C)."""
    out = tmp_path / "r.altk_runs.json"
    cancel = threading.Event()
    import analyzer.cli.run_commands as commands

    real = commands.run_plan

    def stopping(plan, controls):  # type: ignore[no-untyped-def]
        controls.cancel = cancel
        controls.progress = lambda p: cancel.set() if p.done >= 2 else None
        return real(plan, controls)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(commands, "run_plan", stopping)
        code = main(["run", "--tasks", str(TASKS), "--out", str(out), "--repeat", "2", "--quiet", *flags])
    assert code == 130 and journal_path(out).exists()
    return out


def test_resume_with_different_route_flags_is_refused_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _interrupted(tmp_path, ["--temperature", "0.3"])
    capsys.readouterr()
    code = main(["run", "--out", str(out), "--resume", "--temperature", "1.5", "--model", "gpt-4o"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--temperature 0.3 (given 1.5)" in err and "--model 'gpt-4o-mini' (given 'gpt-4o')" in err
    assert len(err.strip().splitlines()) == 1
    assert journal_path(out).exists() and not out.exists()
    # the same flags, or none at all, resume on the journal's route
    assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 0
    log = load_path(out).log
    assert log.route is not None and log.route.temperature == 0.3
    assert {r.route.temperature for rnd in log.runs for r in rnd if r.route} == {0.3}


def test_resume_without_the_base_url_does_not_switch_to_the_simulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from analyzer.simulator import Scenario, Simulator

    monkeypatch.setenv("OPENAI_API_KEY", "local-test-key-7a1b")
    with Simulator(Scenario(latency_ms=(0.0, 1.0))) as sim:
        out = _interrupted(tmp_path, ["--base-url", sim.base_url])
        monkeypatch.setenv("ALTK_TEMPERATURE", "1.9")  # ambient settings do not change a resumed run
        capsys.readouterr()
        assert (
            main(["run", "--out", str(out), "--resume", "--quiet"]) == 2
        )  # the journal never picks the host
        refused = capsys.readouterr().err.strip()
        assert len(refused.splitlines()) == 1 and "--base-url" in refused
        assert main(["run", "--out", str(out), "--resume", "--quiet", "--base-url", sim.base_url]) == 0
    err = capsys.readouterr().err
    assert "built-in simulator" not in err
    log = load_path(out).log
    assert log.route is not None and log.route.base_url == sim.base_url and not log.route.simulator
    assert log.route.temperature == 0.0
    assert {r.route.base_url for rnd in log.runs for r in rnd if r.route} == {sim.base_url}


def test_library_resume_refuses_a_different_profile(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    out = tmp_path / "lib.json"
    cancel = threading.Event()
    profile = RouteProfile(model="m-one")
    run_tasks(tasks, profile, out, rounds=2, cancel=cancel, progress=lambda p: cancel.set())
    with pytest.raises(RouteError, match="--model 'm-one' \\(given 'gpt-4o-mini'\\)"):
        run_tasks(None, RouteProfile(), out, resume=True)
    done = run_tasks(None, None, out, resume=True)
    assert done.log is not None and done.log.route is not None and done.log.route.model == "m-one"


# 5. nothing after the requests loses the run ---------------------------------------------------------


def test_a_failure_writing_the_log_keeps_the_journal_and_is_one_line(
    tmp_path: Path, tasks: list[TaskSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    import analyzer.runner.run as run_mod

    out = tmp_path / "w.json"

    def broken(*_a: object, **_k: object) -> None:
        raise OverflowError("Python int too large to convert to C long")

    monkeypatch.setattr(run_mod, "save_log", broken)
    with pytest.raises(RerunLensError) as info:
        run_tasks(tasks, RouteProfile(), out, rounds=1)
    text = str(info.value)
    assert "\n" not in text and "OverflowError" in text
    assert "3 finished results are kept" in text and "--resume" in text
    assert len(read_journal(journal_path(out)).results) == 3
    monkeypatch.undo()
    again = run_tasks(None, None, out, resume=True)
    assert again.path == out and sum(len(r) for r in load_path(out).log.runs) == 3


# 11. an executor returning nonsense is an error result ---------------------------------------------


def negative_tokens(task: TaskSpec, client: object, route: object) -> dict[str, object]:
    return {"answer": "x", "total_tokens": -5}


def test_an_invalid_executor_result_is_recorded_as_an_error_and_the_run_goes_on(
    tmp_path: Path, tasks: list[TaskSpec]
) -> None:
    out = tmp_path / "bad.json"
    outcome = run_tasks(tasks, RouteProfile(), out, rounds=2, executor=negative_tokens)
    assert outcome.path == out
    results = [r for rnd in load_path(out).log.runs for r in rnd]
    assert len(results) == 6
    for r in results:
        assert r.status == "error" and r.error is not None
        assert r.error.type == "InvalidExecutorResult"
        assert "total_tokens" in r.error.message and "\n" not in r.error.message
        assert r.total_tokens is None


def test_resume_after_an_invalid_executor_result_does_not_crash(
    tmp_path: Path, tasks: list[TaskSpec]
) -> None:
    out = tmp_path / "bad2.json"
    cancel = threading.Event()
    run_tasks(
        tasks,
        RouteProfile(),
        out,
        rounds=2,
        executor=negative_tokens,
        cancel=cancel,
        progress=lambda p: cancel.set() if p.done >= 2 else None,
    )
    assert journal_path(out).exists()
    done = run_tasks(None, None, out, resume=True, executor=negative_tokens)
    assert done.path == out and done.progress.errors == 6


# 12. a run where every result errored says so and fails ---------------------------------------------


def test_a_run_where_every_result_errored_says_so_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "dead.json"
    flags = ["--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0", "--quiet"]
    code = main(["run", "--tasks", str(TASKS), "--out", str(out), "--repeat", "1", *flags])
    err = capsys.readouterr().err
    assert code == 1 and out.exists()
    assert "3 of 3 results errored (most common, 3x: APIConnectionError" in err


def test_some_errors_are_reported_but_the_exit_is_0(
    tmp_path: Path, tasks: list[TaskSpec], capsys: pytest.CaptureFixture[str]
) -> None:
    said: list[str] = []

    def one_fails(task: TaskSpec, client: object, route: object) -> str:
        if task.task_id == tasks[0].task_id:
            raise RuntimeError("no such button")
        return "done"

    run_tasks(tasks, RouteProfile(), tmp_path / "some.json", rounds=1, executor=one_fails, echo=said.append)
    assert "1 of 3 results errored (most common, 1x: RuntimeError - no such button)" in said[-1]


# 17. damaged journals ------------------------------------------------------------------------------


def _journal(tmp_path: Path, tasks: list[TaskSpec]) -> Path:
    out = tmp_path / "j.json"
    cancel = threading.Event()
    run_tasks(tasks, RouteProfile(), out, rounds=2, cancel=cancel, progress=lambda p: cancel.set())
    return out


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"type": "result", "result": {}}', "result task_id"),
        ("[1]", "a JSON list, not an object"),
        ('{"type": "result"}', "a result line without its result"),
        ("not json", "not JSON"),
    ],
)
def test_a_damaged_result_line_is_one_error_naming_the_line(
    line: str, why: str, tmp_path: Path, tasks: list[TaskSpec], capsys: pytest.CaptureFixture[str]
) -> None:
    out = _journal(tmp_path, tasks)
    jp = journal_path(out)
    n = len(jp.read_text().splitlines())
    with open(jp, "a") as fh:
        fh.write(line + "\n")
    with pytest.raises(RerunLensError, match=f"journal .* is damaged at line {n + 1}: {why}"):
        run_tasks(None, None, out, resume=True)
    assert main(["run", "--out", str(out), "--resume"]) == 2
    assert f"is damaged at line {n + 1}" in capsys.readouterr().err


@pytest.mark.parametrize("drop", ["rounds", "run_id", "tasks", "created_at"])
def test_a_header_missing_a_field_is_one_error(drop: str, tmp_path: Path, tasks: list[TaskSpec]) -> None:
    out = _journal(tmp_path, tasks)
    jp = journal_path(out)
    lines = jp.read_text().splitlines()
    header = json.loads(lines[0])
    del header[drop]
    jp.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(RerunLensError, match=f"damaged at line 1: the header has no '{drop}'"):
        run_tasks(None, None, out, resume=True)


def test_a_truncated_last_line_is_skipped_and_redone(tmp_path: Path, tasks: list[TaskSpec]) -> None:
    out = _journal(tmp_path, tasks)
    jp = journal_path(out)
    with open(jp, "a") as fh:
        fh.write('[1, {"type": "res')  # a crash mid-append: no line break
    assert run_tasks(None, RouteProfile(), out, resume=True).path == out
    assert sum(len(r) for r in load_path(out).log.runs) == 6


def test_resume_with_another_key_is_refused_by_fingerprint(
    tmp_path: Path, tasks: list[TaskSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    from analyzer.safety.keys import key_fingerprint

    monkeypatch.setenv("OPENAI_API_KEY", "first-key-0123456789")
    out = _journal(tmp_path, tasks)
    monkeypatch.setenv("OPENAI_API_KEY", "second-key-0123456789")
    with pytest.raises(RouteError, match="resume with the same key") as info:
        run_tasks(None, None, out, resume=True)
    text = str(info.value)
    assert key_fingerprint("first-key-0123456789") in text and "second-key" not in text
    monkeypatch.setenv("OPENAI_API_KEY", "first-key-0123456789")
    assert run_tasks(None, None, out, resume=True).path == out


def test_a_failure_recording_a_result_keeps_it_as_an_error_result(
    tmp_path: Path, tasks: list[TaskSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    import analyzer.runner.results as results_mod

    def broken(*_a: object, **_k: object) -> None:
        raise OverflowError("timestamp out of range for platform time_t")

    monkeypatch.setattr(results_mod, "_common", broken)
    outcome = run_tasks(tasks, RouteProfile(), tmp_path / "rec.json", rounds=1)
    results = [r for rnd in load_path(tmp_path / "rec.json").log.runs for r in rnd]
    assert outcome.progress.errors == 3 and len(results) == 3
    assert {r.error.type for r in results if r.error} == {"RecordError"}
    assert all(r.attempts for r in results)  # the attempts made are kept
