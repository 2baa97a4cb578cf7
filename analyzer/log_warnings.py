"""Structural warnings about a log that still loads: things a reader should know before trusting figures."""

from __future__ import annotations

from collections import Counter

from analyzer.model import RunLog

_LIST_AT_MOST = 5


def structural_warnings(log: RunLog) -> list[str]:
    """Ragged rounds, duplicate tasks, errored results, unknown tokens and misplaced round numbers.

    Results are compared by task id as a string, the same way the metrics align them.
    """
    warnings: list[str] = []
    per_round = [[str(r.task_id) for r in rnd] for rnd in log.runs]
    all_tasks = _ordered_union(per_round)

    for number, ids in enumerate(per_round, start=1):
        present = set(ids)
        missing = [t for t in all_tasks if t not in present]
        if missing:
            warnings.append(f"round {number} misses {_tasks(missing)} that other rounds have")
        twice = [t for t, n in Counter(ids).items() if n > 1]
        if twice:
            warnings.append(f"round {number} lists {_tasks(twice)} more than once")
    if len(per_round) > 1:
        first = set(per_round[0])
        added = [t for t in all_tasks if t not in first]
        if added:
            warnings.append(f"later rounds add {_tasks(added)} that round 1 does not have")

    errored: list[str] = []
    no_tokens = 0
    misplaced: list[str] = []
    for number, rnd in enumerate(log.runs, start=1):
        for index, r in enumerate(rnd):
            if r.status == "error" or r.error is not None:
                errored.append(str(r.task_id))
            if r.total_tokens is None and (r.prompt_tokens is None or r.completion_tokens is None):
                no_tokens += 1
            if r.round is not None and r.round != number:
                misplaced.append(f"runs[{number - 1}][{index}] says round {r.round}")
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


def _ordered_union(rounds: list[list[str]]) -> list[str]:
    seen: dict[str, None] = {}
    for ids in rounds:
        for t in ids:
            seen.setdefault(t, None)
    return list(seen)


def _tasks(ids: list[str]) -> str:
    word = "task" if len(ids) == 1 else "tasks"
    shown = ", ".join(ids[:_LIST_AT_MOST])
    if len(ids) > _LIST_AT_MOST:
        shown += f" and {len(ids) - _LIST_AT_MOST} more"
    return f"{word} {shown}"
