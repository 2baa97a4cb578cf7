"""The per-task CSV guards every cell a spreadsheet might run as a formula, also behind leading white
space, NBSP, a BOM or a zero-width space, and behind look-alikes such as the fullwidth `＝` (U+FF1D)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from analyzer.cli import main
from analyzer.report.export import formula_risky

PINNED = Path("tests/fixtures/app/pinned_v2.json")
HOSTILE = [
    "=HYPERLINK(1)", " =1+1", "\u00a0=1+1", "\ufeff=1+1", "\u200b=1+1", "\uff1d1+1", "\u3000@SUM(1)",
    "\u2212 1+1", "\ufe621+1", "\t=1", "\r=1", "+1", "-1", "@x", " \u200b \u00a0=1",
]  # fmt: skip
SAFE = ["plain", "a=b", "12", "café", "x-1", ""]


@pytest.mark.parametrize("cell", HOSTILE)
def test_a_formula_behind_white_space_or_a_look_alike_is_caught(cell: str) -> None:
    assert formula_risky(cell)


@pytest.mark.parametrize("cell", SAFE)
def test_ordinary_text_is_left_alone(cell: str) -> None:
    assert not formula_risky(cell)


def test_the_exported_csv_guards_every_hostile_task_id(tmp_path: Path) -> None:
    raw = json.loads(PINNED.read_text())
    ids = sorted({str(r["task_id"]) for row in raw["runs"] for r in row})
    renamed = {old: new for old, new in zip(ids, HOSTILE, strict=False)}
    for row in raw["runs"]:
        for result in row:
            result["task_id"] = renamed.get(str(result["task_id"]), result["task_id"])
    for task in raw.get("tasks") or []:
        task["task_id"] = renamed.get(str(task["task_id"]), task["task_id"])
    log = tmp_path / "hostile.json"
    log.write_text(json.dumps(raw))
    out = tmp_path / "tasks.csv"
    assert main(["export", str(log), "--csv", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"), newline="")))
    exported = {row["task_id"] for row in rows}
    assert len(exported) == len(ids)
    for cell in exported:
        assert not formula_risky(cell) or cell.startswith("'"), repr(cell)
    assert {"'" + new for new in renamed.values()} <= exported
