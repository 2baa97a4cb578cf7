"""Other tools' logs and step resampling through the command line: read as they are, saved once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.cli import main
from analyzer.jobs.uploads import store_log_upload
from analyzer.log.loader import load_path

FOREIGN = Path(__file__).resolve().parents[1] / "fixtures" / "foreign"
TAU = FOREIGN / "tau_bench" / "gpt-4o-airline.excerpt.json"
INSPECT = FOREIGN / "inspect_ai" / "mock_epochs.eval"


def test_analyze_reads_a_tau_bench_file_as_it_is(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(TAU), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # tau-bench's own pass^k over this excerpt (its SOURCE.md): 0.5, 1/3, 0.25, 0.2 for k = 1..4
    assert report["outcome"]["pass_hat_k"]["1"] == pytest.approx(0.5)
    assert report["outcome"]["pass_hat_k"]["4"] == pytest.approx(0.2)


def test_import_writes_a_native_log_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "inspect.altk_runs.json"
    assert main(["import", str(INSPECT), "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}"
    log = load_path(out).log
    assert log.imported_from and log.imported_from["format"]
    before = out.read_bytes()
    assert main(["import", str(INSPECT), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(out) in err
    assert out.read_bytes() == before


def test_an_uploaded_eval_file_is_kept_as_the_log_it_imports_to(tmp_path: Path) -> None:
    kept = store_log_upload(tmp_path, INSPECT.name, INSPECT.read_bytes())
    assert kept.name == "mock_epochs.json" and kept.parent == tmp_path
    assert load_path(kept).log.results()  # the native loader reads the kept copy


def test_resample_scores_each_step_of_a_recorded_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = Path(__file__).resolve().parents[2] / "sample_runs" / "E_agent_tools.altk_runs.json"
    out = tmp_path / "steps.json"
    args = ["resample", str(agent), "--task", "agent-cheapest-monitor", "--samples", "3", "--steps", "0", "3"]
    assert main([*args, "--out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [s["step"] for s in report["steps"]] == [0, 3]
    assert all(0.0 <= s["uncertainty"] <= 1.0 for s in report["steps"])
    assert set(report["flagged"]) <= {0, 3}
    saved = load_path(out).log
    assert saved.parent_run_id == "sample-E_agent_tools" or saved.parent_run_id
    assert main([*args, "--out", str(out)]) == 2  # never over an existing log


def test_what_an_importer_warns_is_in_every_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A single AppWorld experiment is one round; the importer says so, and the command line (text,
    JSON, the HTML report, and an imported file read back) shows it, not only the dashboard."""
    one_round = FOREIGN / "appworld" / "repeated_runs" / "react_gpt4o_run1"
    said = "one experiment folder is one round"
    assert main(["analyze", str(one_round)]) == 0
    assert said in capsys.readouterr().out
    assert main(["analyze", str(one_round), "--json"]) == 0
    assert any(said in w for w in json.loads(capsys.readouterr().out)["warnings"])
    assert main(["report", str(one_round), "-o", str(tmp_path / "r.html")]) == 0
    assert said in (tmp_path / "r.html").read_text(encoding="utf-8")
    out = tmp_path / "aw.altk_runs.json"
    assert main(["import", str(one_round), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["analyze", str(out)]) == 0
    assert said in capsys.readouterr().out
