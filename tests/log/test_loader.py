"""The loader: every bad file gets one clear line naming where; odd-but-valid files load with warnings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from analyzer import atomic
from analyzer.errors import LogError
from analyzer.log import loader
from analyzer.log.loader import list_logs, load_bytes, load_path, save_log
from analyzer.log.model import RunLog
from analyzer.log.structural import structural_warnings

FIXTURES = Path(__file__).parents[1] / "fixtures" / "runs"
SAMPLES = Path(__file__).parents[2] / "sample_runs"

BAD_CASES = {
    "not_json.json": "not valid JSON: trailing comma at line 5 column 2",
    "not_utf8.json": "not UTF-8 text (byte 0xe9 at offset 43)",
    "wrong_type.json": "runs[1][0].total_tokens: Input should be a valid integer",
    "negative_tokens.json": "runs[0][0].prompt_tokens: must not be negative (got -5)",
    "nan_tokens.json": "runs[0][0].total_tokens: not a finite number",
    "infinite_latency.json": "runs[0][0].latency_ms: not a finite number",
    "missing_task_id.json": "runs[0][1].task_id: required field is missing",
    "null_task_id.json": "runs[0][1].task_id: task_id is null",
    "no_results.json": "runs: no results at all",
    "empty_rounds.json": "runs: no results at all",
    "absurd_nesting.json": "nesting too deep at line 1",
    "top_level_list.json": "top level: expected an object, got a list",
    "no_runs_key.json": "runs: required field is missing",
    "runs_not_list.json": "runs: expected a list, got an object",
    "empty_file.json": "the file is empty",
    "unknown_outcome.json": "runs[0][0].attempts[0].outcome: Input should be 'ok'",
    "bool_task_id.json": "runs[0][0].task_id: task_id must be a string or an integer (got true)",
    "huge_tokens.json": "runs[0][0].total_tokens: too large (got 100000000000000000000000",
    "nan_in_untyped_field.json": "not valid JSON: NaN is not a number JSON allows",
    "error_message_not_text.json": "runs[0][0].error.message: Input should be a valid string (got 5)",
    # counts are exact integers and booleans are never numbers, in every mode
    "bool_tokens.json": "runs[0][0].total_tokens: Input should be a valid integer (got true)",
    "string_tokens.json": "runs[0][0].prompt_tokens: Input should be a valid integer (got '12')",
    "yes_tokens.json": "runs[0][0].completion_tokens: Input should be a valid integer (got 'yes')",
    "bool_temperature.json": "runs[0][0].route.temperature: Input should be a valid number (got true)",
    # a repeated key would silently replace the first (the answer gap went from 100 to 0)
    "duplicate_runs_key.json": 'duplicate key "runs" at line 2 column 9',
    "duplicate_answer_key.json": 'duplicate key "answer" at line 1 column 54',
}


def test_every_bad_fixture_has_a_case() -> None:
    assert sorted(p.name for p in (FIXTURES / "bad").glob("*.json")) == sorted(BAD_CASES)


@pytest.mark.parametrize("name", sorted(BAD_CASES))
def test_bad_file_gets_one_line_naming_file_and_place(name: str) -> None:
    path = FIXTURES / "bad" / name
    with pytest.raises(LogError) as info:
        load_path(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert BAD_CASES[name] in message
    assert "\n" not in message and "Traceback" not in message
    assert "errors.pydantic.dev" not in message


def test_upload_bytes_error_names_the_upload() -> None:
    with pytest.raises(LogError, match=r"^my_upload\.json: runs\[0\]\[0\]\.total_tokens"):
        load_bytes(b'{"runs": [[{"task_id": 1, "total_tokens": -1}]]}', "my_upload.json")


def test_several_problems_are_counted_not_listed() -> None:
    data = b'{"runs": [[{"task_id": 1, "total_tokens": -1}, {"task_id": 2, "prompt_tokens": -3}]]}'
    with pytest.raises(LogError, match=r"\(and 1 more problem\)$"):
        load_bytes(data, "two.json")


def test_missing_file_and_folder() -> None:
    with pytest.raises(LogError, match="nowhere.json: no such file"):
        load_path("nowhere.json")
    with pytest.raises(LogError, match="is a folder"):
        load_path(FIXTURES)


def test_file_over_size_limit_is_refused_before_reading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(loader, "MAX_LOG_BYTES", 100)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"runs": [[{"task_id": i, "answer": "x" * 20} for i in range(10)]]}))
    with pytest.raises(LogError, match=r"big\.json: .* over the 0 MiB limit"):
        load_path(big)


def test_format1_sample_loads_exactly() -> None:
    raw = json.loads((SAMPLES / "format1_plain_script.json").read_text())
    loaded = load_path(SAMPLES / "format1_plain_script.json")
    log = loaded.log
    assert log.version == 1
    assert len(log.runs) == 5
    assert [len(r) for r in log.runs] == [12] * 5
    assert loaded.warnings == []
    first = raw["runs"][0][0]
    result = log.runs[0][0]
    assert (
        result.task_id,
        result.answer,
        result.prompt_tokens,
        result.completion_tokens,
        result.total_tokens,
    ) == (
        first["task_id"],
        first["answer"],
        first["prompt_tokens"],
        first["completion_tokens"],
        first["total_tokens"],
    )
    assert log.summary is not None and log.summary.consistency_gap_pp == raw["summary"]["consistency_gap_pp"]
    # round-major and ragged order: rounds list the tasks in different orders
    orders = {tuple(r.task_id for r in rnd) for rnd in log.runs}
    assert len(orders) > 1


def test_ragged_rounds_warn_but_load() -> None:
    loaded = load_path(FIXTURES / "good" / "ragged_rounds.json")
    # one line per kind, with the count and the first places
    assert loaded.warnings == [
        "3 rounds miss tasks that other rounds have: round 1 (task c), round 2 (task a), round 3 (task c)",
        "round 3 lists task a more than once",
        "later rounds add task c that round 1 does not have",
    ]


def test_a_hundred_ragged_rounds_are_one_line() -> None:
    # 100 rounds; round r has task "x" always and task "y" only in round 1: rounds 2..100 miss y
    runs = [[{"task_id": "x", "answer": "a"}, {"task_id": "y", "answer": "b"}]]
    runs += [[{"task_id": "x", "answer": "a"}] for _ in range(99)]
    warnings = structural_warnings(RunLog.model_validate({"runs": runs}))
    assert warnings[:-1] == [
        "99 rounds miss tasks that other rounds have: round 2 (task y), round 3 (task y), round 4 (task y) "
        "and 96 more rounds"
    ]
    assert warnings[-1] == "101 results have no token counts; shown as unknown, not zero"


def test_errors_and_unknown_tokens_warn() -> None:
    loaded = load_path(FIXTURES / "good" / "v2_errors_no_tokens.json")
    assert loaded.log.version == 2
    assert "1 result errored (task t2); they are left out of answer clusters" in loaded.warnings
    assert "2 results have no token counts; shown as unknown, not zero" in loaded.warnings
    assert any("runs[1][1] says round 3" in w for w in loaded.warnings)
    assert loaded.log.runs[0][0].total_tokens is None  # unknown, not zero
    assert loaded.log.runs[1][0].trajectory is not None
    assert loaded.log.runs[1][0].trajectory[1].name == "search"


def test_task_ids_may_be_int_or_str() -> None:
    log = load_path(FIXTURES / "good" / "mixed_task_ids.json").log
    assert [r.task_id for r in log.runs[0]] == [1, "2"]


def test_round_trip_is_identical(tmp_path: Path) -> None:
    samples = list_logs(SAMPLES)
    assert len(samples) >= 5
    for source in [*FIXTURES.joinpath("good").glob("*.json"), *samples]:
        first = load_path(source).log
        out = save_log(first, tmp_path / source.name)
        second = load_path(out).log
        assert second == first, source.name
        assert json.loads(out.read_text()) == json.loads(first.model_dump_json(exclude_unset=True))


def test_round_trip_keeps_unknown_fields(tmp_path: Path) -> None:
    log = load_path(FIXTURES / "good" / "v2_errors_no_tokens.json").log
    out = save_log(log, tmp_path / "copy.json")
    saved = json.loads(out.read_text())
    assert saved["runs"][1][1]["custom_field"] == {"kept": True}
    assert (
        "status"
        not in json.loads(
            save_log(load_path(FIXTURES / "good" / "ragged_rounds.json").log, tmp_path / "r.json").read_text()
        )["runs"][0][0]
    )


def test_failed_save_leaves_old_file_and_no_temp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    log = load_path(FIXTURES / "good" / "mixed_task_ids.json").log
    target = tmp_path / "out.json"
    target.write_text("old")

    def explode(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", explode)
    with pytest.raises(OSError):
        save_log(log, target)
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_list_logs_finds_logs_not_task_files(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    save_log(load_path(FIXTURES / "good" / "mixed_task_ids.json").log, tmp_path / "sub" / "a.json")
    (tmp_path / "tasks.json").write_text('[{"task_id": "t1", "prompt": "hi"}]')
    (tmp_path / "notes.json").write_text('{"note": "not a log"}')
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "run.journal.jsonl").write_text('{"runs": 1}\n')
    assert list_logs(tmp_path) == [tmp_path / "sub" / "a.json"]
    assert list_logs(tmp_path / "missing") == []


def test_saved_log_is_readable_like_any_file(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        out = save_log(load_path(FIXTURES / "good" / "mixed_task_ids.json").log, tmp_path / "perm.json")
    finally:
        os.umask(previous)
    assert out.stat().st_mode & 0o777 == 0o644


def test_the_word_nan_inside_an_answer_is_fine() -> None:
    loaded = load_bytes(
        b'{"runs": [[{"task_id": "t", "answer": "NaN"}, {"task_id": "u", "answer": "Infinity"}]]}'
    )
    assert [r.answer for r in loaded.log.runs[0]] == ["NaN", "Infinity"]


def test_round_zero_names_the_lower_bound() -> None:
    with pytest.raises(LogError, match=r"runs\[0\]\[0\]\.round: must be at least 1 \(got 0\)"):
        load_bytes(b'{"runs": [[{"task_id": "t", "round": 0}]]}', "r.json")


def test_trajectory_step_errors_point_into_the_step() -> None:
    with pytest.raises(
        LogError, match=r"runs\[0\]\[0\]\.trajectory\[0\]\.role: Input should be a valid string"
    ):
        load_bytes(
            b'{"runs": [[{"task_id": "t", "trajectory": [{"type": "message", "role": 5}]}]]}', "t.json"
        )
