"""A whole session as a new user lives it, with no runs folder named: upload a log and see it, copy it,
re-run its inconsistent tasks, re-run the format-1 sample with its shipped task file, start a new run.
Everything lands in `./runs` under the working directory; `sample_runs/` is never written.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import app_kit
import pytest
from app_kit import MAIN, SAMPLES, assert_clean, plain, shown_figures, wait_for
from streamlit.testing.v1 import AppTest

from analyzer.log.loader import list_logs, load_path
from app import data, log_folders

ROOT = SAMPLES.parent
FORMAT1 = "sample_runs/format1_plain_script.json"


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under a folder (hidden ones included) with a hash of its content."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def finished(at: AppTest) -> bool:
    assert not at.error, [e.value for e in at.error]  # a failed job shows one line: fail at once
    return "Route (beyond chance)" in shown_figures(at)


@pytest.fixture()
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh working directory and no runs folder named: the dashboard's default applies."""
    monkeypatch.delenv(log_folders.RUNS_DIR_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    # started elsewhere, streamlit misses the project's .streamlit/config.toml and reports every
    # interface, so runs would be refused (`rerunlens dashboard` passes loopback as a flag instead);
    # AppTest listens nowhere, so allowing them here is safe
    monkeypatch.setenv("RERUNLENS_ALLOW_REMOTE_RUNS", "1")
    return tmp_path


def test_a_full_session_writes_into_runs_and_never_into_sample_runs(cwd: Path) -> None:
    before = snapshot(SAMPLES)
    runs = cwd / "runs"
    at = AppTest.from_file(str(MAIN), default_timeout=60).run()
    assert_clean(at)
    assert not runs.exists()  # created on the first write, not on a visit
    assert all(name.startswith("sample_runs/") for name in app_kit.logs_box(at).value)
    assert any(f"Your runs: `{runs}` (created on the first save)" in c.value for c in at.sidebar.caption)

    # an upload opens at once, marked, and Re-run offers to keep a copy in ./runs
    upload = (SAMPLES / "B_one_key.altk_runs.json").read_bytes()
    at.file_uploader(key=data.UPLOADS).upload("mine.json", upload, "application/json").run()
    label = load_path(SAMPLES / "B_one_key.altk_runs.json").log.label
    assert app_kit.focus_box(at).value == f"{label} (uploaded)"  # beside the sample it copies
    assert "uploaded file mine.json" in plain(at.caption[0].value)
    at.switch_page("views/rerun.py").run()
    at.button(key="rerun.copy_upload").click().run()
    assert_clean(at)
    assert (runs / "mine.json").read_bytes() == upload
    # the copy opened in its place, though sample B (open too) has the same label
    assert any("· mine.json (your runs folder) ·" in plain(c.value) for c in at.caption)
    at.number_input(key="rerun.rounds").set_value(2).run()
    at.button(key="rerun.start").click().run()
    wait_for(at, finished)

    # the shipped format-1 sample re-runs with the task file shipped beside it
    at.query_params["log"] = [FORMAT1]
    at.query_params.pop("focus", None)
    at.run()
    assert_clean(at)
    assert "format1_plain_script.tasks.json" in at.selectbox(key="rerun.tasks_pick").value
    at.toggle(key="rerun.allow_simulator").set_value(True).run()  # it came from OpenAI; we are offline
    at.number_input(key="rerun.rounds").set_value(2).run()
    at.button(key="rerun.start").click().run()
    wait_for(at, finished)

    at.switch_page("views/new_run.py").run()
    assert at.text_input(key="route.base_url").value == "https://api.openai.com/v1"  # kept from Re-run
    at.text_input(key="route.base_url").input("").run()  # offline: the built-in simulator
    at.number_input(key="newrun.rounds").set_value(1).run()
    at.button(key="newrun.start").click().run()
    wait_for(at, lambda a: any(plain(s.value).startswith("Saved run-") for s in a.success))

    written = [p.name for p in list_logs(runs)]
    assert "mine.json" in written and len(written) == 4, written
    assert any(name.startswith("format1_plain_script.rerun") for name in written), written
    assert snapshot(SAMPLES) == before
    if shutil.which("git") and (ROOT / ".git").exists():
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=all", "--", "sample_runs"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        assert status.stdout == ""


def test_the_session_first_in_a_fresh_process_leaves_the_next_pages_drawn(tmp_path: Path) -> None:
    """In the order no suite run happened to use: the session test first in its own process (it works
    in a fresh folder), then a page that needs the project's streamlit settings."""
    session = test_a_full_session_writes_into_runs_and_never_into_sample_runs.__name__
    first = f"{Path(__file__).relative_to(ROOT).as_posix()}::{session}"
    then = "tests/app/test_app_smoke.py::test_every_view_on_the_sample_logs[overview]"
    args = ["-q", "-p", "no:cacheprovider", f"--basetemp={tmp_path / 'inner'}", first, then]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "2 passed" in done.stdout
