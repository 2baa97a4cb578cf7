"""Inspect AI logs from four Inspect versions, made by the real package with the same script.

Before inspect-ai 0.3.123 the log has no `output.completion`: the answer is only in
`output.choices[0].message.content` (tests/fixtures/foreign/inspect_ai/SOURCE.md). Each log: `yesno`
answered "No" then "Yes.", `sum` "4" twice, `blank` "Blue" then nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.cli.main import main
from analyzer.importers import load_any

HERE = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai"
VERSIONS = ["0.3.42", "0.3.100", "0.3.130", "0.3.285"]


def _path(version: str) -> Path:
    return HERE / f"versions_{version}.json"


def test_the_old_log_really_has_no_completion_field() -> None:
    for version in ("0.3.42", "0.3.100"):
        old = json.loads(_path(version).read_text(encoding="utf-8"))
        assert old["eval"]["packages"]["inspect_ai"] == version
        assert all("completion" not in s["output"] for s in old["samples"])
    new = json.loads(_path("0.3.130").read_text(encoding="utf-8"))
    assert all("completion" in s["output"] for s in new["samples"])


@pytest.mark.parametrize("version", VERSIONS)
def test_answers_read_wherever_the_version_keeps_them(version: str) -> None:
    loaded = load_any(_path(version))
    answers = {(r.task_id, r.round): r.answer for rnd in loaded.log.runs for r in rnd}
    assert answers[("yesno", 1)] == "No" and answers[("yesno", 2)] == "Yes."
    assert answers[("sum", 1)] == answers[("sum", 2)] == "4"
    assert answers[("blank", 1)] == "Blue" and answers[("blank", 2)] == ""
    said = [w for w in analyze(loaded.log).headline.warnings if "no answer" in w]
    assert len(said) == 1 and said[0].startswith("1 result gave no answer") and "(blank)" in said[0]


@pytest.mark.parametrize("version", VERSIONS)
def test_gap_is_the_truth_and_the_missing_answer_is_apart(version: str) -> None:
    own = json.loads(_path(version).read_text(encoding="utf-8"))
    h = analyze(load_any(_path(version)).log).headline
    # yesno: No / Yes. -> inconsistent; sum: 4 / 4 -> consistent; blank: one answer -> apart
    assert h.tasks_measured == 2 and h.single_task_ids == ["blank"]
    assert h.answer_gap_pp == 50.0 and h.consistent_tasks == 1
    assert h.no_answer == 1 and h.no_answer_tasks == 1
    # Mean@n = (1/2 + 2/2 + 1/2) / 3 = 2/3, Inspect's own accuracy
    accuracy = own["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert h.outcome is not None and h.outcome.mean_at_n == pytest.approx(2 / 3) == accuracy


def test_fail_above_sees_the_gap_of_an_old_log(capsys: pytest.CaptureFixture[str]) -> None:
    # the gap was 0 pp (and the exit 0) when the old log's answers were read as ""
    assert main(["analyze", str(_path("0.3.100")), "--fail-above", "20"]) == 1
    assert "answer gap 50.0 pp" in capsys.readouterr().out
