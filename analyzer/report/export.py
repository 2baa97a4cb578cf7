"""What leaves RerunLens as files: the flagged tasks as a task file, the per-task table as CSV."""

from __future__ import annotations

import json
import unicodedata
from typing import TYPE_CHECKING, Any

import analyzer.numbers as numbers
from analyzer.log.model import RunLog, TaskSpec

if TYPE_CHECKING:
    from analyzer.analysis import Analysis


def flagged_task_file(analysis: Analysis, extra_tasks: list[TaskSpec] | None = None) -> list[dict[str, Any]]:
    """The flagged tasks as a task file (`[{"task_id", "prompt", "expected"?, "reasons"}]`).

    Prompts come from the log's own `tasks` (format 2, and imported logs whose source records them)
    or from `extra_tasks` (a task file the user names); a task whose prompt is known nowhere keeps
    `"prompt": null` so the user sees the gap (`missing_prompts_note` says why).

    Args:
        analysis: the analysed log.
        extra_tasks: task definitions to take prompts from when the log has none.
    """
    known = _task_index(analysis.log, extra_tasks)
    out: list[dict[str, Any]] = []
    for flag in analysis.headline.flagged:
        spec = known.get(str(flag.task_id))
        entry: dict[str, Any] = {"task_id": spec.task_id if spec else flag.task_id}
        entry["prompt"] = spec.prompt if spec else None
        if spec and spec.max_tokens is not None:
            entry["max_tokens"] = spec.max_tokens
        if spec and spec.expected is not None:
            entry["expected"] = spec.expected
        entry["reasons"] = list(flag.reasons)
        out.append(entry)
    return out


def missing_prompts(entries: list[dict[str, Any]]) -> list[str]:
    """Task ids in a flagged-task file whose prompt is unknown."""
    return [str(e["task_id"]) for e in entries if e.get("prompt") is None]


def missing_prompts_reason(log: RunLog) -> str:
    """Why a log has no prompts, for messages: an imported log's source format records none (AppWorld
    outputs, a tau-bench file without `info.task`), a native one is format 1 (no `tasks`)."""
    source = (log.imported_from or {}).get("format")
    if source:
        return f"the {source} log records no prompts"
    return "the log has no task definitions (format 1)"


def missing_prompts_note(log: RunLog, count: int) -> str:
    """The note `rerunlens export --flagged` prints when `count` flagged tasks have no prompt."""
    imported = bool((log.imported_from or {}).get("format"))
    why = f": {missing_prompts_reason(log)}" if imported else " in the log (format 1)"
    verb = "has" if count == 1 else "have"
    tasks = numbers.counted(count, "task")
    return f"note: {tasks} {verb} no prompt{why}; pass --tasks TASKS.json to fill them in"


def flagged_task_json(analysis: Analysis, extra_tasks: list[TaskSpec] | None = None) -> str:
    """`flagged_task_file` as JSON text, ready to save or download."""
    return json.dumps(flagged_task_file(analysis, extra_tasks), indent=2, ensure_ascii=False) + "\n"


_FORMULA_START = frozenset("=+-@")
_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060\u180e"
"""Characters a spreadsheet shows as nothing (BOM, zero-width space and joiners): skipped before the test."""
_LOOK_ALIKES = {"\u2212": "-", "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\ufe63": "-"}
"""Minus signs and dashes NFKC leaves alone (it already maps U+FF1D to `=`, U+FF0B to `+`, U+FE62...)."""


def formula_risky(cell: str) -> bool:
    """True when a spreadsheet might read the cell as a formula: it starts with `=`, `+`, `-`, `@`,
    a tab or a CR, after any white space (NBSP included) and invisible characters, and with
    look-alikes (fullwidth `＝`, small `﹢`, the minus sign) read as what they look like."""
    if cell[:1] in ("\t", "\r"):
        return True
    head = cell.lstrip().lstrip(_INVISIBLE).lstrip()
    while head[:1] and head[0] in _INVISIBLE:
        head = head[1:].lstrip()
    if not head:
        return False
    first = unicodedata.normalize("NFKC", head[0])[:1]
    return _LOOK_ALIKES.get(first, first) in _FORMULA_START


def tasks_csv(analysis: Analysis) -> str:
    """The per-task table as CSV text (RFC 4180: CRLF line ends).

    Text cells that a spreadsheet would run as a formula (`=HYPERLINK(...)` as a task id) get a
    leading apostrophe, the usual guard; numbers are left alone. With CRLF as the line end, every
    cell holding a line break, a bare carriage return included, is quoted: otherwise `"x\r=1"` would
    be written bare and a spreadsheet would start a new row at the CR whose first cell is `=1`.
    """
    table = analysis.tasks.copy()
    for name in table.columns:
        if table[name].dtype == object or str(table[name].dtype) == "string":
            text = table[name].astype("string")
            risky = text.map(lambda cell: formula_risky(cell) if isinstance(cell, str) else False).astype(
                bool
            )
            table[name] = text.mask(risky, "'" + text)
    return table.to_csv(index=False, lineterminator="\r\n")


def _task_index(log: RunLog, extra: list[TaskSpec] | None) -> dict[str, TaskSpec]:
    index: dict[str, TaskSpec] = {}
    for spec in [*(extra or []), *(log.tasks or [])]:
        index[str(spec.task_id)] = spec
    return index
