"""Imported Inspect logs carry their prompts (each sample's `input`), so `export --flagged` writes
them and a re-run of the flagged tasks works; a log whose source records no prompts says so in
words that fit an imported log (not "format 1")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.cli import main
from analyzer.errors import LogError, RerunLensError
from analyzer.importers import load_any, load_any_bytes
from analyzer.report.export import missing_prompts_note
from analyzer.runner.pinned_rerun import task_specs

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"
EVAL = FOREIGN / "inspect_ai" / "mock_epochs.eval"
JSON = FOREIGN / "inspect_ai" / "mock_epochs.json"
APPWORLD = FOREIGN / "appworld" / "repeated_runs"


def _own() -> dict:
    return json.loads(JSON.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", [EVAL, JSON], ids=["eval", "json"])
def test_each_sample_input_is_its_tasks_prompt(path: Path) -> None:
    log = load_any(path).log
    inputs = {s["id"]: (s["input"], s["target"]) for s in _own()["samples"]}
    assert log.tasks is not None
    assert {t.task_id: (t.prompt, t.expected) for t in log.tasks} == inputs
    assert inputs["planet"][0] == "Which is the largest planet? (planet)"


def test_a_chat_input_keeps_the_user_text_and_says_what_it_dropped() -> None:
    own = _own()
    for sample in own["samples"]:
        if sample["id"] == "sum":
            sample["input"] = [
                {"role": "system", "content": "Answer with a number."},
                {"role": "user", "content": [{"type": "text", "text": "What is 2 + 2?"}]},
                {"role": "user", "content": "Only the digit."},
            ]
    loaded = load_any_bytes(json.dumps(own).encode(), "chat.json")
    spec = next(t for t in loaded.log.tasks or [] if t.task_id == "sum")
    assert spec.prompt == "What is 2 + 2?\n\nOnly the digit."
    assert any(
        "the input of 1 task is a chat" in w and "user messages' text only" in w for w in loaded.warnings
    )


def test_an_input_of_the_wrong_type_is_one_line() -> None:
    own = _own()
    own["samples"][4]["input"] = 7
    with pytest.raises(LogError, match=r"^i\.json: samples\[4\]\.input: expected a string or a list of chat"):
        load_any_bytes(json.dumps(own).encode(), "i.json")


def test_export_writes_the_prompts_and_no_format_1_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "flagged.json"
    assert main(["export", str(EVAL), "--flagged", str(out)]) == 0
    entries = json.loads(out.read_text(encoding="utf-8"))
    assert entries and all(isinstance(e["prompt"], str) and e["prompt"] for e in entries)
    assert "format 1" not in capsys.readouterr().err


def test_the_flagged_tasks_of_an_imported_inspect_log_rerun_on_the_simulator(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rerun.altk_runs.json"
    code = main(["rerun", str(EVAL), "--only", "flagged", "--simulator", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    rerun = json.loads(out.read_text(encoding="utf-8"))
    flagged = {e["task_id"] for e in rerun["tasks"]}
    assert flagged and flagged <= {"capital", "planet", "sum"}
    assert rerun["parent_run_id"] == load_any(EVAL).log.run_id


def test_a_source_without_prompts_says_so_not_format_1() -> None:
    log = load_any(APPWORLD).log
    assert not log.tasks
    task = str(log.runs[0][0].task_id)
    with pytest.raises(RerunLensError) as info:
        task_specs(log, [task])
    assert str(info.value) == "the appworld log records no prompts; pass the task file with --tasks"
    note = missing_prompts_note(log, 2)
    assert "format 1" not in note and "the appworld log records no prompts" in note


def test_an_import_says_which_mapping_made_it() -> None:
    """Version 3: Inspect inputs are prompts and agent-code errors are no attempts, unlike version 2."""
    assert load_any(EVAL).log.imported_from["importer_version"] == 3
