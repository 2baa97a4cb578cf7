"""The New run view through the whole app (AppTest.from_file) against the embedded simulator."""

from __future__ import annotations

from pathlib import Path

import app_kit
import pytest
from app_kit import ROOT, assert_clean, plain, shown_figures, wait_for
from streamlit.testing.v1 import AppTest

from analyzer.jobs.manager import get_manager
from analyzer.log.loader import list_logs, load_path

THREE_TASKS = ROOT / "tests" / "fixtures" / "tasks" / "three_tasks.json"


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary copy of the sample logs as the runs folder (the repo's sample_runs/ is never written)."""
    return app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)


def open_view() -> AppTest:
    return app_kit.open_view("views/new_run.py", "C_pinned.altk_runs.json", "New run")


def start_button(at: AppTest):  # noqa: ANN201 - AppTest's Button
    return at.button(key="newrun.start")


def new_runs(folder: Path) -> list[Path]:
    return [p for p in list_logs(folder) if p.name.startswith("run-")]


def test_sample_tasks_run_on_the_simulator_and_the_log_opens(runs: Path) -> None:
    at = open_view()
    assert any("built-in simulator serves" in i.value for i in at.info)
    assert any("30 tasks from tasks.json (shipped sample)" in plain(c.value) for c in at.caption)
    at.number_input(key="newrun.rounds").set_value(2).run()
    at.text_input(key="newrun.label").input("E: from the dashboard").run()
    button = start_button(at)
    assert button.label == "Run 30 tasks x 2 rounds on this route"
    button.click().run()
    assert_clean(at)
    wait_for(at, lambda a: any(plain(s.value).startswith("Saved run-") for s in a.success))

    [log_path] = new_runs(runs)
    log = load_path(log_path).log
    assert log.label == "E: from the dashboard" and log.parent_run_id is None
    assert len(log.runs) == 2 and {str(r.task_id) for _, r in log.results()} >= {"shop-001", "pay-005"}
    assert at.query_params["log"] == ["C_pinned.altk_runs.json", log_path.name]
    assert at.query_params["focus"] == "E: from the dashboard"
    metrics = shown_figures(at)
    assert metrics["Results"] == "60 / 60"
    assert metrics["Tokens"] == f"{sum(r.total_tokens or 0 for _, r in log.results()):,}"
    # one count (the Results figure); the bar says the state and how long it took, no second count
    [bar] = at.get("progress")
    text = bar.proto.text
    assert text.startswith("Run finished · took ") and text.endswith(" s") and "/" not in text


def test_an_uploaded_task_file_is_run_and_cancel_leaves_a_journal(runs: Path) -> None:
    at = open_view()
    at.file_uploader(key="newrun.tasks_upload").upload("three.json", THREE_TASKS.read_bytes()).run()
    assert_clean(at)
    assert any("3 tasks from" in c.value for c in at.caption)
    at.number_input(key="newrun.rounds").set_value(100).run()
    start_button(at).click().run()
    assert_clean(at)
    [cancel] = [b for b in at.button if b.label == "Cancel"]
    cancel.click().run()
    wait_for(at, lambda a: any(b.label == "Resume" for b in a.button), timeout=60)

    [job] = get_manager(runs).jobs()
    assert job.state == "cancelled" and Path(job.journal).exists() and not Path(job.out).exists()
    assert not new_runs(runs)
    assert start_button(at).label == "Run 3 tasks x 100 rounds on this route"


def test_a_bad_task_file_is_one_line_and_nothing_starts(runs: Path) -> None:
    at = open_view()
    at.file_uploader(key="newrun.tasks_upload").upload("notes.json", b"not json").run()
    assert_clean(at)
    [error] = at.error
    assert plain(error.value).startswith("notes.json: ") and "\n" not in error.value
    assert start_button(at).disabled and start_button(at).label.startswith("Run 0 tasks")


def test_a_bad_parameter_is_one_line(runs: Path) -> None:
    at = open_view()
    at.text_input(key="route.model").input("").run()
    at.number_input(key="route.top_p").set_value(0.0).run()
    assert_clean(at)
    [error] = at.error
    assert plain(error.value) == "top_p '0.0': Input should be greater than 0"
    assert start_button(at).disabled


def test_a_reruns_parent_settings_are_announced_on_new_run_and_can_be_dropped(runs: Path) -> None:
    at = app_kit.open_view("views/rerun.py", "A_baseline.altk_runs.json", "Re-run")
    at.text_input(key="route.model").input("parent-model-typed").run()  # set while re-running
    at.switch_page("views/new_run.py").run()
    assert_clean(at)
    notes = [plain(i.value) for i in at.info]
    assert any("settings taken from the re-run of A_baseline.altk_runs.json" in n for n in notes), notes
    assert at.text_input(key="route.model").value == "parent-model-typed"  # carried over, and said so
    at.button(key="route.reset").click().run()
    assert_clean(at)
    assert not any("taken from the re-run" in plain(i.value) for i in at.info)
    assert at.text_input(key="route.model").value != "parent-model-typed"


def _rounds_field(running: int | None) -> None:
    import streamlit as st

    from app.widgets.route_editor import rounds_input

    st.text(f"rounds {rounds_input('t.rounds', 5, running)}")


def test_the_rounds_a_user_set_come_back_once_the_job_has_stopped() -> None:
    """While a job runs the field shows the job's rounds (the user's field is not drawn, and
    Streamlit drops an undrawn widget's value); afterwards it shows the user's number again."""
    at = AppTest.from_function(_rounds_field, args=(None,)).run()
    at.number_input(key="t.rounds").set_value(40).run()
    assert at.text[0].value == "rounds 40"
    at = replay(at, 7)
    assert at.text[0].value == "rounds 7" and at.number_input(key="t.rounds.running").disabled
    at = replay(at, None)
    assert at.text[0].value == "rounds 40" and at.number_input(key="t.rounds").value == 40


def replay(at: AppTest, running: int | None) -> AppTest:
    """The same session drawn again with the job running (its rounds) or stopped (None)."""
    at.args = (running,)
    return at.run()
