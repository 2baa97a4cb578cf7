"""A re-run's verdict in sentences, said once for the CLI and the Re-run page.

`verdict_sentences` turns a before/after frame (`before_after.compare_before_after`) into the lines a
reader sees beside its table: what the re-run changed besides the route, the chance headline with
what was pinned, and one line per verdict listing its tasks. Each line carries a kind (`success`,
`warning`, `info`) so the page can colour it; the CLI prints the text alone. Nothing here renders.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

import pandas as pd

from analyzer.verdicts.before_after import before_after_table, chance_headline, tasks_with
from analyzer.verdicts.rerun_verdict import Verdict

LineKind = Literal["success", "warning", "info"]
"""How a line reads: good news, a caution, or plain information."""

Topic = Literal["changes", "chance", "route", "both", "inconclusive", "model", "nothing"]
"""What a line is about: the page picks its icon from it."""

NOTHING_TO_BLAME = "No task was inconsistent before and measured after: nothing to blame."


class VerdictLine(NamedTuple):
    """One sentence of a re-run's verdict."""

    kind: LineKind
    topic: Topic
    text: str


def pinned_text(changed: Sequence[str]) -> str:
    """`route pinned`, or `route and seed pinned`, `route, seed and scenario pinned`."""
    names = ["route", *changed]
    head = ", ".join(names[:-1])
    return f"{head} and {names[-1]} pinned" if head else "route pinned"


def verdict_sentences(
    frame: pd.DataFrame, pinned: Sequence[str] = ("route",), changes: Sequence[str] = ()
) -> list[VerdictLine]:
    """The verdict of a re-run, sentence by sentence.

    Args:
        frame: The before/after frame, one row per task with its verdict.
        pinned: What the re-run pinned, `route` first (`RerunReport.pinned`).
        changes: Sentences on what the re-run changed besides the route
            (`rerun_changes.changes_sentence`), said first.
    """
    out = [VerdictLine("warning", "changes", c) for c in changes]
    if frame.empty:
        return [*out, VerdictLine("info", "nothing", chance_headline(frame))]
    out.append(VerdictLine("info", "chance", f"{chance_headline(frame)} ({pinned_text(list(pinned)[1:])}.)"))
    for verdicts, kind, topic, say in _BY_VERDICT:
        ids = tasks_with(frame, *verdicts)
        if ids:
            out.append(VerdictLine(kind, topic, say.format(n=len(ids), ids=", ".join(ids))))
    if len(out) == len(changes) + 1:
        out.append(VerdictLine("info", "nothing", NOTHING_TO_BLAME))
    return out


_BY_VERDICT: tuple[tuple[tuple[Verdict, ...], LineKind, Topic, str], ...] = (
    (
        ("route",),
        "success",
        "route",
        "{n} agreed on the pinned route and their answers follow a route factor beyond chance (false "
        "discovery rate 2 %), so the route was the likely cause: {ids}",
    ),
    (
        ("both",),
        "warning",
        "both",
        "{n} follow a route factor beyond chance and still vary on the pinned route: the route and the "
        "model both play a part: {ids}",
    ),
    (
        ("inconclusive",),
        "info",
        "inconclusive",
        "{n} agreed on the pinned route, but not beyond chance with these rounds (each task's reason says "
        "how many would decide): {ids}",
    ),
    (
        ("model",),
        "warning",
        "model",
        "{n} still inconsistent on the pinned route with no route factor explaining it, so the model is "
        "to blame: {ids}",
    ),
    (
        ("regressed",),
        "warning",
        "model",
        "{n} consistent before and inconsistent on the pinned route with no route factor explaining it, so "
        "the model is to blame: {ids}",
    ),
)
"""Per verdict line: the verdicts it lists, its kind, its topic and its wording."""


def before_after_lines(
    frame: pd.DataFrame, pinned: Sequence[str] = ("route",), changes: Sequence[str] = ()
) -> list[str]:
    """The before/after for a terminal: the table, the verdict's sentences, then the reason of each
    inconclusive task (what the page's `why` column holds)."""
    if frame.empty:
        return [line.text for line in verdict_sentences(frame, pinned, changes)]
    out = [*before_after_table(frame), ""]
    out += [line.text for line in verdict_sentences(frame, pinned, changes)]
    out += [
        f"  {row.task_id}: {row.reason}"
        for row in frame.itertuples(index=False)
        if row.verdict == "inconclusive"
    ]
    return out
