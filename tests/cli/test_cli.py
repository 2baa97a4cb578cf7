"""The `rerunlens` command line, invoked in-process; side effects checked through the library.

Hand-computed figures for sample_runs/format1_plain_script.json (12 tasks x 5 rounds):
exact key: 5 tasks give one answer every round (cart total, meetings, draft subject, largest pdf,
wifi password) -> rate 5/12, gap 58.33 pp. normalized also joins "Anker PowerLine III" with
"anker powerline iii." and "$12.50 from Lumen Books" with its trailing-dot twin -> 7/12, 41.67 pp.
The script stored 100 pp (it compared different tasks within a round).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.cli import build_parser, main
from analyzer.log.loader import load_path
from analyzer.log.schema import attribute_docstrings, log_json_schema
from analyzer.log.taskfile import load_tasks

ROOT = Path(__file__).parents[2]
FORMAT1 = ROOT / "sample_runs" / "format1_plain_script.json"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "runs"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_analyze_report_on_format1_sample(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "analyze", str(FORMAT1))
    assert code == 0, err
    assert "12 tasks · 5 rounds · 60 results · 0 errored" in out
    assert "consistent tasks   5/12 (41.7 %) · answer gap 58.3 pp" in out
    assert "stored gap 100 pp, recomputed 58.33 pp" in out
    assert "Flagged for a re-run: 7 tasks, inconsistent ones first" in out
    assert "cal-next-free-slot: inconsistent" in out
    assert "Outcome: no success or score recorded" in out


def test_analyze_json_keys_and_values(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "analyze", str(FORMAT1), "--key", "normalized", "--json")
    assert code == 0
    report = json.loads(out)
    library = analyze(load_path(FORMAT1).log, "normalized").report()
    assert set(report) == set(library) | {"source"}  # the library's report (its keys are pinned there)
    assert report["tasks"] == 12 and report["rounds"] == 5
    assert report["answer_key"] == "normalized"
    assert report["answer_consistency_rate"] == pytest.approx(7 / 12)
    assert report["answer_gap_pp"] == pytest.approx(500 / 12)
    assert report["outcome"] is None
    raw = json.loads(FORMAT1.read_text())
    assert report["tokens"]["total"] == sum(r["total_tokens"] for rnd in raw["runs"] for r in rnd)
    assert report["tokens"]["per_task_mean"] == pytest.approx(report["tokens"]["total"] / 12)
    assert report["route"]["pinned"] is None  # format 1 records no route
    assert {f["task_id"] for f in report["flagged"]} == {
        "cal-next-free-slot",
        "mail-unread-from-boss",
        "files-count-images",
        "pay-monthly-subscriptions",
        "contacts-dentist-phone",
    }
    assert all(f["reasons"] == ["inconsistent"] for f in report["flagged"])


def test_fail_above_exits_1_only_above_threshold(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "analyze", str(FORMAT1), "--fail-above", "50")
    assert code == 1
    assert "answer gap 58.33 pp is above 50 pp" in err
    code, _, _ = run(capsys, "analyze", str(FORMAT1), "--fail-above", "60")
    assert code == 0


def test_bad_file_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    bad = FIXTURES / "bad" / "negative_tokens.json"
    code, out, err = run(capsys, "analyze", str(bad))
    assert code == 2
    assert out == ""
    assert err == f"rerunlens: error: {bad}: runs[0][0].prompt_tokens: must not be negative (got -5)\n"


def test_compare_lists_groups_and_flips(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "compare", str(FORMAT1), str(FORMAT1), "--label", "exact run", "--label", "again", "--json"
    )
    assert code == 0, err
    report = json.loads(out)
    assert [g["label"] for g in report["groups"]] == ["exact run", "again"]
    assert report["groups"][0]["answer_gap_pp"] == pytest.approx(700 / 12)
    assert report["flips"] == []
    code, out, _ = run(capsys, "compare", str(FORMAT1), str(FIXTURES / "good" / "mixed_task_ids.json"))
    assert code == 0
    assert "format1_plain_script.json" in out and "mixed_task_ids.json" in out
    assert "58.3 pp" in out


def test_compare_needs_two_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "compare", str(FORMAT1))
    assert code == 2
    assert "at least two run logs" in err


def test_export_flagged_and_csv(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    flagged = tmp_path / "flagged.json"
    csv = tmp_path / "tasks.csv"
    code, out, err = run(capsys, "export", str(FORMAT1), "--flagged", str(flagged), "--csv", str(csv))
    assert code == 0
    assert "wrote 7 flagged tasks" in out
    assert "7 tasks have no prompt in the log" in err
    entries = json.loads(flagged.read_text())
    assert entries[0]["prompt"] is None and entries[0]["reasons"] == ["inconsistent"]
    rows = csv.read_text().splitlines()
    assert len(rows) == 13 and rows[0].startswith("task_id,")


def test_export_takes_prompts_from_task_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = load_path(FORMAT1).log
    tasks = tmp_path / "tasks.json"
    ids = sorted({str(r.task_id) for _, r in log.results()})
    tasks.write_text(json.dumps([{"task_id": t, "prompt": f"Do {t}", "expected": "x"} for t in ids]))
    out_file = tmp_path / "flagged.json"
    code, _, err = run(capsys, "export", str(FORMAT1), "--flagged", str(out_file), "--tasks", str(tasks))
    assert code == 0 and "no prompt" not in err
    exported = load_tasks(out_file)  # the export is itself a valid task file
    assert len(exported) == 7
    assert all(t.prompt == f"Do {t.task_id}" for t in exported)


def test_export_needs_an_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "export", str(FORMAT1))
    assert code == 2 and "--flagged" in err


def test_schema_is_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "schema")
    assert code == 0
    schema = json.loads(out)
    assert schema["title"] == "RunLog"
    assert "runs" in schema["required"]
    assert schema["$defs"]["Result"]["properties"]["total_tokens"]["description"]


def test_every_command_has_help_with_example_and_readme_mention() -> None:
    readme = (ROOT / "README.md").read_text()
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert {"analyze", "compare", "export", "schema"} <= set(sub.choices)
    for name, command in sub.choices.items():
        assert command.description, name
        assert command.epilog and "example:" in command.epilog and f"rerunlens {name}" in command.epilog, name
        assert f"rerunlens {name}" in readme, f"README does not mention `rerunlens {name}`"


def test_the_readme_and_dashboard_help_agree_on_the_runs_folder_and_name_the_port() -> None:
    readme = " ".join((ROOT / "README.md").read_text().replace("`", "").split())
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    dashboard = " ".join(sub.choices["dashboard"].format_help().split())
    for said in (
        "$RERUNLENS_RUNS_DIR",
        "./runs under the folder you start it from",
        "created on the first save",
    ):
        assert said in readme and said in dashboard, said
    assert "the app's" not in dashboard
    set_up = readme.split("## Set up", 1)[1].split("## The dashboard", 1)[0]
    assert "rerunlens dashboard --port 8502" in set_up and "a free one" in set_up and "--port" in dashboard
    assert re.search(r"took \d+ min \d+ s", set_up)  # how long `bash scripts/test.sh` took, measured


def test_report_lists_inconsistent_tasks_before_drift_only_ones(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "analyze", str(ROOT / "sample_runs" / "A_baseline.altk_runs.json"))
    assert code == 0
    listed = out.split("Flagged for a re-run:")[1].splitlines()[1:]
    reasons = [line.split(": ", 1)[1] for line in listed if ": " in line]
    first_drift_only = reasons.index("route-drifted")
    assert all("inconsistent" in r for r in reasons[:first_drift_only])
    assert not any("inconsistent" in r for r in reasons[first_drift_only:])


def test_unwritable_output_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "export", str(FORMAT1), "--csv", str(tmp_path))
    assert code == 2
    assert err.startswith("rerunlens: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_fail_above_must_be_a_finite_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["analyze", str(FORMAT1), "--fail-above", "nan"])
    assert info.value.code == 2
    assert "'nan' is not a finite number" in capsys.readouterr().err


def test_csv_export_defuses_spreadsheet_formulas(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = tmp_path / "evil.json"
    runs = [[{"task_id": '=HYPERLINK("http://x")', "answer": a}] for a in ("a", "b")]
    log.write_text(json.dumps({"runs": runs}))
    out = tmp_path / "t.csv"
    assert run(capsys, "export", str(log), "--csv", str(out))[0] == 0
    row = out.read_text().splitlines()[1]
    assert row.startswith("\"'=HYPERLINK(")


def test_schema_describes_fields_from_their_docstrings() -> None:
    """The models skip pydantic's docstring collection (50 ms a start); the schema reads them itself."""
    found = attribute_docstrings(
        'class A:\n    x: int\n    """The x.\n\n    More."""\n    y: int\n    z = 1\n    """no"""\n'
    )
    assert found == {"A": {"x": "The x.\n\nMore."}}
    schema = log_json_schema()
    assert "prompt" in schema["$defs"]["Result"]["properties"]["prompt_tokens"]["description"].lower()
    assert schema["$defs"]["Route"]["properties"]["base_url"]["description"]
