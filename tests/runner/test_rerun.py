"""Re-run flagged tasks through a pinned route: new log linked to its parent, before/after, verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plan_kit import rerun

from analyzer.analysis import analyze
from analyzer.cli import main
from analyzer.errors import RerunLensError
from analyzer.log.loader import load_path
from analyzer.routes.profile import RouteProfile
from analyzer.runner import default_rerun_path, select_tasks
from analyzer.runner.pinned_rerun import RerunRequest, rerun_plan
from analyzer.verdicts.before_after import rerun_plan_of
from analyzer.verdicts.default_rerun import default_rerun

SAMPLE_A = Path("sample_runs/A_baseline.altk_runs.json")
SAMPLE_C = Path("sample_runs/C_pinned.altk_runs.json")
FORMAT1 = Path("sample_runs/format1_plain_script.json")


def test_rerun_inconsistent_tasks_of_the_baseline(tmp_path: Path) -> None:
    parent = load_path(SAMPLE_A).log
    ids = select_tasks(parent, "inconsistent")
    assert ids and len(ids) < 30
    out = tmp_path / "A.rerun.json"
    report = rerun(parent, "inconsistent", profile=RouteProfile(), out=out, rounds=3, source=SAMPLE_A)
    new = load_path(out).log
    assert new.parent_run_id == parent.run_id == report.parent_run_id
    assert {str(t.task_id) for t in new.tasks or []} == set(ids)
    assert new.route and new.route.simulator and len(new.runs) == 3
    frame = report.before_after
    assert list(frame["task_id"]) == ids
    for col in (
        "clusters_before",
        "clusters_after",
        "consistent_before",
        "consistent_after",
        "tokens_mean_before",
        "tokens_mean_after",
        "retries_before",
        "retries_after",
        "verdict",
    ):
        assert col in frame.columns
    assert (frame["consistent_before"] == False).all()  # noqa: E712 - pandas comparison
    assert set(report.turned_consistent) | set(report.still_inconsistent) <= set(ids)
    assert frame["consistent_after"].eq(True).any(), "a pinned route cures the format tasks of the baseline"
    # 3 agreeing rounds after a 5-round parent are not beyond chance: such tasks are inconclusive,
    # each with its chance of agreeing anyway and the rounds that would decide
    unsure = frame[frame["verdict"] == "inconclusive"]
    assert len(unsure) and unsure["chance_p"].gt(0.05).all() and unsure["rounds_needed"].notna().any()
    assert set(frame["verdict"]) <= {"route", "both", "model", "regressed", "inconclusive"}
    text = "\n".join(report.lines())
    assert "agreed on the pinned route, but not beyond chance" in text
    assert all(line.text in report.lines() for line in report.verdict())
    assert "would have" in text and "by chance alone" in text


def test_selection_by_ids_and_errors(tmp_path: Path) -> None:
    parent = load_path(SAMPLE_C).log
    assert select_tasks(parent, ["shop-001", "cal-003"]) == ["shop-001", "cal-003"]
    with pytest.raises(RerunLensError, match="not in the log"):
        select_tasks(parent, ["nope"])
    report = rerun(parent, ["shop-003"], profile=RouteProfile(), out=tmp_path / "one.json", rounds=2)
    assert report.before_after["verdict"].tolist() == ["stable"]


def test_format1_parent_needs_a_task_file(tmp_path: Path) -> None:
    parent = load_path(FORMAT1).log
    with pytest.raises(RerunLensError, match="--tasks"):  # its ids: no pinned rounds decide them by default
        rerun(parent, select_tasks(parent, "inconsistent"), profile=RouteProfile(), out=tmp_path / "x.json")


def test_default_rerun_path() -> None:
    assert default_rerun_path("runs/A.altk_runs.json") == Path("runs/A.rerun.altk_runs.json")
    assert default_rerun_path("runs/x.json", "abc") == Path("runs/x.rerun-abc.altk_runs.json")


def test_cli_rerun_prints_before_after(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.json"
    code = main(
        [
            "rerun",
            str(SAMPLE_A),
            "--only",
            "inconsistent",
            "--repeat",
            "2",
            "--out",
            str(out),
            "--quiet",
            "--json",
        ]
    )
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["parent_run_id"] == "sample-A_baseline"
    assert payload["tasks"] and "verdict" in payload["tasks"][0]
    assert load_path(out).log.parent_run_id == "sample-A_baseline"


def test_cli_rerun_nothing_to_do_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = tmp_path / "clean.json"
    main(
        [
            "run",
            "--tasks",
            "tests/fixtures/tasks/three_tasks.json",
            "--repeat",
            "1",
            "--out",
            str(clean),
            "--quiet",
        ]
    )
    capsys.readouterr()
    assert main(["rerun", str(clean), "--only", "inconsistent", "--out", str(tmp_path / "n.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rerunlens: error:") and "\n" not in err


def test_cli_rerun_default_output_never_overwrites(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = tmp_path / "A.altk_runs.json"
    parent.write_bytes(SAMPLE_A.read_bytes())
    for _ in range(2):
        assert main(["rerun", str(parent), "--only", "shop-002", "--repeat", "1", "--quiet"]) == 0
    capsys.readouterr()
    assert (tmp_path / "A.rerun.altk_runs.json").exists() and (tmp_path / "A.rerun-2.altk_runs.json").exists()
    assert main(["run", "--tasks", "sample_runs/tasks.json", "--out", str(parent), "--quiet"]) == 2
    assert "already exists" in capsys.readouterr().err


def _parent(tmp_path: Path) -> Path:
    from plan_kit import run_tasks

    from analyzer.log.taskfile import load_tasks

    out = tmp_path / "parent.altk_runs.json"
    tasks = load_tasks("tests/fixtures/tasks/three_tasks.json")
    run_tasks(tasks, RouteProfile(model="gpt-4o", temperature=0.7, top_p=0.9, max_tokens=64), out, rounds=2)
    return out


def test_rerun_defaults_to_the_parents_sampling_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = _parent(tmp_path)
    task = str(load_path(parent).log.tasks[0].task_id)  # type: ignore[index]
    out = tmp_path / "same.json"
    assert main(["rerun", str(parent), "--only", task, "--out", str(out), "--repeat", "2", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "Re-run route: the built-in simulator" in captured.out
    assert "model gpt-4o, temperature 0.7, top_p 0.9" in captured.out
    assert "Warning" not in captured.out + captured.err
    new = load_path(out).log
    assert new.route is not None
    assert (new.route.model, new.route.temperature, new.route.top_p, new.route.max_tokens) == (
        "gpt-4o",
        0.7,
        0.9,
        64,
    )
    assert new.route.seed == 42  # pinned by the profile, not inherited
    data = json.loads(out.read_text())
    assert data["rerun_of"]["parent_route"]["model"] == "gpt-4o"
    assert "differs_from_parent" not in data["rerun_of"]


def test_rerun_warns_when_its_sampling_differs_from_the_parents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = _parent(tmp_path)
    task = str(load_path(parent).log.tasks[0].task_id)  # type: ignore[index]
    out = tmp_path / "differs.json"
    args = ["rerun", str(parent), "--only", task, "--out", str(out), "--repeat", "2", "--quiet"]
    assert main([*args, "--temperature", "0", "--model", "gpt-4o-mini"]) == 0
    captured = capsys.readouterr()
    assert "the re-run's sampling differs from the parent's" in captured.out
    assert "model 'gpt-4o' -> 'gpt-4o-mini'" in captured.out and "temperature 0.7 -> 0.0" in captured.out
    assert "Warning:" in captured.err
    data = json.loads(out.read_text())
    assert data["rerun_of"]["differs_from_parent"] == [
        "model 'gpt-4o' -> 'gpt-4o-mini'",
        "temperature 0.7 -> 0.0",
    ]


def test_a_rerun_without_rounds_runs_the_rounds_that_could_decide(tmp_path: Path) -> None:
    parent = load_path(SAMPLE_A).log
    ids = select_tasks(parent, "inconsistent")
    plan = rerun_plan(RerunRequest(parent, "inconsistent", SAMPLE_A), RouteProfile(), tmp_path / "r.json")
    planned = default_rerun(analyze(parent), ids, leave_out=True)  # what no pinned rounds decide is left out
    assert plan.task_rounds == planned.rounds() and planned.left_out
    assert plan.rounds == planned.plan.rounds == max(planned.rounds().values())
    assert (
        {str(t.task_id) for t in plan.tasks}
        == set(planned.rounds())
        < set(rerun_plan_of(analyze(parent), ids).by_task())
    )
    assert plan.rounds != RouteProfile().rounds  # not the profile's
    given = rerun_plan(
        RerunRequest(parent, "inconsistent", SAMPLE_A), RouteProfile(), tmp_path / "g.json", rounds=4
    )
    assert given.rounds == 4


def test_a_request_that_carries_the_parents_analysis_never_analyses_the_parent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import analyzer.runner.pinned_rerun as pinned_rerun
    import analyzer.verdicts.before_after as before_after
    from analyzer.runner.plan import RunControls

    parent = load_path(SAMPLE_A).log
    analysis = analyze(parent)  # what the page already holds
    analysed: list[object] = []

    def counting(log: object, *args: object, **kwargs: object) -> object:
        analysed.append(log)
        return analyze(log, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pinned_rerun, "analyze", counting)
    monkeypatch.setattr(before_after, "analyze", counting)
    request = RerunRequest(parent, "inconsistent", SAMPLE_A, analysis=analysis)
    plan = rerun_plan(request, RouteProfile(), tmp_path / "r.json", rounds=2)
    report = pinned_rerun.rerun(request, plan, RunControls())
    assert parent not in analysed  # selection, rounds and the before/after all read the page's analysis
    assert len(analysed) == 1  # the re-run's own log, once
    assert list(report.before_after["task_id"]) == select_tasks(parent, "inconsistent")
