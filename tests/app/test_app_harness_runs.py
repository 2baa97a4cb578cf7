"""The dashboard's parts for wrapped harness runs: Watch follows a proxy journal (and the joined log
per sample), Re-run offers "through Inspect" with the exact commands, or prompt only, labelled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from app_kit import MAIN, ROOT, assert_clean, open_view, plain, shown_figures
from fake_keys import FAKE_KEY
from streamlit.testing.v1 import AppTest

from analyzer.proxy.harness_rerun import PROMPT_ONLY
from app import log_folders

CLIENT = """
import openai
client = openai.OpenAI(max_retries=3)
for prompt in ["first question", "second question busy", "first question"]:
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
"""


def test_watch_follows_a_wrapped_run_from_its_proxy_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(runs))
    (tmp_path / "client.py").write_text(CLIENT)
    rule = {"match": "busy", "actions": ["429"], "retry_after_s": 0.1}
    (tmp_path / "scenario.json").write_text(json.dumps({"script": [rule], "latency_ms": [1, 2]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_"))}
    done = subprocess.run(
        [sys.executable, "-m", "analyzer.cli", "wrap", "--scenario", "scenario.json"]
        + ["--out", "runs/w.altk_runs.json", "--", sys.executable, "client.py"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    at.switch_page("views/watch.py").run()
    at.text_input(key="watch.path").input(str(runs / "w.proxy.jsonl")).run()
    assert_clean(at)
    shown = shown_figures(at)
    assert shown == {"Requests": "4", "Calls": "3", "429s": "1", "Retries": "1", "Tokens": shown["Tokens"]}
    samples, requests = at.dataframe[0].value, at.dataframe[1].value  # per sample, then per request
    assert len(samples) == 3 and samples["rate_limited"].sum() == 1
    assert sorted(requests["calls"]) == [1, 2]  # the first question twice, the busy one once
    assert int(shown["Tokens"].replace(",", "")) == samples["tokens"].sum()


def _harness_log(runs: Path) -> str:
    results = [[{"task_id": t, "answer": a, "round": r} for t, a in (("sum", str(40 + r)), ("cap", "Paris"))]
               for r in (1, 2)]  # fmt: skip
    log = {
        "format": "altk-runs/2",
        "run_id": "wrapped-1",
        "tasks": [{"task_id": "sum", "prompt": "17+25?"}, {"task_id": "cap", "prompt": "Capital of France?"}],
        "wrapped": {"harness": "inspect-ai", "harness_log": "logs/gone.eval", "cwd": str(runs)},
        "runs": results,
    }
    (runs / "h.altk_runs.json").write_text(json.dumps(log))
    return "h.altk_runs.json"


def test_rerun_offers_the_harness_with_its_command_or_prompt_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(runs))
    at = open_view("views/rerun.py", _harness_log(runs), "Re-run")
    radio = at.radio(key="rerun.through")
    assert radio.options == ["through Inspect (the agent itself)", PROMPT_ONLY]
    commands = [c.value for c in at.code]
    assert any("rerunlens rerun" in c and "--through=harness" in c and "--only=sum" in c for c in commands)
    assert any("the inspect-ai log this run came from is not there" in plain(w.value) for w in at.warning)
    assert not [b for b in at.button if b.key == "rerun.start"]  # no prompt re-run button meanwhile
    radio.set_value(PROMPT_ONLY).run()
    assert_clean(at)
    assert any(PROMPT_ONLY in plain(c.value) for c in at.caption)
    assert [b for b in at.button if b.key == "rerun.start"]
