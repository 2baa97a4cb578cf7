"""Each dashboard view on its own (AppTest.from_function), fed logs analysed straight by the analyzer.

The assertions read what a person reads (metrics, tables, chart data, verdicts) and check that it is
exactly the analyzer's figure, formatted; that answers are shown as plain text; and that no view
raises.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from app_kit import shown_figures, shown_tables
from streamlit.testing.v1 import AppTest

from analyzer.analysis import Analysis, analyze
from analyzer.log.loader import load_path
from analyzer.metrics.attribution import Attribution, attribution_caption, verdict_counts
from analyzer.metrics.route_factors import side_counts
from analyzer.numbers import p_value
from analyzer.verdicts.compare import compare
from app import data, fmt
from app.widgets.messages import escape

FIXTURES = Path(__file__).parents[1] / "fixtures" / "app"


def group(name: str, key: str = "exact") -> data.Group:
    loaded = load_path(FIXTURES / name)
    return data.Group(
        label=loaded.log.display_label(Path(name).stem),
        source=name,
        loaded=loaded,
        analysis=analyze(loaded.log, key),  # type: ignore[arg-type]
    )


def selection(*names: str, key: str = "exact") -> data.Selection:
    groups = [group(n, key) for n in names]
    return data.Selection(groups=groups, key=key, focus=groups[0] if groups else None)


def _script(view: str, sel: object) -> None:
    import importlib

    importlib.import_module(f"app.views.{view}").render(sel)  # type: ignore[arg-type]


def run_view(view: str, sel: data.Selection, query: dict[str, Any] | None = None) -> AppTest:
    at = AppTest.from_function(_script, kwargs={"view": view, "sel": sel}, default_timeout=30)
    if query:
        at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return shown_figures(at)


def figures(at: AppTest) -> list[dict[str, Any]]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def decode(values: Any) -> np.ndarray:
    """Plotly's JSON arrays: plain lists or typed arrays (`{"dtype", "bdata", "shape"}`)."""
    if isinstance(values, dict) and "bdata" in values:
        arr = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        if "shape" in values:
            arr = arr.reshape([int(s) for s in str(values["shape"]).split(",")])
        return arr
    return np.asarray(values)


def frame_with(at: AppTest, *columns: str) -> pd.DataFrame:
    """The first table shown that has these columns: a dataframe, or a static HTML table read back
    (its cells as the text a person reads)."""
    for frame in [df.value for df in at.dataframe] + shown_tables(at):
        if set(columns) <= set(frame.columns):
            return frame
    raise AssertionError(f"no table with columns {columns}")


def open_task(at: AppTest) -> str | None:
    """The task the one-task tab shows, as its heading names it (None when the tab is not drawn)."""
    for m in at.markdown:
        if m.value.startswith("**Task ") and " in the table" in m.value:
            return m.value.removeprefix("**Task ").split("**")[0].replace("\\", "")
    return None


def task_rows(at: AppTest) -> pd.DataFrame:
    """The task table as shown (read back from its HTML), a cell as the text a person reads."""
    return frame_with(at, "task", "clusters", "consistent")


def highlighted_task(at: AppTest) -> str | None:
    """The task whose row the task table highlights (the one open below it)."""
    markup = next(el.value for el in at.html if ">clusters</th>" in el.value)
    rows = re.findall(r"<tr( class=\"on\")?><td[^>]*>([^<]*)</td>", markup.split("<tbody>")[1])
    marked = [task for on, task in rows if on]
    assert len(marked) <= 1
    return marked[0] if marked else None


def all_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [t.value for t in at.text] + [c.value for c in at.caption]
    parts += [w.value for w in at.warning] + [s.value for s in at.success] + [e.value for e in at.error]
    return "\n".join(str(p) for p in parts)


# --- Overview ------------------------------------------------------------------------------------


def test_overview_shows_the_analyzers_headline() -> None:
    sel = selection("drift_v2.json")
    h = sel.focus.analysis.headline  # type: ignore[union-attr]
    at = run_view("overview", sel)
    shown = metrics(at)
    # the first screen: the analyzer's finding in one sentence, its chart, the link to the evidence
    found = data.finding(sel.focus.analysis)  # type: ignore[union-attr]
    heading = at.markdown[0].value.replace("\\", "")
    assert heading == f"#### {found.sentence}"
    assert heading.startswith("#### 6 of 8 tasks disagree across 5 rounds: 75.0 % (95 % CI ")
    (bar,) = [h.value for h in at.html if "Measured tasks, by what their answers did" in h.value]
    segments = re.findall(r'<div title="([^"]+): (\d+) tasks"[^>]*>(\d+)</div>', bar)
    assert [(label, int(n)) for label, n, _ in segments] == [
        (b.label, b.tasks) for b in found.bars if b.tasks
    ]
    assert all(n == shown_n for _, n, shown_n in segments)  # each count written on its segment
    assert all(f"{b.label} ({b.tasks})" in bar for b in found.bars if b.tasks)  # the legend
    assert not [f for f in figures(at) if f["layout"].get("barmode") == "stack"]  # the finding is not Plotly
    assert sum(b.tasks for b in found.bars) == h.tasks_measured
    assert "The evidence for each of the 6 inconsistent tasks →" in all_text(at)
    assert "8 tasks x 5 rounds · " in all_text(at)
    assert shown["Answer gap"] == fmt.pp(h.answer_gap_pp) == "75.0 pp"
    assert "Answer consistency" not in shown  # 100 minus the gap: not a second headline figure
    assert shown["Outcome gap"] == fmt.pp(h.outcome.outcome_gap_pp)  # type: ignore[union-attr]
    assert shown["Tokens, total"] == fmt.count(h.tokens.total)
    # inconsistent, drifted and errored tasks counted apart (never one "flagged" figure)
    tasks = sel.focus.analysis.tasks  # type: ignore[union-attr]
    assert shown["Inconsistent tasks"] == str(int((tasks["consistent"] == False).sum()))  # noqa: E712
    assert shown["Drifted tasks"] == str(int(tasks["drifted"].sum()))
    assert shown["Errored tasks"] == str(int((tasks["n_errors"] > 0).sum())) == "1"
    assert "Flagged tasks" not in shown
    assert f"1 errored result · {h.retries.extra_attempts} retries" in all_text(at)
    assert h.route.verdict.split(":")[0] in at.warning[0].value
    assert any("Stored summary disagrees" in w.value for w in at.warning)
    # every headline figure carries its 95 % interval over tasks, in one style
    low, high = h.answer_gap_ci  # type: ignore[misc]
    assert f"answer gap 75.0 pp (95 % CI {low:.1f}–{high:.1f})" in all_text(at)
    low, high = h.outcome.outcome_gap_ci  # type: ignore[union-attr]
    assert f"pp (95 % CI {low:.1f}–{high:.1f})" in all_text(at)
    low, high = h.outcome.pass_hat_k_ci  # type: ignore[union-attr]
    assert (
        f"Pass^5 {fmt.pct(h.outcome.pass_hat_k[5])} (95 % CI {100 * low:.1f}–{100 * high:.1f})"
        in all_text(at)
    )  # type: ignore[union-attr]
    # and the cause of each inconsistent task, counted and listed
    causes = [a.cause for a in h.attribution]
    counts = side_counts(h.attribution)  # route and both only where they pass the FDR
    labels = {"Your route": "route", "Both": "both", "Model": "model", "Inconclusive": "inconclusive"}
    labels |= {"Unmeasured": "unmeasured"}
    assert [shown[c] for c in labels] == [str(counts[c]) for c in labels.values()]
    assert sum(counts.values()) == sum(verdict_counts(h.attribution).values())
    assert escape(attribution_caption(h.attribution)) in all_text(at)
    # the list and the Pass^k curve are one click away (lazy expanders): drawn only once opened
    assert [e.label for e in at.expander] == [
        f"The cause of each of the {len(causes)} inconsistent tasks, with its evidence",
        "Pass^k and Pass@k for k = 1 to 5: how success falls as rounds are added",
    ]
    curve_title = "Success as rounds are added"
    assert not at.dataframe and curve_title not in [f["layout"]["title"]["text"] for f in figures(at)]
    at.session_state["overview.causes"] = True
    at.session_state["overview.curve"] = True
    at.run()
    assert frame_with(at, "cause", "evidence")["evidence"].tolist() == [a.evidence for a in h.attribution]

    (curve,) = [f for f in figures(at) if f["layout"]["title"]["text"] == curve_title]
    k = decode(curve["data"][0]["x"])
    pass_hat = decode(curve["data"][0]["y"])
    assert list(k) == list(h.outcome.pass_hat_k)  # type: ignore[union-attr]
    assert np.allclose(pass_hat, [v * 100 for v in h.outcome.pass_hat_k.values()])  # type: ignore[union-attr]
    assert curve["layout"]["xaxis"]["title"]["text"] and curve["layout"]["yaxis"]["title"]["text"]


def test_overview_changes_with_the_answer_key() -> None:
    exact = metrics(run_view("overview", selection("drift_v2.json", key="exact")))
    normalized = metrics(run_view("overview", selection("drift_v2.json", key="normalized")))
    assert exact["Answer gap"] == "75.0 pp"
    assert normalized["Answer gap"] == "62.5 pp"


def test_overview_of_a_format1_log_says_there_is_no_grading() -> None:
    sel = selection("plain_v1.json")
    at = run_view("overview", sel)
    assert metrics(at)["Outcome gap"] == "no grading"
    assert not figures(at)  # the finding is HTML and the curve is for graded logs only
    assert any("Measured tasks, by what their answers did" in h.value for h in at.html)
    assert any("round 3 (task 2)" in w.value or "round 3 misses task 2" in w.value for w in at.warning)


def test_overview_downloads_are_the_analyzers_exports() -> None:
    at = run_view("overview", selection("drift_v2.json"))
    labels = [b.proto.label for b in at.download_button]
    assert labels == [
        "Per-task table (CSV)",
        "Flagged tasks (task file)",
        "Report (JSON)",
        "Report to share (HTML)",
    ]
    two = run_view("overview", selection("drift_v2.json", "pinned_v2.json"))
    assert [b.proto.label for b in two.download_button][-1] == "All 2 open logs (HTML)"


def test_overview_without_a_log_asks_for_one() -> None:
    at = run_view("overview", data.Selection())
    assert "Pick a run log" in at.info[0].value
    assert not shown_figures(at)


# --- Tasks ---------------------------------------------------------------------------------------


def test_tasks_table_is_the_analyzers_task_frame() -> None:
    sel = selection("drift_v2.json")
    analysis = sel.focus.analysis  # type: ignore[union-attr]
    at = run_view("tasks", sel)
    table = task_rows(at)
    assert table["task"].tolist() == analysis.tasks["task_id"].tolist()
    assert table["clusters"].tolist() == [fmt.count(n) for n in analysis.tasks["n_clusters"]]
    assert table["majority"].tolist() == [fmt.pct(v) for v in analysis.tasks["majority_share"]]
    causes = {a.task_id: a.cause for a in analysis.headline.attribution}
    assert table["cause"].tolist() == [causes.get(t, "") for t in analysis.tasks["task_id"]]
    assert not at.dataframe  # a read-only table: no grid on the first screen
    assert highlighted_task(at) == open_task(at)


@pytest.mark.parametrize(
    ("order", "column", "descending"),
    [("most tokens first", "tokens_total", True), ("least consistent first", "majority_share", False)],
)
def test_the_task_table_sorts_from_the_url(order: str, column: str, descending: bool) -> None:
    sel = selection("drift_v2.json")
    tasks = sel.focus.analysis.tasks  # type: ignore[union-attr]
    at = run_view("tasks", sel, {"sort": order})
    assert at.selectbox(key="tasks.sort").value == order
    expected = tasks.assign(v=pd.to_numeric(tasks[column], errors="coerce")).sort_values(
        "v", ascending=not descending, kind="stable", na_position="last"
    )
    assert task_rows(at)["task"].tolist() == expected["task_id"].tolist()
    assert f"{len(tasks)} of {len(tasks)} tasks, {order}" in all_text(at)
    at.selectbox(key="tasks.sort").set_value("log order").run()
    assert task_rows(at)["task"].tolist() == tasks["task_id"].tolist()
    assert "sort" not in at.query_params


@pytest.mark.parametrize("state", ["inconsistent", "drifted", "errored"])
def test_each_state_filter_from_the_url(state: str) -> None:
    sel = selection("drift_v2.json")
    tasks = sel.focus.analysis.tasks  # type: ignore[union-attr]
    at = run_view("tasks", sel, {"show": state})
    assert at.multiselect(key="tasks.show").value == [state]
    expected = {
        "inconsistent": tasks["consistent"] == False,  # noqa: E712
        "drifted": tasks["drifted"].astype(bool),
        "errored": tasks["n_errors"] > 0,
    }[state]
    shown = task_rows(at)["task"].tolist()
    assert shown == tasks.loc[expected.fillna(False).astype(bool), "task_id"].tolist()
    assert 0 < len(shown) < len(tasks)  # each filter says something on this log
    assert f"{len(shown)} of {len(tasks)} tasks" in all_text(at)


def test_filters_by_cause_clusters_success_and_answer_text() -> None:
    sel = selection("drift_v2.json")
    analysis = sel.focus.analysis  # type: ignore[union-attr]
    tasks = analysis.tasks
    at = run_view("tasks", sel, {"clusters": "3"})
    assert task_rows(at)["task"].tolist() == tasks.loc[tasks["n_clusters"] >= 3, "task_id"].tolist()
    cause = analysis.headline.attribution[0].cause
    at = run_view("tasks", sel, {"cause": cause})
    assert task_rows(at)["task"].tolist() == [
        a.task_id for a in analysis.headline.attribution if a.cause == cause
    ]
    at = run_view("tasks", sel, {"success": "some round fails"})
    graded = tasks[(tasks["graded"] > 0) & (tasks["success_rate"] < 1)]
    assert task_rows(at)["task"].tolist() == graded["task_id"].tolist()
    # a word inside an answer finds its task, whatever the task is called
    at = run_view("tasks", sel, {"answer": "<script>"})
    assert task_rows(at)["task"].tolist() == ["html"]
    at.text_input(key="tasks.answer").set_value("no answer says this").run()
    assert "No task matches the filter." in [i.value for i in at.info]


def test_selected_task_shows_its_clusters_and_answers_as_plain_text() -> None:
    sel = selection("drift_v2.json")
    analysis = sel.focus.analysis  # type: ignore[union-attr]
    at = run_view("tasks", sel, {"task": "html"})
    assert open_task(at) == "html"
    assert at.query_params["task"] == "html"
    assert [s.key for s in at.selectbox] == ["tasks.success", "tasks.sort", "tasks.pick"]
    assert at.selectbox(key="tasks.pick").value == "html"  # the picker follows the open task
    # the prompt is the log's own text, shown as it is (plain text, never markdown or code markup)
    assert "Echo this markup verbatim: <b>bold</b>" in [t.value for t in at.text]
    clusters = frame_with(at, "representative answer")
    expected = analysis.clusters[analysis.clusters["task_id"] == "html"]
    assert clusters["representative answer"].tolist() == expected["representative"].tolist()
    assert clusters["answers"].tolist() == [fmt.count(n) for n in expected["size"]]
    # the open task's tabs: only the open one is built
    assert [t.label for t in at.tabs] == ["One task", "Answer clusters", "Every round", "Answers by round"]
    assert not [df for df in at.dataframe if "answer" in df.value.columns]
    at.session_state["tasks.detail"] = "Every round"
    at.run()
    assert not [t for t in shown_tables(at) if "representative answer" in t.columns]
    rounds = frame_with(at, "round", "answer")
    assert "<script>alert('x')</script>**bold**" in rounds["answer"].tolist()
    # which route gave which answer: a route field the task's rounds share is said once, not per row
    assert list(rounds.columns[:4]) == ["round", "cluster", "status", "answer"]
    assert not {"key_fingerprint", "base_url", "served_model", "system_fingerprint"} & set(rounds.columns)
    assert "Same in every round: key sha256:1a2b3c4d5e6f · base URL https://api" in all_text(at).replace(
        "\\", ""
    )
    drifted = run_view("tasks", sel, {"task": "refund", "tasks.detail": "Every round"})
    varying = frame_with(drifted, "round", "answer")
    refund = analysis.results[analysis.results["task_id"] == "refund"]
    for column in ("key_fingerprint", "base_url", "served_model", "system_fingerprint"):
        assert (column in varying.columns) == (refund[column].astype(str).nunique() > 1)
    [cause] = [a for a in analysis.headline.attribution if a.task_id == "html"]
    shown = all_text(at)
    assert cause_text(cause) in shown
    # its p- and q-value read only where the evidence names them, not again before it
    for odds in (p_value(cause.p_value), p_value(cause.q_value, "q")):
        assert shown.count(odds) == cause.evidence.count(odds)
    # never rendered as markdown or HTML
    assert "<script>" not in "".join(m.value for m in at.markdown)
    assert "<script>" not in "".join(el.value for el in at.html)  # the tables escape it


def test_task_heatmap_is_coloured_by_the_analyzers_clusters() -> None:
    sel = selection("drift_v2.json")
    analysis = sel.focus.analysis  # type: ignore[union-attr]
    at = run_view("tasks", sel)
    # a first visit draws the table and one task; the grid is the second tab, drawn when opened
    assert [t.label for t in at.tabs if t.label in ("One task", "Answers by round")] == [
        "One task",
        "Answers by round",
    ]
    assert not figures(at)
    at.session_state["tasks.tab"] = "Answers by round"
    at.run()
    assert open_task(at) is None and not at.dataframe  # the one-task tab is not run with the grid
    (heatmap,) = figures(at)
    trace, *legend = heatmap["data"]
    assert trace["type"] == "heatmap"
    # a legend names the colours; each cell carries the route that served it, named under the grid
    top = int(analysis.results["cluster"].max())
    assert [t["name"].split(":")[0] for t in legend] == [f"cluster {k}" for k in range(top + 1)]
    assert legend[0]["name"] == "cluster 0: the task's most common answer"
    assert trace["texttemplate"] == "%{text}"
    marks = {m for row in trace["text"] for m in row}
    assert marks and all(m == "" or m.startswith("R") for m in marks)
    routes = next(t.value for t in at.text if t.value.startswith("Routes: "))
    assert "R1 = key sha256:" in routes and "R2 = " in routes
    tasks = list(trace["y"])
    assert tasks == analysis.tasks["task_id"].tolist()
    clusters = decode(trace["customdata"])
    row = tasks.index("flaky")
    expected = analysis.results[analysis.results["task_id"] == "flaky"].sort_values("round")["cluster"]
    assert clusters[row].tolist() == expected.astype("float64").tolist()
    assert heatmap["layout"]["xaxis"]["title"]["text"] == "round"


def test_trajectory_steps_are_shown_for_tasks_that_recorded_them() -> None:
    at = run_view("tasks", selection("drift_v2.json"), {"task": "weather", "tasks.detail": "Trajectory"})
    at.session_state["tasks.trajectories"] = True  # the side-by-side section, opened
    at.run()
    texts = [t.value for t in at.text]
    # the same calls in every round: both rounds from the start, log text as plain text
    assert "Rounds 1 and 2 made the same tool calls, in the same order." in [c.value for c in at.caption]
    assert texts.count('1. get_weather("city": "Oslo")') == 2
    assert "<result>rain: 0.4 mm</result>" in texts
    assert "<result>" not in "".join(m.value for m in at.markdown)


def test_previous_next_and_the_picker_open_the_tasks_of_the_table() -> None:
    sel = selection("drift_v2.json")
    analysis = sel.focus.analysis  # type: ignore[union-attr]
    at = AppTest.from_function(_script, kwargs={"view": "tasks", "sel": sel}, default_timeout=30)
    at.query_params["show"] = "inconsistent"
    at.run()
    order = task_rows(at)["task"].tolist()
    assert open_task(at) == order[0] and at.button(key="tasks.previous").disabled  # the first one opens
    at.button(key="tasks.next").click().run()
    assert open_task(at) == order[1] == highlighted_task(at) and at.query_params["task"] == order[1]
    assert any(m.value.endswith(f"2 of {len(order)} in the table") for m in at.markdown)
    at.button(key="tasks.previous").click().run()
    assert open_task(at) == order[0]
    # any task of the table, by id: its clusters open below
    at.selectbox(key="tasks.pick").set_value(order[-1]).run()
    assert not at.exception
    assert open_task(at) == order[-1] == highlighted_task(at) and at.button(key="tasks.next").disabled
    clusters = analysis.clusters
    shown = frame_with(at, "representative answer")["representative answer"].tolist()
    assert shown == clusters.loc[clusters["task_id"] == order[-1], "representative"].tolist()
    # the picker names each task with its clusters and cause
    causes = {a.task_id: a.cause for a in analysis.headline.attribution}
    options = at.selectbox(key="tasks.pick").options
    assert options[0].startswith(f"{order[0]} · ") and options[0].endswith(causes[order[0]])


def test_a_long_table_draws_the_rows_around_the_open_task(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.views import tasks as view

    monkeypatch.setattr(view, "TABLE_ROWS", 4)
    sel = selection("drift_v2.json")
    order = sel.focus.analysis.tasks["task_id"].tolist()  # type: ignore[union-attr]
    at = run_view("tasks", sel, {"task": order[6], "sort": "log order"})
    assert task_rows(at)["task"].tolist() == order[4:8] and highlighted_task(at) == order[6]
    assert f"{len(order)} of {len(order)} tasks, in the log's order · rows 5-8 shown" in all_text(at)
    at.button(key="tasks.previous").click().run()
    at.button(key="tasks.previous").click().run()
    assert highlighted_task(at) == open_task(at) == order[4]
    assert task_rows(at)["task"].tolist() == order[3:7]


def test_the_filter_button_says_what_is_chosen() -> None:
    sel = selection("drift_v2.json")
    labels = {
        query.get("sort", "") + query.get("show", ""): run_view("tasks", sel, query).get("popover")
        for query in ({}, {"sort": "most tokens first"}, {"show": "inconsistent", "sort": "task id"})
    }
    said = {
        k: [p.proto.popover.label for p in v if "Filter" in p.proto.popover.label] for k, v in labels.items()
    }
    assert said == {
        "": ["Filter and sort"],
        "most tokens first": ["Filter and sort (most tokens first)"],
        "task idinconsistent": ["Filter and sort (1 on, task id)"],
    }


def test_a_missing_number_reads_a_dash_like_a_missing_text() -> None:
    """A format-1 log has no grading, latency or route: those cells are empty, in number and in text
    columns alike, and every table shows them as "—" (Streamlit's default is a grey "None")."""
    at = run_view("tasks", selection("plain_v1.json"))
    assert set(task_rows(at)["success"]) == {"—"}
    assert set(frame_with(at, "representative answer")["successes"]) == {"—"}
    at.session_state["tasks.detail"] = "Every round"
    at.run()
    (rounds,) = (df.value for df in at.dataframe)
    assert not {"latency_ms", "base_url"} & set(rounds.columns)  # recorded in no round: no empty column
    assert [df.proto.placeholder for df in at.dataframe] == ["—"]
    overview = run_view("overview", selection("drift_v2.json"))
    overview.session_state["overview.causes"] = True
    overview.run()
    causes = frame_with(overview, "cause", "q_value")
    assert causes["q_value"].notna().any()
    assert [df.proto.placeholder for df in overview.dataframe] == ["—"]


def test_a_shared_link_opens_the_grid_and_the_one_task_tab_opens_its_task() -> None:
    sel = selection("drift_v2.json")
    at = run_view("tasks", sel, {"tasks.tab": "Answers by round", "task": "html"})
    assert figures(at) and open_task(at) is None
    assert highlighted_task(at) == "html"  # the table still marks the link's task
    at.query_params["tasks.tab"] = "One task"  # a click on the tab
    at.session_state["tasks.tab"] = "One task"
    at.run()
    assert not at.exception
    assert "heatmap" not in [trace["type"] for fig in figures(at) for trace in fig["data"]]
    assert open_task(at) == "html"


# --- Tokens, Retries, Routes -----------------------------------------------------------------------


def test_tokens_view_matches_the_analyzer() -> None:
    sel = selection("drift_v2.json")
    analysis: Analysis = sel.focus.analysis  # type: ignore[union-attr]
    t = analysis.headline.tokens
    at = run_view("tokens", sel)
    shown = metrics(at)
    assert shown["Tokens, total"] == fmt.count(t.total)
    assert shown["On retried results"] == fmt.count(t.retry_tokens)
    assert shown["Outliers"] == str(t.outliers)
    pd.testing.assert_frame_equal(
        frame_with(at, "robust_z").reset_index(drop=True),
        analysis.token_outliers.reset_index(drop=True),
        check_dtype=False,
    )
    per_round = [f for f in figures(at) if f["layout"]["title"]["text"] == "Tokens per round"][0]
    assert [int(v) for v in decode(per_round["data"][0]["y"])] == list(t.per_round_total.values())
    for fig in figures(at):
        assert fig["layout"]["xaxis"]["title"]["text"] and fig["layout"]["yaxis"]["title"]["text"]


def test_retries_view_matches_the_analyzer() -> None:
    sel = selection("drift_v2.json")
    r = sel.focus.analysis.headline.retries  # type: ignore[union-attr]
    at = run_view("retries", sel)
    shown = metrics(at)
    assert shown["HTTP attempts"] == str(r.attempts_total)
    assert shown["Retries"] == str(r.extra_attempts)
    by_outcome = [f for f in figures(at) if f["layout"]["title"]["text"] == "Attempts by outcome"][0]
    counted = {tr["name"]: int(decode(tr["y"]).sum()) for tr in by_outcome["data"]}
    assert counted == {
        {"rate_limited": "429 rate limited", "server_error": "5xx server error"}.get(k, k): v
        for k, v in r.by_outcome.items()
    }
    by_route = [f for f in figures(at) if f["layout"]["title"]["text"] == "Attempts by route and outcome"][0]
    assert sum(int(decode(tr["x"]).sum()) for tr in by_route["data"]) == r.attempts_total
    timeline = [f for f in figures(at) if f["layout"]["title"]["text"] == "HTTP attempts over time"][0]
    assert {tr["name"] for tr in timeline["data"]} >= {"429 rate limited", "ok"}
    # the timeline's rows in time order: each result where its first attempt started, earliest on top
    analysis = sel.focus.analysis  # type: ignore[union-attr]
    attempts = analysis.attempts.dropna(subset=["started_at", "ended_at"])
    attempts = attempts[attempts["result_row"].isin(analysis.results.index[analysis.results["retried"]])]
    first = attempts.assign(row=attempts["task_id"] + " · r" + attempts["round"].astype(str))
    expected = first.groupby("row")["started_at"].min().sort_values(kind="stable").index.tolist()
    assert timeline["layout"]["yaxis"]["categoryarray"] == expected and len(expected) > 1
    assert expected != sorted(expected)  # time order is not the order of the names
    # a log latency axis carries at least three labelled ticks, whatever the range
    for fig in figures(at):
        if fig["layout"]["xaxis"].get("type") == "log":
            ticks = fig["layout"]["xaxis"]["ticktext"]
            assert len(ticks) >= 3 and all(t.replace(",", "").isdigit() for t in ticks)
    assert any(f["layout"]["xaxis"].get("type") == "log" for f in figures(at))
    for fig in figures(at):
        assert fig["layout"]["xaxis"]["title"]["text"] and fig["layout"]["yaxis"]["title"]["text"]


def test_retries_view_on_a_log_without_attempts() -> None:
    at = run_view("retries", selection("plain_v1.json"))
    assert "records no HTTP attempts" in at.info[0].value


def test_routes_view_gives_the_verdict_and_the_split() -> None:
    sel = selection("drift_v2.json")
    route = sel.focus.analysis.headline.route  # type: ignore[union-attr]
    at = run_view("routes", sel)
    assert escape(route.verdict) in [w.value for w in at.warning]
    assert metrics(at)["Your route pinned"] == "no"
    # the cause of each inconsistent task, from the log: the analyzer's attribution, as a table one
    # click away (a lazy section)
    attribution = sel.focus.analysis.headline.attribution  # type: ignore[union-attr]
    at.session_state["routes.causes"] = True
    at.run()
    causes = frame_with(at, "cause", "evidence")
    assert causes["task_id"].tolist() == [a.task_id for a in attribution]
    assert causes["cause"].tolist() == [a.cause for a in attribution]
    counts = [f"{n} {c}" for c, n in side_counts(attribution).items()]
    assert " · ".join(counts) in all_text(at)
    # base URL lint: the drifted proxy URL ends in /chat/completions
    assert any("chat/completions" in e.value for e in at.error)
    # each base URL and the URL it calls, as plain text: no code block (its highlighter alone cost
    # this view about a bare page's render)
    assert any("\n→ calls http" in t.value for t in at.text)
    assert not at.code
    # key fingerprints only
    tuples = frame_with(at, "key", "results")
    assert all(str(v).startswith("sha256:") for v in tuples["key"])
    # human headers, and only the fields that tell the tuples apart (the rest said once)
    assert not [c for c in tuples.columns if "_" in c]
    routes = sel.focus.analysis.routes  # type: ignore[union-attr]
    same = [
        c for c in routes.columns if c not in ("results", "attempts") and routes[c].astype(str).nunique() == 1
    ]
    assert same and not set(same) & set(tuples.columns)
    drifted = frame_with(at, "task")
    assert drifted["task"].tolist() == route.drifted_tasks
    assert [c for c in drifted.columns if c != "task"] and not [c for c in drifted.columns if "_" in c]


def test_routes_view_on_a_pinned_log() -> None:
    sel = selection("pinned_v2.json")
    at = run_view("routes", sel)
    assert at.success and "Route pinned" in at.success[0].value
    # one route: its fields down the page (a dozen columns across would not fit), every value shown
    (route,) = sel.focus.analysis.routes.to_dict("records")  # type: ignore[union-attr]
    shown = dict(frame_with(at, "field", "value").values.tolist())
    assert "base URL" in shown and "key" in shown and len(shown) == len(route)
    assert shown["key"] == route["key_fingerprint"] and shown["results"] == fmt.count(route["results"])


# --- Compare -------------------------------------------------------------------------------------


def test_compare_shows_the_analyzers_comparison() -> None:
    sel = selection("drift_v2.json", "pinned_v2.json")
    expected = compare([("A", sel.groups[0].analysis), ("B", sel.groups[1].analysis)])
    at = run_view("compare", sel)
    table = frame_with(at, "group", "answer gap")
    # short names, each full label once, under the table
    assert table["group"].tolist() == ["A", "B"]
    assert "**A**: shared proxy · **B**: pinned route" in all_text(at).replace("\\", "")
    gap, low, high = expected.table.loc[0, ["answer_gap_pp", "answer_gap_low", "answer_gap_high"]]
    assert table["answer gap"].iloc[0] == f"{gap:.1f} pp (95 % CI {low:.1f}–{high:.1f})"
    assert not at.dataframe or "group" not in at.dataframe[0].value  # read-only HTML, not a grid
    flips = frame_with(at, "task", "A", "B")
    assert flips["task"].tolist() == expected.flips["task_id"].tolist()
    assert {"weather", "refund"} <= set(flips["task"])
    assert set(flips["A"]) | set(flips["B"]) <= {"yes", "no", "—"}
    [diff] = expected.differences
    # the paired difference names each group once (short names), with its interval and p-value
    assert diff.sentence in all_text(at)
    assert diff.sentence.startswith("B's answer gap is ") and "than A's over " in diff.sentence
    assert "95 % CI " in diff.sentence and "p = " in diff.sentence
    # the charts are one click away (a lazy expander): no Plotly on the page until it is opened
    assert [e.label for e in at.expander] == [
        "Charts: answer gap, outcome gap, tokens and retries of each group"
    ]
    assert not figures(at)
    at.session_state["compare.charts"] = True
    at.run()
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert titles == ["Answer gap", "Outcome gap", "Tokens per task", "Retries"]
    gap = [f for f in figures(at) if f["layout"]["title"]["text"] == "Answer gap"][0]
    assert [float(decode(tr["x"])[0]) for tr in gap["data"]] == expected.table["answer_gap_pp"].tolist()
    # each value and interval is written in its group's axis label (never under an error bar), and
    # the full label is on hover
    for trace, (_, row) in zip(gap["data"], expected.table.iterrows(), strict=True):
        assert trace["y"][0] == (
            f"{row['label']}: {row['answer_gap_pp']:.1f} pp "
            f"(95 % CI {row['answer_gap_low']:.1f}–{row['answer_gap_high']:.1f})"
        )
        assert "text" not in trace
        bar = trace["error_x"]
        assert float(decode(bar["array"])[0]) == pytest.approx(row["answer_gap_high"] - row["answer_gap_pp"])
        assert float(decode(bar["arrayminus"])[0]) == pytest.approx(
            row["answer_gap_pp"] - row["answer_gap_low"]
        )
    assert [t["hovertemplate"].split("<br>")[0] for t in gap["data"]] == [
        "A: shared proxy",
        "B: pinned route",
    ]


def test_compare_opens_on_the_logs_sharing_the_baselines_tasks_and_the_baseline_can_change() -> None:
    samples = Path(__file__).parents[2] / "sample_runs"
    groups = []
    for name in ("A_baseline", "C_pinned", "E_agent_tools", "D_key_rotation"):
        loaded = load_path(samples / f"{name}.altk_runs.json")
        groups.append(data.Group(loaded.log.display_label(name), name, loaded, analyze(loaded.log)))
    sel = data.Selection(groups=groups, focus=groups[0])
    at = run_view("compare", sel)
    labels = [g.label for g in groups]
    # the agent log shares no task with A: left out until picked
    assert at.multiselect(key="compare.logs").value == [labels[0], labels[1], labels[3]]
    assert frame_with(at, "group")["group"].tolist() == ["A", "C", "D"]
    at.selectbox(key="compare.baseline").set_value(labels[1]).run()
    assert frame_with(at, "group")["group"].tolist() == ["C", "A", "D"]
    assert all(" than C's over " in t.value for t in at.text if "answer gap is" in t.value)
    assert "Baseline **C**" in all_text(at)


def test_compare_needs_two_logs() -> None:
    at = run_view("compare", selection("drift_v2.json"))
    assert "two or more logs" in at.info[0].value


@pytest.mark.parametrize("view", ["overview", "tasks", "tokens", "retries", "routes", "compare"])
def test_every_view_on_a_format1_log(view: str) -> None:
    run_view(view, selection("plain_v1.json", "drift_v2.json"))


def test_one_task_across_the_open_logs_and_its_raw_json() -> None:
    sel = selection("drift_v2.json", "pinned_v2.json")
    at = run_view("tasks", sel, {"task": "refund"})
    assert [e.label for e in at.expander][-2:] == ["This task across the 2 open logs", "Raw JSON of a result"]
    at.session_state["tasks.history"] = True
    at.session_state["tasks.raw"] = True
    at.run()
    history = frame_with(at, "log", "most common answer")
    assert history["log"].tolist() == ["A", "B"]
    assert history["label"].tolist() == ["A: shared proxy", "B: pinned route"]
    for row, g in zip(history.itertuples(), sel.groups, strict=True):
        task = g.analysis.tasks.set_index("task_id").loc["refund"]
        assert row.clusters == task["n_clusters"] and row.consistent == task["consistent"]
    # the raw result is the log's own record, as plain text
    raw = next(t.value for t in at.text if t.value.lstrip().startswith("{"))
    parsed = json.loads(raw)
    first = next(r for n, r in sel.focus.loaded.log.results() if r.task_id == "refund" and n == 1)  # type: ignore[union-attr]
    assert parsed["task_id"] == "refund" and parsed["answer"] == first.answer


def test_a_tasks_cause_names_its_p_and_q_value_once() -> None:
    samples = Path(__file__).parents[2] / "sample_runs"
    loaded = load_path(samples / "A_baseline.altk_runs.json")
    g = data.Group(loaded.log.display_label("A"), "A", loaded, analyze(loaded.log))
    tested = [a for a in g.analysis.headline.attribution if a.p_value is not None and a.q_value is not None]
    cause = next(a for a in tested if a.cause == "inconclusive")
    at = run_view("tasks", data.Selection(groups=[g], focus=g), {"task": cause.task_id})
    [line] = [t.value for t in at.text if t.value.startswith("Cause from the log")]
    assert line == cause_text(cause)
    assert line.count(p_value(cause.p_value)) == 1 and line.count(p_value(cause.q_value, "q")) == 1
    # each route's rounds on a line of its own, and together exactly what the evidence says
    assert len(cause.by_route) >= 2 and line.count("\n  • ") == len(cause.by_route)
    assert f"{cause.reason()}: {'; '.join(cause.by_route)}" == cause.evidence


def cause_text(cause: Attribution) -> str:
    """What Tasks shows for a task's cause: the reason, then each route's rounds on a line."""
    return "\n".join(
        [f"Cause from the log: {cause.cause}: {cause.reason()}", *(f"  • {r}" for r in cause.by_route)]
    )
