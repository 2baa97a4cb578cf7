"""The log format as documented (`rerunlens schema`, from the model's docstrings, and docs/formats.md
for what importers add) matches what is written: every field an importer puts on a result is a
documented model field or a documented extra, and the fast reader checks every model field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analyzer.errors import LogError
from analyzer.importers import list_any_logs, load_any
from analyzer.log.fast_decode import decode_log
from analyzer.log.loader import load_bytes
from analyzer.log.model import Result
from analyzer.log.schema import log_json_schema
from analyzer.log.table import RESULT_FIELDS, UNUSED_RESULT_FIELDS

ROOT = Path(__file__).resolve().parents[2]
FOREIGN = ROOT / "tests" / "fixtures" / "foreign"
FORMATS = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
NESTED = {"route", "error", "attempts"}


def test_the_fast_reader_checks_every_result_field() -> None:
    """A field it skipped would pass unchecked there and fail later, when the results are built."""
    assert set(Result.model_fields) == {*RESULT_FIELDS, *UNUSED_RESULT_FIELDS, *NESTED}


def test_every_result_field_is_described_in_the_schema() -> None:
    properties = log_json_schema()["$defs"]["Result"]["properties"]
    assert set(properties) == set(Result.model_fields)
    assert all(p.get("description") for p in properties.values()), properties
    assert "promptfoo" in properties["grade_reason"]["description"]


def test_every_field_an_importer_writes_on_a_result_is_documented() -> None:
    extras: set[str] = set()
    for path in list_any_logs(FOREIGN):
        for _, result in load_any(path).log.results():
            extras |= set(result.model_extra or {})
    undocumented = {name for name in extras if not re.search(rf"`{name}`", FORMATS)}
    assert not undocumented, f"result fields outside the model and docs/formats.md: {undocumented}"


def test_a_promptfoo_grading_reason_is_a_field_and_the_fast_reader_keeps_it() -> None:
    log = load_any(FOREIGN / "promptfoo" / "results.json").log
    reasons = [r.grade_reason for _, r in log.results() if r.grade_reason]
    assert reasons and all("\n" not in r and len(r) <= 300 for r in reasons)
    assert not any("grade_reason" in (r.model_extra or {}) for _, r in log.results())
    answers = [("Paris", reasons[0]), ("Lyon", None)]
    rounds = [[{"task_id": "t1", "answer": a, "success": False, "grade_reason": why}] for a, why in answers]
    data = json.dumps({"runs": rounds}).encode()
    fast = decode_log(data)
    assert fast is not None  # a known field: the fast reader takes the file
    assert [r.grade_reason for _, r in fast.results()] == [reasons[0], None]
    assert load_bytes(data, "log.json").log == fast


def test_a_grading_reason_that_is_not_text_is_one_line_naming_it() -> None:
    bad = {"runs": [[{"task_id": "t1", "answer": "a", "grade_reason": 5}]]}
    with pytest.raises(LogError) as info:
        load_bytes(json.dumps(bad).encode(), "bad.json")
    message = str(info.value)
    assert "grade_reason" in message and "bad.json" in message and "\n" not in message
