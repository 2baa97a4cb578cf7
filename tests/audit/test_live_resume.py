"""An interrupted live audit continues: a real `rerunlens audit` process killed (SIGKILL, Ctrl-C) or
left without a route mid-way, then started again on the same folder, keeps every result it wrote and
sends only the rest; another audit on that folder is refused naming what differs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from analyzer.audit.live_folder import journal_begun
from analyzer.log.loader import load_path
from analyzer.runner.journal import read_journal
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion, Substitute

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = [f"Name a river in country number {i}, in one word." for i in range(4)]
SAMPLES = 12
TOTAL = 2 * SAMPLES * len(PROMPTS)
KEY = "sim-audit-resume-key"


def _sim(distortion: Distortion) -> Simulator:
    scenario = Scenario(latency_ms=(25.0, 35.0), billing="o200k_base", distortion=distortion)
    return Simulator(scenario).start()


@pytest.fixture()
def routes() -> Iterator[tuple[Simulator, Simulator]]:
    ref, cand = _sim(Distortion()), _sim(Distortion(substitute=Substitute(shift=3.0)))
    try:
        yield ref, cand
    finally:
        ref.stop()
        cand.stop()


@pytest.fixture()
def tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([{"task_id": f"p{i}", "prompt": p} for i, p in enumerate(PROMPTS)]))
    return path


def _words(tasks: Path, ref: str, cand: str, out: Path, samples: int = SAMPLES) -> list[str]:
    return [
        *(sys.executable, "-m", "analyzer.cli", "audit", "--tasks", str(tasks), "--samples", str(samples)),
        *("--reference", ref, "--candidate", cand, "--key-env", "AUDIT_KEY", "--model", "gpt-4o"),
        *("--out", str(out), "--no-history", "--json"),
    ]


def _env() -> dict[str, str]:
    return os.environ | {"PYTHONPATH": str(ROOT), "AUDIT_KEY": KEY, "PYTHONUNBUFFERED": "1"}


def _sent(*sims: Simulator) -> int:
    return sum(sum(s.status_counts.values()) for s in sims)


def _settled(*sims: Simulator) -> int:
    """The replies sent once a killed process's request in flight has been answered (to nobody)."""
    before = -1
    while (now := _sent(*sims)) != before:
        before = now
        time.sleep(0.3)
    return now


Stamps = dict[str, dict[tuple[str, int], object]]


def _journalled(out: Path) -> Stamps:
    """Results each route's journal holds: (task, round) -> when it was sent."""
    found: Stamps = {}
    for label in ("reference", "candidate"):
        journal = out / f"audit-{label}.altk_runs.journal.jsonl"
        results = read_journal(journal).results if journal_begun(journal) else {}
        found[label] = {k: r.started_at for k, r in results.items()}
    return found


def _ctrl_c_as_at_a_terminal() -> None:
    """A test run in the background inherits SIGINT ignored; the audit is meant for a terminal's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_and_stop(words: list[str], out: Path, signum: int) -> subprocess.CompletedProcess[str]:
    """Start the audit, wait until each route has written a few results, send `signum`."""
    proc = subprocess.Popen(
        words,
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_as_at_a_terminal,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if all(len(done) >= 3 for done in _journalled(out).values()):
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the audit ended before it could be interrupted"
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=30)
    return subprocess.CompletedProcess(words, proc.returncode, stdout, stderr)


def _finish(words: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(words, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)


def _assert_complete_and_kept(out: Path, before: Stamps) -> None:
    """Both logs hold every (prompt, sample) once, each result journalled before is in them as it was
    (sent at the same time: kept, not sent again), and no journal is left."""
    every = sorted((f"p{i}", n) for i in range(len(PROMPTS)) for n in range(1, SAMPLES + 1))
    for label in ("reference", "candidate"):
        log = load_path(out / f"audit-{label}.altk_runs.json").log
        started = {(str(r.task_id), r.round): r.started_at for rnd in log.runs for r in rnd}
        assert sorted(started) == every and len(log.results()) == len(every)
        assert before[label] and all(started[k] == when for k, when in before[label].items())
    assert not list(out.glob("*.journal.jsonl"))


def test_a_killed_audit_continues_without_sending_its_answered_prompts_again(
    tmp_path: Path, tasks: Path, routes: tuple[Simulator, Simulator]
) -> None:
    ref, cand = routes
    out = tmp_path / "audit"
    words = _words(tasks, ref.base_url, cand.base_url, out)
    killed = _start_and_stop(words, out, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    kept = _journalled(out)
    n_kept = sum(map(len, kept.values()))
    assert 6 <= n_kept < TOTAL
    sent_before = _settled(ref, cand)

    again = _finish(words)

    assert again.returncode == 0, again.stderr
    lines = again.stderr.splitlines()
    assert lines[0].startswith(f"Live audit: {TOTAL} requests")
    each = f"reference {len(kept['reference'])}, candidate {len(kept['candidate'])}"
    assert lines[1] == (
        f"Continuing the live audit in {out}: kept {n_kept} of {TOTAL} results already written ({each}); "
        f"{TOTAL - n_kept} requests left to send."
    )
    assert _sent(ref, cand) - sent_before == TOTAL - n_kept  # no answered prompt sent again
    _assert_complete_and_kept(out, kept)
    assert json.loads(again.stdout)["identity"]["verdict"] in ("differ", "no difference found")
    assert KEY not in "".join(p.read_text() for p in out.iterdir())

    done = _finish(words)  # a finished audit started again sends nothing and tests the same logs
    assert done.returncode == 0, done.stderr
    assert f"kept {TOTAL} of {TOTAL} results already written" in done.stderr
    assert "nothing left to send" in done.stderr
    assert _sent(ref, cand) - sent_before == TOTAL - n_kept


def test_ctrl_c_stops_both_routes_and_says_what_it_kept(
    tmp_path: Path, tasks: Path, routes: tuple[Simulator, Simulator]
) -> None:
    ref, cand = routes
    out = tmp_path / "audit"
    words = _words(tasks, ref.base_url, cand.base_url, out)
    stopped = _start_and_stop(words, out, signal.SIGINT)
    assert stopped.returncode == 130, stopped.stderr
    n_kept = sum(map(len, _journalled(out).values()))
    assert 6 <= n_kept < TOTAL  # stopped mid-way, not left sending to the end
    assert f"Interrupted: {n_kept} of {TOTAL} results are kept in {out}" in stopped.stderr
    kept = _journalled(out)
    again = _finish(words)
    assert again.returncode == 0, again.stderr
    assert f"kept {n_kept} of {TOTAL} results already written" in again.stderr
    _assert_complete_and_kept(out, kept)


@pytest.fixture()
def slow_reference() -> Iterator[Simulator]:
    """A reference whose requests outlast the candidate's retries, so it is still journalling when the
    candidate's loss stops the audit (a fast one may have finished by then)."""
    ref = Simulator(Scenario(latency_ms=(200.0, 220.0), billing="o200k_base")).start()
    try:
        yield ref
    finally:
        ref.stop()


def test_a_route_that_stops_answering_stops_the_audit_which_then_continues(
    tmp_path: Path, tasks: Path, routes: tuple[Simulator, Simulator], slow_reference: Simulator
) -> None:
    ref, cand = slow_reference, routes[1]
    out = tmp_path / "audit"
    words = _words(tasks, ref.base_url, cand.base_url, out)
    proc = subprocess.Popen(
        words, cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    while proc.poll() is None and len(_journalled(out)["candidate"]) < 3:
        time.sleep(0.02)
    port = cand.port
    cand.stop()  # the candidate's gateway goes away mid-audit
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2
    kept = _journalled(out)
    n_kept = sum(map(len, kept.values()))
    assert n_kept < TOTAL
    assert stderr.splitlines()[-1] == (
        "rerunlens: error: audit: the candidate route could not be reached (APIConnectionError); "
        f"{n_kept} of {TOTAL} results are kept in {out}; start the same audit with that folder to continue "
        "without sending them again"
    )
    journal = read_journal(out / "audit-candidate.altk_runs.journal.jsonl")
    assert all(r.status == "ok" for r in journal.results.values())  # no unanswered request recorded

    back = Simulator(Scenario(latency_ms=(25.0, 35.0), billing="o200k_base"), port=port).start()
    try:
        again = _finish(words)
    finally:
        back.stop()
    assert again.returncode == 0, again.stderr
    assert f"kept {n_kept} of {TOTAL}" in again.stderr
    _assert_complete_and_kept(out, kept)


def test_another_audit_in_the_same_folder_is_refused_naming_the_difference(
    tmp_path: Path, tasks: Path, routes: tuple[Simulator, Simulator]
) -> None:
    ref, cand = routes
    out = tmp_path / "audit"
    killed = _start_and_stop(_words(tasks, ref.base_url, cand.base_url, out), out, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    sent = _settled(ref, cand)
    other_tasks = tmp_path / "other.json"
    other_tasks.write_text(json.dumps([{"task_id": "p0", "prompt": "Something else entirely."}]))
    cases = {
        "samples": (
            _words(tasks, ref.base_url, cand.base_url, out, samples=8),
            "12 samples per prompt, not 8",
        ),
        "tasks": (
            _words(other_tasks, ref.base_url, cand.base_url, out),
            "4 prompts, not 1 (another task file)",
        ),
        "route": (
            _words(tasks, ref.base_url, ref.base_url, out),
            f"candidate route {cand.base_url} with key variable AUDIT_KEY, not {ref.base_url} with key "
            "variable AUDIT_KEY",
        ),
    }
    for what, (words, difference) in cases.items():
        refused = _finish(words)
        assert refused.returncode == 2, what
        [line] = refused.stderr.splitlines()
        assert line == (
            f"rerunlens: error: audit: {out} holds a live audit of {difference}; give the same tasks, "
            "samples and routes to continue it, or choose another --out"
        ), what
    assert _sent(ref, cand) == sent


def test_a_journal_killed_while_its_first_line_was_written_starts_that_route_again(
    tmp_path: Path, tasks: Path, routes: tuple[Simulator, Simulator]
) -> None:
    ref, cand = routes
    out = tmp_path / "audit"
    words = _words(tasks, ref.base_url, cand.base_url, out)
    assert _start_and_stop(words, out, signal.SIGKILL).returncode == -signal.SIGKILL
    torn = out / "audit-candidate.altk_runs.journal.jsonl"
    torn.write_bytes(torn.read_bytes()[:40])  # as if killed while writing its header
    kept = _journalled(out)
    assert kept["candidate"] == {} and kept["reference"]
    sent = _settled(ref, cand)
    again = _finish(words)
    assert again.returncode == 0, again.stderr
    assert f"kept {len(kept['reference'])} of {TOTAL} results already written" in again.stderr
    assert _sent(ref, cand) - sent == TOTAL - len(kept["reference"])


def test_another_key_in_the_same_variable_is_refused_saying_what_the_audit_user_can_do(
    tmp_path: Path, tasks: Path, routes: tuple[Simulator, Simulator]
) -> None:
    ref, cand = routes
    out = tmp_path / "audit"
    words = _words(tasks, ref.base_url, cand.base_url, out)
    assert _start_and_stop(words, out, signal.SIGKILL).returncode == -signal.SIGKILL
    sent = _settled(ref, cand)
    other = "sim-audit-another-key"
    refused = subprocess.run(
        words, cwd=ROOT, env=_env() | {"AUDIT_KEY": other}, capture_output=True, text=True, timeout=120
    )
    assert refused.returncode == 2
    line = refused.stderr.splitlines()[-1]
    assert line.startswith(f"rerunlens: error: audit: the reference route's results in {out} were sent ")
    assert line.endswith("; export AUDIT_KEY with that key again to continue, or choose another --out"), line
    assert "--resume" not in refused.stderr and other not in refused.stderr and KEY not in refused.stderr
    assert _sent(ref, cand) == sent
    again = _finish(words)  # the same key again: it continues
    assert again.returncode == 0, again.stderr
