"""`rerunlens wrap` around real commands: the child never holds the key, the journal alone is a log
of attempts when there is no harness log, and Inspect's own log is joined result by result."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from fake_keys import FAKE_KEY

from analyzer.importers import load_any

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).resolve().parent / "harness"

CLIENT = """
import json, os, sys
import openai
with open("child_env.json", "w") as f:
    json.dump(dict(os.environ), f)
print("child sees", os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"])
client = openai.OpenAI(max_retries=3)
for prompt in ["first question", "second question busy", "first question"]:
    messages = [{"role": "user", "content": prompt}]
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages)
    print(prompt, "->", reply.choices[0].message.content)
"""


def _scenario(tmp_path: Path, match: str) -> Path:
    rule = {"match": match, "actions": ["429"], "retry_after_s": 0.1}
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"script": [rule], "latency_ms": [1, 3]}))
    return path


def _wrap(tmp_path: Path, args: list[str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_", "INSPECT_"))}
    env |= {"PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY, "MY_COPY_OF_THE_KEY": FAKE_KEY}
    return subprocess.run(
        [sys.executable, "-m", "analyzer.cli", "wrap", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _no_key_anywhere(tmp_path: Path, done: subprocess.CompletedProcess[str]) -> None:
    assert FAKE_KEY not in done.stdout and FAKE_KEY not in done.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written
    for path in written:
        assert FAKE_KEY.encode() not in path.read_bytes(), path


def test_the_journal_alone_is_a_log_of_attempts_and_the_child_never_holds_the_key(tmp_path: Path) -> None:
    (tmp_path / "client.py").write_text(CLIENT)
    scenario = _scenario(tmp_path, "busy")
    done = _wrap(
        tmp_path,
        ["--scenario", str(scenario), "--out", "out.altk_runs.json", "--", sys.executable, "client.py"],
    )
    assert done.returncode == 0, done.stderr
    child_env = json.loads((tmp_path / "child_env.json").read_text())
    assert FAKE_KEY not in json.dumps(child_env)
    assert "MY_COPY_OF_THE_KEY" not in child_env  # any variable holding the key is withheld
    assert child_env["OPENAI_API_KEY"].startswith("rlproxy-")
    assert child_env["OPENAI_BASE_URL"].startswith("http://127.0.0.1:")
    _no_key_anywhere(tmp_path, done)
    assert "no harness log found" in done.stderr

    log = load_any(tmp_path / "out.altk_runs.json").log
    results = [r for rnd in log.runs for r in rnd]
    assert len(results) == 3  # three calls; the busy one's 429 is a retry of it, not a call of its own
    busy = [r for r in results if len(r.attempts or []) == 2]
    assert len(busy) == 1
    assert [a.status_code for a in busy[0].attempts] == [429, 200]
    assert busy[0].attempts[0].retry_after_s is not None
    first = [r for r in results if r.task_id == results[0].task_id]
    assert sorted(r.round for r in first) == [1, 2]  # the same question twice: one task, two rounds

    analyzed = subprocess.run(
        [sys.executable, "-m", "analyzer.cli", "analyze", "out.altk_runs.json", "--json"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert analyzed.returncode == 0, analyzed.stderr
    retries = json.loads(analyzed.stdout)["retries"]
    assert retries["attempts_total"] == 4 and retries["results_with_retry"] == 1
    assert retries["by_status"] == {"200": 3, "429": 1}


def test_a_missing_command_is_one_line(tmp_path: Path) -> None:
    done = _wrap(tmp_path, ["--out", "o.json", "--", "no-such-harness-xyz"])
    assert done.returncode == 2
    assert (
        done.stderr.strip().splitlines()[-1]
        == "rerunlens: error: wrap: no-such-harness-xyz: command not found"
    )
    assert not (tmp_path / "o.json").exists()


def test_inspect_through_wrap_every_result_joined_and_the_429_on_its_sample(tmp_path: Path) -> None:
    inspect = shutil.which("inspect", path=str(Path(sys.executable).parent))
    assert inspect, "inspect-ai is not installed: pip install -e '.[harness]'"
    shutil.copy(HARNESS / "inspect_task.py", tmp_path / "inspect_task.py")
    scenario = _scenario(tmp_path, "17 plus 25")
    (tmp_path / "run.sh").write_text('env > child_env.txt\nexec "$@"\n')
    command = [inspect, "eval", "inspect_task.py", "--model", "openai/gpt-4o-mini", "--epochs", "2"]
    command += ["--log-dir", "logs", "--display", "plain", "--max-connections", "6"]
    done = _wrap(
        tmp_path,
        ["--scenario", str(scenario), "--out", "joined.altk_runs.json", "--", "sh", "run.sh", *command],
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert FAKE_KEY not in (tmp_path / "child_env.txt").read_text()
    _no_key_anywhere(tmp_path, done)
    assert "unmatched calls: 0 of " in done.stderr and "unmatched results: 0" in done.stderr

    log = load_any(tmp_path / "joined.altk_runs.json").log
    results = [r for rnd in log.runs for r in rnd]
    assert len(results) == 6  # 3 samples x 2 epochs
    assert all(len(r.attempts or []) >= 2 for r in results)  # two turns each: two calls, joined
    limited = {(r.task_id, r.round) for r in results for a in r.attempts or [] if a.status_code == 429}
    assert limited and {task for task, _ in limited} == {"sum"}  # on the sample whose prompt got it
    assert log.model_extra and log.model_extra["wrapped"]["harness"] == "inspect-ai"
    assert all(r.route and r.route.key_fingerprint for r in results)


def test_promptfoo_through_wrap_every_result_joined_and_the_429_on_its_test(tmp_path: Path) -> None:
    """Slow (about 70 s): promptfoo 0.121 waits 60 s after a 429 whatever its Retry-After says."""
    promptfoo = ROOT / ".cache" / "promptfoo" / "node_modules" / ".bin" / "promptfoo"
    assert promptfoo.exists(), "promptfoo is not installed: bash scripts/test.sh installs it into .cache"
    shutil.copy(HARNESS / "promptfooconfig.yaml", tmp_path / "promptfooconfig.yaml")
    rule = {"match": "17 plus 25", "actions": ["429"], "retry_after_s": 1}  # promptfoo reads whole seconds
    (tmp_path / "scenario.json").write_text(json.dumps({"script": [rule], "latency_ms": [1, 3]}))
    command = [str(promptfoo), "eval", "-c", "promptfooconfig.yaml", "-o", "results.json"]
    command += ["--repeat", "2", "--no-cache", "-j", "2"]
    extra = {
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / ".promptfoo"),  # not the user's home
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
    }
    os.environ.update(extra)
    try:
        done = _wrap(tmp_path, ["--scenario", "scenario.json", "--out", "pf.altk_runs.json", "--", *command])
    finally:
        for name in extra:
            os.environ.pop(name, None)
    assert done.returncode in (0, 100), done.stdout + done.stderr  # 100: promptfoo's "some tests failed"
    _no_key_anywhere(tmp_path, done)
    assert "unmatched calls: 0 of 6" in done.stderr and "unmatched results: 0" in done.stderr

    log = load_any(tmp_path / "pf.altk_runs.json").log
    results = [r for rnd in log.runs for r in rnd]
    assert len(results) == 6 and all(r.attempts for r in results)
    limited = {r.task_id for r in results for a in r.attempts or [] if a.status_code == 429}
    assert limited == {"sum"}
