"""AppWorld experiment outputs: a folder of experiment folders (one per round), written by AppWorld's
own writers (tests/fixtures/foreign/appworld/SOURCE.md), checked against the figures AppWorld's
evaluator wrote into each experiment's `evaluations/test_normal.json`."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections import defaultdict
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.cli.main import main
from analyzer.errors import LogError
from analyzer.importers import detect_format, import_to_file, list_any_logs, load_any, load_any_bytes
from analyzer.log.loader import load_path

RUNS = Path(__file__).parents[1] / "fixtures" / "foreign" / "appworld" / "repeated_runs"
EXPERIMENTS = ["react_gpt4o_run1", "react_gpt4o_run2", "react_gpt4o_run3"]


def _own_aggregate(experiment: str) -> dict[str, float]:
    path = RUNS / experiment / "evaluations" / "test_normal.json"
    return json.loads(path.read_text(encoding="utf-8"))["aggregate"]


def _zip_of(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"outputs/{path.relative_to(folder).as_posix()}")
    return buffer.getvalue()


def test_each_experiment_is_a_round_and_matches_appworlds_own_goal_completion() -> None:
    log = load_any(RUNS).log
    assert [len(run) for run in log.runs] == [4, 4, 4]
    assert [r.source_ref.split("/")[0] for r in (run[0] for run in log.runs)] == EXPERIMENTS
    # AppWorld's own figures, as its Metric wrote them: 75.0 / 50.0, 75.0 / 50.0, 50.0 / 50.0
    for experiment, run in zip(EXPERIMENTS, log.runs, strict=True):
        own = _own_aggregate(experiment)
        passed = [r.success is True for r in run]  # an error is a failure to AppWorld
        assert 100 * sum(passed) / len(run) == pytest.approx(own["task_goal_completion"])
        scenarios: dict[str, list[bool]] = defaultdict(list)
        for r, ok in zip(run, passed, strict=True):
            scenarios[str(r.task_id).split("_")[0]].append(ok)
        sgc = 100 * sum(all(v) for v in scenarios.values()) / len(scenarios)
        assert sgc == pytest.approx(own["scenario_goal_completion"])


def test_crash_before_the_first_step_is_an_error_not_a_failure() -> None:
    loaded = load_any(RUNS)
    crashed = [r for run in loaded.log.runs for r in run if r.status == "error"]
    assert [(r.round, r.task_id, r.error.type) for r in crashed] == [(3, "21abae1_2", "crashed")]
    assert crashed[0].success is None and crashed[0].answer is None
    assert any("never ran any code" in w and "task_goal_completion is lower" in w for w in loaded.warnings)
    outcome = analyze(loaded.log).headline.outcome
    assert outcome is not None
    # hand-computed over graded results: fd1f8fa_1 3/3, fd1f8fa_2 2/3, 21abae1_1 1/3, 21abae1_2 2/2
    assert outcome.mean_at_n == pytest.approx((1 + 2 / 3 + 1 / 3 + 1) / 4)
    assert outcome.uneven_n


def test_answer_comes_from_the_complete_task_call_and_actions_hide_tokens() -> None:
    log = load_any(RUNS).log
    by = {(r.round, r.task_id): r for run in log.runs for r in run}
    assert [by[(n, "21abae1_1")].answer for n in (1, 2, 3)] == ["38.5", "42", "38.5"]
    assert by[(1, "21abae1_2")].answer == "41" and by[(2, "21abae1_2")].answer == "41"
    assert by[(1, "fd1f8fa_1")].answer == "null"  # complete_task() without an answer, as AppWorld writes it
    assert by[(1, "21abae1_1")].score == pytest.approx(0.5)  # 1 of 2 tests passed
    steps = [s.model_dump() for s in by[(1, "21abae1_1")].trajectory]
    assert [s["name"] for s in steps] == [
        "GET /supervisor/account_passwords",
        "POST /venmo/auth/token",
        "GET /venmo/transactions",
        "POST /supervisor/message",
    ]
    assert steps[1]["arguments"] == {"username": "joyce-weav@gmail.com", "password": "***"}
    assert steps[2]["arguments"] == {"query": "dinner"}  # the access token (new at each login) is left out
    text = analyze(log, "exact")
    actions = analyze(log, "actions")
    assert text.headline.consistent_tasks == 3  # 21abae1_1 answered 38.5, 42, 38.5
    # fd1f8fa_1 did the same calls in all three rounds; fd1f8fa_2 shuffled once; 21abae1_2 sent 41
    # as a number once and as text once; 21abae1_1's answers differ
    assert actions.headline.consistent_tasks == 1


def test_a_zip_of_the_folder_reads_the_same(tmp_path: Path) -> None:
    data = _zip_of(RUNS)
    assert detect_format(data, "runs.zip") == "appworld"
    zipped = load_any_bytes(data, "runs.zip").log
    folder = load_any(RUNS).log
    strip = ("source_ref",)
    assert [[r.model_dump(exclude=set(strip)) for r in run] for run in zipped.runs] == [
        [r.model_dump(exclude=set(strip)) for r in run] for run in folder.runs
    ]


def test_one_experiment_folder_is_one_round_with_a_warning() -> None:
    loaded = load_any(RUNS / "react_gpt4o_run2")
    assert [len(run) for run in loaded.log.runs] == [4]
    assert any("one experiment folder is one round" in w for w in loaded.warnings)


def test_report_md_stands_in_for_a_missing_evaluations_file(tmp_path: Path) -> None:
    shutil.copytree(RUNS / "react_gpt4o_run2", tmp_path / "run2")
    (tmp_path / "run2" / "evaluations" / "test_normal.json").unlink()
    run = load_any(tmp_path / "run2").log.runs[0]
    by = {r.task_id: r for r in run}
    assert by["fd1f8fa_2"].success is False and by["fd1f8fa_2"].score == pytest.approx(2 / 3)
    assert by["21abae1_1"].success is True
    (tmp_path / "run2" / "tasks" / "fd1f8fa_2" / "evaluation" / "report.md").unlink()
    loaded = load_any(tmp_path / "run2")
    unevaluated = [r for r in loaded.log.runs[0] if r.status == "error"]
    assert [(r.task_id, r.error.type) for r in unevaluated] == [("fd1f8fa_2", "not_evaluated")]
    assert any("never evaluated" in w for w in loaded.warnings)


@pytest.mark.parametrize(
    ("relative", "content", "message"),
    [
        (
            "react_gpt4o_run2/evaluations/test_normal.json",
            '{"aggregate": {}, "individual": {"fd1f8fa_1": {"success": "yes"}}}',
            "react_gpt4o_run2/evaluations/test_normal.json: individual.fd1f8fa_1.success: "
            "expected true or false",
        ),
        (
            "react_gpt4o_run1/evaluations/test_normal.json",
            '{"aggregate": {}, "individual": ',
            "react_gpt4o_run1/evaluations/test_normal.json: not valid JSON",
        ),
        (
            "react_gpt4o_run3/tasks/fd1f8fa_1/logs/api_calls.jsonl",
            '{"method": "get", "url": "/a", "data": {}}\n{"method": "get", "url": ',
            "react_gpt4o_run3/tasks/fd1f8fa_1/logs/api_calls.jsonl: line 2: not valid JSON",
        ),
        (  # a request whose data is text would silently lose its answer and arguments
            "react_gpt4o_run3/tasks/fd1f8fa_1/logs/api_calls.jsonl",
            '{"method": "post", "url": "/supervisor/message", "data": "answer=41"}\n',
            "react_gpt4o_run3/tasks/fd1f8fa_1/logs/api_calls.jsonl: line 1.data: "
            "expected an object, got a string",
        ),
    ],
)
def test_a_damaged_file_is_one_line_naming_file_and_place(
    relative: str, content: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(RUNS, tmp_path / "runs")
    (tmp_path / "runs" / relative).write_text(content, encoding="utf-8")
    with pytest.raises(LogError) as info:
        load_any(tmp_path / "runs")
    assert str(info.value).startswith(f"{tmp_path / 'runs'}/{message}")
    assert "\n" not in str(info.value)
    assert main(["analyze", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_import_writes_a_native_log_beside_the_folder(tmp_path: Path) -> None:
    shutil.copytree(RUNS, tmp_path / "repeated_runs")
    out = import_to_file(tmp_path / "repeated_runs")
    assert out == tmp_path / "repeated_runs.altk_runs.json"
    reread = load_path(out).log
    assert reread.imported_from["format"] == "appworld"
    assert reread.imported_from["version"] == "appworld 0.1.3.post1"
    for key in ("exact", "actions"):
        assert analyze(reread, key).report() == analyze(load_any(RUNS).log, key).report()


def test_a_folder_without_appworld_outputs_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(LogError, match="no AppWorld experiment outputs"):
        load_any(tmp_path)


def test_runs_folder_lists_the_appworld_folder_and_zip_once(tmp_path: Path) -> None:
    shutil.copytree(RUNS, tmp_path / "appworld_runs")
    shutil.copytree(RUNS / "react_gpt4o_run1", tmp_path / "single_experiment")
    (tmp_path / "outputs.zip").write_bytes(_zip_of(RUNS))
    (tmp_path / "other.zip").write_bytes(_zip_of(RUNS / "react_gpt4o_run1" / "evaluations"))
    listed = list_any_logs(tmp_path)
    assert [p.name for p in listed] == ["appworld_runs", "outputs.zip", "single_experiment"]
    assert [len(load_any(p).log.runs) for p in listed] == [3, 3, 1]


EVALUATION = json.loads(
    (RUNS / "react_gpt4o_run1" / "evaluations" / "test_normal.json").read_text(encoding="utf-8")
)
ODD_VALUES = [None, True, -1, 1.5, "", "x", [], {}, [1], {"a": 1}]
PLACES = [
    ("individual",),
    ("individual", "21abae1_1"),
    *[("individual", "21abae1_1", k) for k in EVALUATION["individual"]["21abae1_1"]],
    ("individual", "21abae1_1", "passes", 0),
]


@pytest.mark.parametrize("place", PLACES, ids=lambda p: ".".join(map(str, p)))
@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_any_odd_value_in_the_evaluations_file_is_a_log_or_one_line(
    place: tuple, value: object, tmp_path: Path
) -> None:
    edited = json.loads(json.dumps(EVALUATION))
    target = edited
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    shutil.copytree(RUNS / "react_gpt4o_run1", tmp_path / "run1")
    (tmp_path / "run1" / "evaluations" / "test_normal.json").write_text(json.dumps(edited), encoding="utf-8")
    try:
        load_any(tmp_path / "run1")
    except LogError as exc:
        assert "\n" not in str(exc) and str(exc).startswith(f"{tmp_path / 'run1'}/")


def test_an_uploaded_zip_is_kept_as_the_log_it_imports_to(tmp_path: Path) -> None:
    from analyzer.jobs.uploads import store_log_upload

    kept = store_log_upload(tmp_path, "appworld_runs.zip", _zip_of(RUNS))
    assert kept == tmp_path / "appworld_runs.json"
    assert [len(run) for run in load_path(kept).log.runs] == [4, 4, 4]


def test_rounds_follow_the_experiment_names_in_natural_order() -> None:
    from analyzer.importers.appworld_tree import Tree, experiments

    names = ["exp_run10/", "exp_run2/", "exp_run1/"]
    tree = Tree("t", {f"{n}evaluations/dev.json": b"{}" for n in names})
    tree.files["exp_run2/tasks/a_1/dbs/x.jsonl"] = b""  # databases mark nothing
    assert experiments(tree) == ["exp_run1/", "exp_run2/", "exp_run10/"]
