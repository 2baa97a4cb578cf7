"""Structural warnings about a log that still loads: things a reader should know before trusting figures."""

from __future__ import annotations

from collections import Counter

from analyzer.log.model import RunLog
from analyzer.log.table import LogTable, log_table

_LIST_AT_MOST = 5
_ROUNDS_AT_MOST = 3
"""Rounds named in a grouped warning; the rest are counted."""


def structural_warnings(log: RunLog | LogTable) -> list[str]:
    """Ragged rounds, duplicate tasks, errored results, unknown tokens and misplaced round numbers.

    Results are compared by task id as a string, the same way the metrics align them. Computed
    once per table: the loader and the analysis share it.
    """
    table = log_table(log)
    if "warnings" not in table.cache:
        table.cache["warnings"] = _warnings(table)
    return list(table.cache["warnings"])


def _warnings(table: LogTable) -> list[str]:
    warnings: list[str] = []
    col = table.results
    ids = [str(t) for t in col["task_id"]]
    per_round: list[list[str]] = []
    start = 0
    for size in table.round_sizes:
        per_round.append(ids[start : start + size])
        start += size
    all_tasks = list(dict.fromkeys(ids))

    missing: list[tuple[int, list[str]]] = []
    repeated: list[tuple[int, list[str]]] = []
    for number, round_ids in enumerate(per_round, start=1):
        present = set(round_ids)
        if len(present) < len(all_tasks):
            missing.append((number, [t for t in all_tasks if t not in present]))
        if len(present) < len(round_ids):
            repeated.append((number, [t for t, n in Counter(round_ids).items() if n > 1]))
    if missing:
        warnings.append(_by_round(missing, "misses", "miss", "that other rounds have"))
    if repeated:
        warnings.append(_by_round(repeated, "lists", "list", "more than once"))
    if len(per_round) > 1:
        first = set(per_round[0])
        if len(first) < len(all_tasks):
            added = [t for t in all_tasks if t not in first]
            warnings.append(f"later rounds add {_tasks(added)} that round 1 does not have")

    errored = [t for t, s, e in zip(ids, col["status"], col["error"], strict=True) if s == "error" or e]
    no_tokens = sum(
        1
        for t, p, c in zip(col["total_tokens"], col["prompt_tokens"], col["completion_tokens"], strict=True)
        if t is None and (p is None or c is None)
    )
    misplaced = _misplaced(table)
    if errored:
        n = len(errored)
        warnings.append(
            f"{n} result{'s' if n != 1 else ''} errored ({_tasks(list(dict.fromkeys(errored)))}); "
            "they are left out of answer clusters"
        )
    if no_tokens:
        warnings.append(
            f"{no_tokens} result{'s have' if no_tokens != 1 else ' has'} no token counts; "
            "shown as unknown, not zero"
        )
    if misplaced:
        shown = "; ".join(misplaced[:_LIST_AT_MOST]) + (" ..." if len(misplaced) > _LIST_AT_MOST else "")
        warnings.append(f"round numbers disagree with position, position wins: {shown}")
    return warnings


def _by_round(found: list[tuple[int, list[str]]], verb: str, verb_many: str, tail: str) -> str:
    """One line for one kind of finding over rounds: the count and the first few places.

    `round 2 misses task c that other rounds have`, or `40 rounds miss tasks that other rounds have:
    round 2 (task c), round 3 (tasks a, b), ... and 37 more rounds`.
    """
    if len(found) == 1:
        number, ids = found[0]
        return f"round {number} {verb} {_tasks(ids)} {tail}"
    shown = ", ".join(f"round {n} ({_tasks(ids)})" for n, ids in found[:_ROUNDS_AT_MOST])
    more = f" and {len(found) - _ROUNDS_AT_MOST} more rounds" if len(found) > _ROUNDS_AT_MOST else ""
    return f"{len(found)} rounds {verb_many} tasks {tail}: {shown}{more}"


def _misplaced(table: LogTable) -> list[str]:
    """`runs[i][j] says round r` for results whose recorded round is not their position's."""
    out: list[str] = []
    declared = table.results["round"]
    start = 0
    for number, size in enumerate(table.round_sizes, start=1):
        for index in range(size):
            r = declared[start + index]
            if r is not None and r != number:
                out.append(f"runs[{number - 1}][{index}] says round {r}")
        start += size
    return out


def _tasks(ids: list[str]) -> str:
    word = "task" if len(ids) == 1 else "tasks"
    shown = ", ".join(ids[:_LIST_AT_MOST])
    if len(ids) > _LIST_AT_MOST:
        shown += f" and {len(ids) - _LIST_AT_MOST} more"
    return f"{word} {shown}"
