"""The whole dashboard through its entry file (AppTest.from_file): every view on the sample logs and
with a bad file among good ones; the sidebar's URL mirroring; uploads; the runs folder setting."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import app_kit
import pytest
from app_kit import shown_figures, shown_tables
from fake_keys import SHOWN_KEY
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.log.loader import list_logs, load_path
from analyzer.report.compare_view import sharing
from app import data, fmt, log_folders
from app.views import tasks
from app.widgets import task_extras

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "app" / "main.py"
FIXTURES = ROOT / "tests" / "fixtures" / "app"
SAMPLES = ROOT / "sample_runs"
VIEWS = ["overview", "tasks", "tokens", "retries", "routes", "compare"]
TITLES = {v: v.capitalize() for v in VIEWS}


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A runs folder with three good logs and one bad one."""
    for name in ("drift_v2.json", "pinned_v2.json", "plain_v1.json", "bad.json"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(tmp_path))
    return tmp_path


def app(query: dict[str, object] | None = None) -> AppTest:
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    if query:
        at.query_params.update(query)
    return at.run()


def visit(at: AppTest, view: str) -> AppTest:
    at.switch_page(f"views/{view}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == [TITLES[view]]
    return at


def plain(text: str) -> str:
    """Page text without the markdown escapes the app adds to text from files."""
    return text.replace("\\", "")


def sample_logs() -> list[str]:
    """The samples as the sidebar names them (`sample_runs/<file>`), whatever the runs folder."""
    return [f"sample_runs/{p.relative_to(SAMPLES).as_posix()}" for p in list_logs(SAMPLES)]


@pytest.mark.skipif(not list_logs(SAMPLES), reason="no sample logs in sample_runs/ yet")
@pytest.mark.parametrize("view", VIEWS)
def test_every_view_on_the_sample_logs(view: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(log_folders.RUNS_DIR_ENV, raising=False)
    logs = sample_logs()
    at = visit(app({"log": logs}), view)
    assert not at.error, [e.value for e in at.error]
    analyses = [analyze(load_path(ROOT / name).log) for name in logs]
    h = analyses[0].headline  # single-log views show the first log
    shown = shown_figures(at)
    if view == "overview":
        assert any(c.value.startswith(f"{fmt.counted(h.tasks, 'task')} x ") for c in at.caption)
        assert shown["Answer gap"] == fmt.pp(h.answer_gap_pp)
        assert shown["Outcome gap"] == (fmt.pp(h.outcome.outcome_gap_pp) if h.outcome else "no grading")
        assert shown["Inconsistent tasks"] == fmt.count(h.tasks_measured - h.consistent_tasks)
        assert "Flagged tasks" not in shown
        at.session_state["overview.causes"] = True  # the lazy sections open too
        at.session_state["overview.curve"] = True
        at.run()
        assert not at.exception
        assert len(at.dataframe) == (1 if h.attribution else 0)
        finding = [e.value for e in at.html if "Measured tasks, by what their answers did" in e.value]
        assert len(finding) == 1  # drawn as HTML: no Plotly bundle on the first screen
        assert f"{h.consistent_tasks:,}</div>" in finding[0] or not h.consistent_tasks
        assert len(at.get("plotly_chart")) == (1 if h.outcome else 0)  # the curve, opened
    elif view == "tasks":
        [table] = [t for t in shown_tables(at) if {"task", "clusters"} <= set(t.columns)]
        assert table["task"].tolist() == analyses[0].tasks["task_id"].astype(str).tolist()
        assert table["clusters"].tolist() == [fmt.count(n) for n in analyses[0].tasks["n_clusters"]]
        at.session_state["tasks.tab"] = "Answers by round"  # the lazy grid tab opens too
        at.run()
        assert not at.exception and at.get("plotly_chart")
    elif view == "tokens":
        assert shown["Tokens, total"] == fmt.count(h.tokens.total)
    elif view == "retries":
        assert shown["HTTP attempts"] == fmt.count(h.retries.attempts_total)
    elif view == "routes":
        assert shown["Your route pinned"] == {True: "yes", False: "no", None: "not recorded"}[h.route.pinned]
    elif view == "compare":
        [table] = [t for t in shown_tables(at) if "answer gap" in t.columns]
        gaps = [analyses[i].headline.answer_gap_pp for i in sharing(analyses, 0)]  # the logs sharing tasks
        assert [float(g.split(" pp")[0]) for g in table["answer gap"]] == pytest.approx(gaps, abs=0.05)


@pytest.mark.parametrize("view", VIEWS)
def test_a_bad_file_is_one_line_and_the_other_logs_keep_working(runs: Path, view: str) -> None:
    at = visit(app({"log": ["bad.json", "drift_v2.json", "pinned_v2.json"]}), view)
    errors = [e.value for e in at.error if "bad" in e.value]
    assert len(errors) == 1
    assert "bad\\.json" in errors[0] and "not valid JSON" in errors[0] and "\n" not in errors[0]
    assert "Traceback" not in errors[0]
    if view == "overview":
        shown = shown_figures(at)
        assert any(c.value.startswith("8 tasks x 5 rounds") for c in at.caption)
        assert shown["Answer gap"] == "75.0 pp"
    if view == "compare":
        [table] = [t for t in shown_tables(at) if "answer gap" in t.columns]
        assert table.shape[0] == 2  # both good logs side by side


def test_the_url_seeds_the_selection_and_key_and_follows_changes(runs: Path) -> None:
    at = app({"log": ["drift_v2.json", "plain_v1.json"], "key": "normalized"})
    assert app_kit.logs_box(at).value == ["drift_v2.json", "plain_v1.json"]
    assert app_kit.key_box(at).value == "normalized"
    assert shown_figures(at)["Answer gap"] == "62.5 pp"

    app_kit.key_box(at).set_value("exact").run()
    assert at.query_params["key"] == "exact"
    assert shown_figures(at)["Answer gap"] == "75.0 pp"

    app_kit.focus_box(at).set_value("plain_v1").run()
    assert at.query_params["focus"] == "plain_v1"
    assert any(c.value.startswith("3 tasks x ") for c in at.caption)

    app_kit.logs_box(at).set_value(["pinned_v2.json"]).run()
    assert at.query_params["log"] == "pinned_v2.json"
    assert "focus" not in at.query_params
    assert not at.exception


def test_unknown_files_in_the_url_are_ignored(runs: Path) -> None:
    outside = runs.parent / "outside.json"
    shutil.copy(FIXTURES / "pinned_v2.json", outside)
    at = app({"log": ["nope.json", "../outside.json", str(outside), "drift_v2.json"]})
    assert app_kit.logs_box(at).value == ["drift_v2.json"]
    assert not at.exception
    # said in one line, once: a shared link to a missing log never shows another one without a word
    (note,) = [w.value for w in at.sidebar.warning if "The link names" in w.value]
    assert "\n" not in note and "nope" in note and "outside" in note and "drift_v2" not in note
    assert note.replace("\\", "").endswith("not in your runs folder or the samples.")
    app_kit.key_box(at).set_value("normalized").run()
    assert not [w for w in at.sidebar.warning if "The link names" in w.value]


def test_a_link_to_a_sample_by_its_file_name_says_where_the_sample_is(runs: Path) -> None:
    at = app({"log": ["C_pinned.altk_runs.json"]})
    (note,) = [w.value.replace("\\", "") for w in at.sidebar.warning if "The link names" in w.value]
    assert "(the sample is sample_runs/C_pinned.altk_runs.json)" in note


def test_uploads_open_as_groups_and_a_bad_upload_is_named(runs: Path) -> None:
    at = app({"log": ["plain_v1.json"]})
    at.file_uploader(key=data.UPLOADS).set_value(
        [
            ("mine.json", (FIXTURES / "pinned_v2.json").read_bytes(), "application/json"),
            ("broken.json", b'{"runs": 3}', "application/json"),
        ]
    ).run()
    assert not at.exception
    focus = app_kit.focus_box(at)
    assert focus.options == ["plain_v1", "B: pinned route (uploaded)"]
    assert focus.value == "B: pinned route (uploaded)"  # the new upload opens at once
    caption = at.caption[0].value.replace("\\", "")
    shown = "Showing log **B: pinned route (uploaded)** · uploaded file mine.json, not saved"
    assert caption.startswith(shown), caption
    (error,) = [e.value for e in at.error]
    assert error.startswith("broken\\.json") and "runs" in error
    at.switch_page("views/compare.py").run()
    assert not at.exception
    # the upload shares no task with the format-1 log: Compare asks rather than compare them
    assert at.multiselect(key="compare.logs").value == ["B: pinned route (uploaded)"]
    assert "Pick at least two logs to compare." in [i.value for i in at.info]
    at.multiselect(key="compare.logs").set_value(["B: pinned route (uploaded)", "plain_v1"]).run()
    [table] = [t for t in shown_tables(at) if "answer gap" in t.columns]
    assert table.shape[0] == 2


def test_no_logs_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(log_folders, "SAMPLES_DIR", tmp_path / "no_samples")
    for view in VIEWS:
        at = visit(app(), view)
        assert at.info


def test_a_log_cut_short_in_the_runs_folder_is_named_in_the_sidebar(runs: Path) -> None:
    eval_log = ROOT / "tests" / "fixtures" / "foreign" / "inspect_ai" / "mock_tools.eval"
    (runs / "crashed").mkdir()
    (runs / "crashed" / "epochs.eval").write_bytes(eval_log.read_bytes()[:3000])  # the zip's end is lost
    (runs / "empty.altk_runs.json").write_bytes(b"")
    at = app()
    assert not at.exception
    warned = [w.value for w in at.sidebar.warning]
    assert len(warned) == 1
    text = plain(warned[0])
    assert text.startswith("2 files in your runs folder are named like a log but cannot be read")
    assert "- crashed/epochs.eval: not a readable zip archive" in text
    assert "- empty.altk_runs.json: empty file" in text
    listed = at.sidebar.multiselect[0].options
    assert "drift_v2.json" in listed and "crashed/epochs.eval" not in listed


def test_a_runs_folder_of_readable_logs_warns_of_nothing(runs: Path) -> None:
    at = app()  # bad.json (listed: it opens with its error) is named like no log in particular
    assert not at.exception and not at.sidebar.warning


def test_runs_folder_comes_from_argument_then_environment_then_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(log_folders.RUNS_DIR_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    assert log_folders.runs_dir([]) == (tmp_path / "runs").resolve()  # ./runs, never sample_runs/
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(tmp_path / "env"))
    assert log_folders.runs_dir([]) == (tmp_path / "env").resolve()
    assert log_folders.runs_dir(["--runs-dir", str(tmp_path / "arg")]) == (tmp_path / "arg").resolve()


def _texts(node: object) -> list[str]:
    """Everything the page would send to the browser, element by element."""
    out = [str(node.proto)] if hasattr(node, "proto") else []  # type: ignore[attr-defined]
    for child in getattr(node, "children", {}).values():
        out += _texts(child)
    return out


def _leaky_log(secret: str) -> dict[str, object]:
    """drift_v2 with a key planted where a team's own script or another tool might leave one: the
    route and headers, the base URLs (user info, query, path), an error message, an answer, a
    prompt, and a trajectory's call and tool reply."""
    log = json.loads((FIXTURES / "drift_v2.json").read_text(encoding="utf-8"))
    url = f"https://user:{secret}@proxy.example.com/key/{secret}/v1?api-key={secret}"
    log["route"]["api_key"] = secret
    for rnd in log["runs"]:
        for result in rnd:
            result["route"]["api_key"] = secret
            result["route"]["base_url"] = url
            result["headers"] = {"Authorization": f"Bearer {secret}"}
            for attempt in result.get("attempts") or []:
                attempt["base_url"] = url
    first = log["runs"][0][0]
    for rnd in log["runs"]:  # the first task's trajectory quotes it in a call and in a tool's reply
        rnd[0]["trajectory"] = [
            {
                "type": "tool_call",
                "name": "login",
                "arguments": {"api_key": secret, "round": rnd[0]["round"]},
            },
            {"type": "message", "role": "tool", "content": f"logged in with {secret}"},
        ]
    log["tasks"] = [{"task_id": first["task_id"], "prompt": f"Log in with {secret}, then answer."}]
    first["answer"] = f"The key in use is {secret}."
    first["status"] = "error"
    first["error"] = {"type": "auth_error", "message": f"Incorrect API key provided: {secret}."}
    return log


LAZY_SECTIONS = (
    "overview.causes",
    "overview.curve",
    "routes.causes",
    "routes.coding",
    "tasks.trajectories",
    task_extras.HISTORY,
    task_extras.RAW,
)
TASK_TABS = (tasks.CLUSTERS_TAB, tasks.ROUNDS_TAB, tasks.TRAJECTORY_TAB)


def test_a_key_smuggled_into_a_log_never_reaches_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = SHOWN_KEY
    log = _leaky_log(secret)
    (tmp_path / "leaky.json").write_text(json.dumps(log), encoding="utf-8")
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(tmp_path))
    task = log["runs"][0][0]["task_id"]  # type: ignore[index]
    at = app({"log": ["leaky.json"], "task": task})
    for section in LAZY_SECTIONS:  # what is one click away is checked too
        at.session_state[section] = True
    for view in VIEWS:
        visit(at, view)
        shown = _texts(at._tree)
        for tab in TASK_TABS if view == "tasks" else ():  # each tab of the open task, built when open
            at.session_state[tasks.DETAIL] = tab
            at.run()
            shown += _texts(at._tree)
        assert not any(secret in text for text in shown), view
        if view == "tasks":  # the errored round is on the page, with its message and URL masked
            assert any("Incorrect API key provided: [redacted]." in text for text in shown)
            assert any("proxy.example.com" in text for text in shown)
            assert any("Log in with [redacted], then answer." in text for text in shown)
            assert any("logged in with [redacted]" in text for text in shown)


def test_a_group_can_be_relabelled(runs: Path) -> None:
    at = app({"log": ["drift_v2.json", "pinned_v2.json"]})
    at.text_input(key=data.LABEL + "pinned_v2.json").input("C: my pinned run").run()
    assert app_kit.focus_box(at).options == ["A: shared proxy", "C: my pinned run"]
    at.switch_page("views/compare.py").run()
    assert not at.exception
    [table] = [t for t in shown_tables(at) if "answer gap" in t.columns]
    assert table["group"].tolist() == ["A", "C"]  # short names of the labels typed
    assert "**C**: my pinned run" in "".join(c.value for c in at.caption).replace("\\", "")
