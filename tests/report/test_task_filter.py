"""Which tasks each filter keeps: the three states apart, causes, clusters, success, answer text."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import analyze
from analyzer.log.loader import load_path
from analyzer.report.task_filter import TaskFilter, filter_tasks, state_counts

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "app" / "drift_v2.json"
SAMPLE_A = Path(__file__).resolve().parents[2] / "sample_runs" / "A_baseline.altk_runs.json"


def ids(analysis: object, chosen: TaskFilter) -> list[str]:
    return filter_tasks(analysis, chosen)["task_id"].astype(str).tolist()  # type: ignore[arg-type]


def test_states_are_counted_apart_on_a_log_where_every_task_drifted() -> None:
    a = analyze(load_path(SAMPLE_A).log)
    assert state_counts(a.tasks) == {"inconsistent": 14, "drifted": 30, "errored": 0}
    assert len(ids(a, TaskFilter(states=("inconsistent",)))) == 14
    assert len(ids(a, TaskFilter(states=("inconsistent", "errored")))) == 14  # any of them
    assert len(ids(a, TaskFilter())) == 30


def test_each_filter_keeps_what_it_says() -> None:
    a = analyze(load_path(FIXTURE).log)
    t = a.tasks
    assert ids(a, TaskFilter(states=("errored",))) == t.loc[t["n_errors"] > 0, "task_id"].tolist()
    assert ids(a, TaskFilter(min_clusters=2)) == t.loc[t["n_clusters"] >= 2, "task_id"].tolist()
    cause = a.headline.attribution[0].cause
    assert ids(a, TaskFilter(causes=(cause,))) == [
        x.task_id for x in a.headline.attribution if x.cause == cause
    ]
    every = ids(a, TaskFilter(success="every round succeeds"))
    assert every == t.loc[(t["graded"] > 0) & (t["success_rate"] == 1), "task_id"].tolist()
    assert ids(a, TaskFilter(answer_contains="<SCRIPT>")) == ["html"]  # case-insensitive, literal
    assert ids(a, TaskFilter(id_contains="HTM")) == ["html"]
    assert ids(a, TaskFilter(answer_contains="[")) == sorted(
        {
            str(r)
            for r in a.results.loc[a.results["answer"].astype(str).str.contains("[", regex=False), "task_id"]
        },
        key=t["task_id"].tolist().index,
    )


def test_a_filter_counts_the_criteria_that_keep_fewer_than_every_task() -> None:
    assert TaskFilter().active() == 0
    assert TaskFilter(states=("drifted",), min_clusters=2, answer_contains="42").active() == 3
    assert TaskFilter(success="ungraded", id_contains="shop").active() == 2
