"""The names of the answer keys, apart from their code so the command-line parser loads without pandas."""

from __future__ import annotations

from typing import Literal

AnswerKey = Literal["exact", "normalized", "fuzzy", "actions", "semantic", "judge"]
"""How answers are compared when grouped into clusters (see `analyzer.metrics.answers`)."""

ANSWER_KEYS: tuple[AnswerKey, ...] = ("exact", "normalized", "fuzzy", "actions", "semantic", "judge")
"""Every answer key, the default first."""


def answer_key(name: object) -> AnswerKey:
    """`name` as an answer key; anything that is not one (a stale state file, an edited URL) is the
    default, `exact`."""
    for key in ANSWER_KEYS:
        if name == key:
            return key
    return ANSWER_KEYS[0]


def key_described(key: str, threshold: float | None = None, judge_model: str | None = None) -> str:
    """The key's name with what its clusters depend on: the semantic key's similarity threshold, the
    judge key's model (the one phrase the CLI, the HTML report and the dashboard show)."""
    if key == "judge":
        return f"judge, judged by {judge_model}" if judge_model else "judge"
    return f"{key}, similarity threshold {threshold:.2f}" if threshold is not None else key
