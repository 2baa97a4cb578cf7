"""The Re-run view through the whole app (AppTest.from_file) against the embedded simulator.

A person picks a sample log, goes to Re-run, keeps the inconsistent tasks and clicks the one button; the
tests assert what they would see (progress, the before/after, the verdict) and what lands on disk
(a new log naming its parent; on cancel a journal and no log), and that a key never leaks.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import app_kit
import pytest
from app_kit import MAIN, assert_clean, plain, shown_figures, wait_for
from fake_keys import FAKE_KEY
from plan_kit import job_before_after
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.jobs.manager import get_manager
from analyzer.log.loader import list_logs, load_path
from analyzer.runner.pinned_rerun import select_tasks
from analyzer.safety.keys import key_fingerprint
from analyzer.verdicts.before_after import verdict_phrase
from analyzer.verdicts.default_rerun import DEFAULT_SELECTION, default_rerun, selected_ids
from analyzer.verdicts.rerun_cost import cost_sentence
from app import data
from app.widgets import task_files
from app.widgets.messages import escape

PARENT = "A_baseline.altk_runs.json"
FORMAT1 = "format1_plain_script.json"


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary copy of sample_runs/ as the runs folder (the repo's copy is never written)."""
    return app_kit.sample_runs(tmp_path, monkeypatch)


def open_view(log: str = PARENT) -> AppTest:
    return app_kit.open_view("views/rerun.py", log, "Re-run")


def start_button(at: AppTest):  # noqa: ANN201 - AppTest's Button
    return at.button(key="rerun.start")


def metrics(at: AppTest) -> dict[str, str]:
    return shown_figures(at)


def finished(at: AppTest) -> bool:
    return "Route (beyond chance)" in metrics(at)


def new_logs(folder: Path) -> list[Path]:
    return [p for p in list_logs(folder) if ".rerun-" in p.name]


def page_text(at: AppTest) -> str:
    """Everything the page holds: every element's and widget's protobuf, sidebar included."""
    out: list[str] = []

    def walk(node: object) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


def inconsistent_ids(path: Path) -> list[str]:
    """The tasks whose answers differ between rounds."""
    return selected_ids(analyze(load_path(path).log).tasks, "inconsistent")


def default_ids(path: Path) -> list[str]:
    """What the Re-run page ticks at first: the CLI's default selection (`rerun` without --only)."""
    return select_tasks(load_path(path).log, DEFAULT_SELECTION)


def test_rerun_click_through_writes_a_linked_log_and_shows_the_verdict(runs: Path) -> None:
    at = open_view()
    flagged = default_ids(runs / PARENT)  # the default choice: the CLI's, flagged tasks
    assert any("built-in simulator serves" in i.value for i in at.info)
    at.number_input(key="rerun.rounds").set_value(2).run()
    button = start_button(at)
    assert button.label == f"Re-run {len(flagged)} tasks x 2 rounds on this route"
    button.click().run()
    assert_clean(at)
    wait_for(at, finished)

    [new] = new_logs(runs)
    log = load_path(new).log
    assert log.parent_run_id == load_path(runs / PARENT).log.run_id == "sample-A_baseline"
    assert sorted({str(r.task_id) for _, r in log.results()}) == sorted(flagged)
    assert at.query_params["log"] == [PARENT, new.name]  # opened beside its parent

    job = get_manager(runs).latest("rerun", parent=runs / PARENT)
    frame = job_before_after(get_manager(runs), job.job_id)
    route = frame.loc[frame["verdict"] == "route", "task_id"].tolist()
    model = frame.loc[frame["verdict"].isin(["model", "regressed"]), "task_id"].tolist()
    shown = metrics(at)
    assert shown["Route (beyond chance)"] == str(len(route)) and shown["Model"] == str(len(model))
    assert shown["Results"] == f"{len(flagged) * 2} / {len(flagged) * 2}"
    table = next(df.value for df in at.dataframe if "verdict_text" in df.value.columns)
    assert sorted(table["task_id"]) == sorted(flagged)
    first = frame.set_index("task_id").loc[table["task_id"].iloc[0]]
    # what changed comes first, in the analyzer's phrase for its verdict and factor
    assert table["verdict_text"].iloc[0] == verdict_phrase(first["verdict"], first["factor"])
    assert first["verdict"] in ("route", "both", "model") or not (route or model)
    for row in table.itertuples():  # never "still inconsistent" beside "no -> yes"
        if "still inconsistent" in row.verdict_text:
            assert row.consistent.endswith("no")
    inconclusive = frame.loc[frame["verdict"] == "inconclusive", "task_id"].tolist()
    assert shown["Inconclusive"] == str(len(inconclusive))
    assert any("by chance alone" in i.value and "route and seed pinned" in i.value for i in at.info)
    assert all(reason for reason in table["reason"])  # each verdict says why
    row = frame.set_index("task_id").loc[route[0] if route else flagged[0]]
    shown_row = table.set_index("task_id").loc[route[0] if route else flagged[0]]
    assert shown_row["clusters"] == f"{row['clusters_before']} → {row['clusters_after']}"
    assert shown_row["retries"] == f"{row['retries_before']} → {row['retries_after']}"
    assert any("follow a route factor beyond chance" in s.value for s in at.success) == bool(route)
    assert any("the model is to blame" in w.value for w in at.warning) == bool(model)

    again = open_view()  # a reload: the finished re-run is found, not started again
    assert "Route (beyond chance)" in metrics(again) and len(new_logs(runs)) == 1


def test_a_second_tab_finds_the_running_rerun_and_cancel_leaves_a_journal_and_no_log(runs: Path) -> None:
    at = open_view()
    at.number_input(key="rerun.rounds").set_value(40).run()
    start_button(at).click().run()
    assert_clean(at)
    assert any(p.proto.text.startswith("Re-run running") for p in at.get("progress"))

    other = open_view()  # another tab, its own session
    assert start_button(other).disabled, "a running re-run must not be started twice"
    assert (
        start_button(other).label
        == f"Re-running {len(default_ids(runs / PARENT))} tasks x 40 rounds on this route…"
    )
    [cancel] = [b for b in other.button if b.label == "Cancel"]
    cancel.click().run()
    wait_for(other, lambda a: any(b.label == "Resume" for b in a.button), timeout=60)

    job = get_manager(runs).latest("rerun", parent=runs / PARENT)
    assert job.state == "cancelled" and job.resumable
    assert Path(job.journal).exists() and not Path(job.out).exists()
    assert not new_logs(runs), "a cancelled re-run must not leave a log"
    assert any("journal" in i.value for i in other.info)
    wait_for(at, lambda a: any(b.label == "Resume" for b in a.button))  # the first tab sees it too
    assert len(get_manager(runs).jobs()) == 1


@pytest.mark.parametrize("source", ["env", "session"])
def test_the_key_appears_in_no_file_no_page_and_no_url(
    runs: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    if source == "env":
        monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    at = open_view()
    if source == "session":
        at.text_input(key="route.key_input").input(FAKE_KEY).run()
        assert_clean(at)
        assert "route.key_input" not in [w.key for w in at.text_input if w.value]  # the field was cleared
    fingerprint = key_fingerprint(FAKE_KEY)
    assert any(fingerprint in c.value for c in at.caption)
    at.button(key="rerun.check").click().run()
    assert any(s.value.startswith("Route works") for s in at.success)
    at.number_input(key="rerun.rounds").set_value(2).run()
    start_button(at).click().run()
    wait_for(at, finished)

    [new] = new_logs(runs)
    assert load_path(new).log.route.key_fingerprint == fingerprint
    written = [p for p in runs.rglob("*") if p.is_file()]
    assert any(".rerunlens" in p.parts for p in written)
    for path in written:
        assert FAKE_KEY.encode() not in path.read_bytes(), path
    assert FAKE_KEY not in page_text(at)
    assert FAKE_KEY not in urlencode(dict(at.query_params), doseq=True)
    assert fingerprint in page_text(at)


def test_a_format1_log_picks_the_task_file_beside_it_and_reruns_with_another(runs: Path) -> None:
    flagged = default_ids(runs / FORMAT1)
    at = open_view(FORMAT1)
    assert any("a format-1 log" in i.value for i in at.info)
    shipped = runs / "format1_plain_script.tasks.json"  # shipped beside the sample: picked for you
    assert at.selectbox(key="rerun.tasks_pick").value == str(shipped)
    at.toggle(key="rerun.allow_simulator").set_value(True).run()  # the sample came from OpenAI
    planned = default_rerun(analyze(load_path(runs / FORMAT1).log), flagged, leave_out=True)  # the CLI's
    assert not planned.tasks and planned.left_out  # 3-round parents: no pinned rounds decide them
    assert start_button(at).label == "Nothing to re-run on this route" and start_button(at).disabled
    at.number_input(key="rerun.rounds").set_value(2).run()  # one number for all: exactly what was chosen
    assert not start_button(at).disabled
    assert start_button(at).label == f"Re-run {len(flagged)} tasks x 2 rounds on this route"

    tasks = [{"task_id": t, "prompt": f"Answer for {t}."} for t in flagged[:-1]]
    (runs / "plain_tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    task_files.task_files.clear()
    at.run()
    assert "plain_tasks.json" in at.selectbox(key="rerun.tasks_pick").options
    at.selectbox(key="rerun.tasks_pick").set_value(str(runs / "plain_tasks.json")).run()
    assert_clean(at)
    warnings = [plain(w.value) for w in at.warning]
    assert any("no prompt in the task file" in w and flagged[-1] in w for w in warnings), warnings
    at.number_input(key="rerun.rounds").set_value(2).run()
    button = start_button(at)
    assert not button.disabled and button.label == f"Re-run {len(flagged) - 1} tasks x 2 rounds on this route"
    button.click().run()
    wait_for(at, finished)
    [new] = new_logs(runs)
    assert load_path(new).log.parent_run_id == FORMAT1
    assert sorted({str(r.task_id) for _, r in load_path(new).log.results()}) == sorted(flagged[:-1])


def test_a_providers_log_reruns_on_its_provider_unless_the_simulator_is_switched_on(runs: Path) -> None:
    assert not open_view().get("toggle")  # sample A came from the simulator: no switch
    at = open_view(FORMAT1)  # written against https://api.openai.com/v1
    switch = at.toggle(key="rerun.allow_simulator")
    assert switch.label == "Re-run on the built-in simulator instead" and switch.value is False
    assert at.text_input(key="route.base_url").value == "https://api.openai.com/v1"  # the same provider
    at.number_input(key="rerun.rounds").set_value(2).run()  # by default no pinned rounds decide its tasks
    assert start_button(at).disabled  # the log chose that host: the key goes there after a click only
    at.button(key="rerun.confirm_host").click().run()
    assert not start_button(at).disabled

    at.text_input(key="route.base_url").input("").run()  # no base URL: it would reach the simulator
    assert_clean(at)
    assert any("would go to the built-in simulator" in plain(w.value) for w in at.warning)
    assert start_button(at).disabled

    at.toggle(key="rerun.allow_simulator").set_value(True).run()
    assert not start_button(at).disabled
    at.number_input(key="rerun.rounds").set_value(1).run()
    start_button(at).click().run()
    wait_for(at, finished)
    [new] = new_logs(runs)
    assert load_path(new).log.label.endswith("(simulated)")


def test_without_a_task_file_a_format1_log_cannot_be_sent(runs: Path) -> None:
    (runs / "format1_plain_script.tasks.json").unlink()
    at = open_view(FORMAT1)
    assert at.selectbox(key="rerun.tasks_pick").value in ("", None)
    assert start_button(at).disabled  # no prompts yet


def test_a_format2_log_without_tasks_is_not_called_format1(runs: Path) -> None:
    log = json.loads((runs / PARENT).read_text(encoding="utf-8"))
    log.pop("tasks", None)
    (runs / "no_tasks.json").write_text(json.dumps(log), encoding="utf-8")
    at = open_view("no_tasks.json")
    infos = [i.value for i in at.info]
    assert any("a format-2 log without a `tasks` list" in i for i in infos), infos
    assert not any("format-1" in i for i in infos)


def test_the_choice_of_tasks_matches_the_cli(runs: Path) -> None:
    parent = load_path(runs / PARENT).log
    flagged = [f.task_id for f in analyze(parent).headline.flagged]
    inconsistent = inconsistent_ids(runs / PARENT)
    assert 0 < len(inconsistent) < len(flagged)  # sample A: 30 flagged, 13 inconsistent
    at = open_view()
    assert at.radio(key="rerun.selection").value == "flagged"  # `rerun` without --only
    runs_flagged = default_rerun(analyze(parent), flagged, leave_out=True).tasks
    assert start_button(at).label.startswith(f"Re-run {len(runs_flagged)} tasks")
    at.radio(key="rerun.selection").set_value("inconsistent").run()
    expected = default_rerun(analyze(parent), inconsistent, leave_out=True)  # as `rerun --only inconsistent`
    assert start_button(at).label.startswith(f"Re-run {len(expected.tasks)} tasks")
    plan = next(df.value for df in at.dataframe if "needs" in df.value.columns)  # the plan follows the choice
    plan = plan[plan["decides"] != "not run"]
    assert dict(zip(plan["task_id"], plan["rounds"].astype(int), strict=True)) == expected.rounds()
    assert escape(cost_sentence(expected.cost)) in [c.value for c in at.caption]
    at.radio(key="rerun.selection").set_value("pick").run()
    assert_clean(at)
    assert start_button(at).label == "Nothing to re-run on this route" and start_button(at).disabled
    every = f"All {len(analyze(parent).tasks)} tasks, the inconsistent ones first"
    assert any(every in c.value for c in at.caption)


def test_a_bad_task_file_upload_is_one_line(runs: Path) -> None:
    at = open_view(FORMAT1)
    at.file_uploader(key="rerun.tasks_upload").upload("broken.json", b'[{"task_id": 1}]').run()
    assert_clean(at)
    [error] = at.error
    assert plain(error.value) == "broken.json: [0].prompt: Field required"
    assert start_button(at).disabled


def test_the_base_url_is_linted_as_typed_and_a_bad_route_fails_its_check_in_one_line(runs: Path) -> None:
    at = open_view()
    at.text_input(key="route.base_url").input("https://platform.openai.com/?utm_source=newsletter").run()
    assert_clean(at)
    assert not any("built-in simulator serves" in i.value for i in at.info)
    assert any(t.value.startswith("Calls https://platform.openai.com/") for t in at.text)
    assert any("api.openai.com/v1" in t.value for t in at.text)  # the suggested root
    assert at.error or at.warning

    at.text_input(key="route.base_url").input("http://127.0.0.1:9/v1").run()
    at.button(key="rerun.check").click().run()
    assert_clean(at)
    [failed] = [e for e in at.error if e.value.startswith("Route check failed")]
    assert "refused" in failed.value and "\n" not in failed.value


def test_nothing_flagged_means_nothing_to_rerun(runs: Path) -> None:
    rounds = [[{"task_id": t, "answer": "42", "total_tokens": 10} for t in ("a", "b")] for _ in range(3)]
    (runs / "steady.json").write_text(json.dumps({"summary": {}, "runs": rounds}), encoding="utf-8")
    assert not analyze(load_path(runs / "steady.json").log).headline.flagged
    at = open_view("steady.json")
    assert any("Nothing to re-run" in s.value for s in at.success)
    assert start_button(at).label == "Nothing to re-run on this route"
    assert start_button(at).disabled


def test_an_uploaded_log_is_copied_into_the_runs_folder_before_it_can_be_rerun(runs: Path) -> None:
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params.update({"log": ["C_pinned.altk_runs.json"]})
    at.run()
    upload = (runs / PARENT).read_bytes()
    at.file_uploader(key=data.UPLOADS).upload("mine.json", upload, "application/json").run()
    assert app_kit.focus_box(at).value == load_path(runs / PARENT).log.label + " (uploaded)"
    at.switch_page("views/rerun.py").run()
    assert_clean(at)
    assert any("was uploaded" in i.value for i in at.info)
    at.button(key="rerun.copy_upload").click().run()
    assert_clean(at)
    assert (runs / "mine.json").read_bytes() == upload
    assert at.query_params["log"] == ["C_pinned.altk_runs.json", "mine.json"]
    assert "· mine.json (your runs folder) · answer key" in plain(at.caption[1].value)
    assert not at.button(key="rerun.start").disabled


def test_the_route_takes_the_parents_model_and_sampling_and_warns_when_they_differ(runs: Path) -> None:
    at = open_view()
    assert at.text_input(key="route.model").value == "gpt-4o-mini"
    assert any("only the route is pinned" in c.value for c in at.caption)
    at.number_input(key="route.temperature").set_value(0.7).run()
    assert_clean(at)
    [warning] = [w for w in at.warning if "This re-run changes more than the route" in plain(w.value)]
    assert "temperature 0.0 -> 0.7" in plain(warning.value)
    at.button(key="route.use_parent").click().run()
    assert_clean(at)
    assert at.number_input(key="route.temperature").value == 0.0
    assert not [w for w in at.warning if "This re-run changes more than the route" in plain(w.value)]


def test_the_plan_and_its_cost_stand_beside_the_button_and_follow_the_rounds(runs: Path) -> None:
    at = open_view()
    ids = default_ids(runs / PARENT)
    parent = analyze(load_path(runs / PARENT).log)
    planned = default_rerun(parent, ids, leave_out=True)
    captions = [c.value for c in at.caption]
    for sentence in planned.sentences():  # the CLI's sentences, escaped for markdown
        assert escape(sentence) in captions
    table = next(df.value for df in at.dataframe if "needs" in df.value.columns)
    run = table[table["decides"] != "not run"]
    assert dict(zip(run["task_id"], run["rounds"], strict=True)) == planned.rounds()
    left = table[table["decides"] == "not run"]  # sample A: left out, each with why and what runs it
    assert left["task_id"].tolist() == [t.task_id for t in planned.left_out] and len(left)
    assert dict(zip(left["task_id"], left["needs"], strict=True)) == {
        t.task_id: f"{t.why}; {t.runs_it}" for t in planned.left_out
    }
    assert any("rounds more on the parent's own route" in t.why for t in planned.left_out)  # and why
    at.number_input(key="rerun.rounds").set_value(3).run()
    cost = default_rerun(parent, ids, 3).cost
    assert cost.requests == 3 * len(ids)
    assert escape(cost_sentence(cost)) in [c.value for c in at.caption]
    shown = [plain(c.value) for c in at.caption]
    assert "This re-run runs 3: a task that needs more stays inconclusive." in shown
