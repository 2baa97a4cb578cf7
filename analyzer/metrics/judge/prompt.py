"""What the judge is asked and how its reply is read: one place for the runner's judge and the
simulator's (which recognises a judge request by its instruction)."""

from __future__ import annotations

import json
import re
from typing import Any

from analyzer.metrics.judge.cluster import Decision

__all__ = [
    "JUDGE_INSTRUCTION",
    "JUDGE_MAX_TOKENS",
    "JUDGE_SEED",
    "judge_messages",
    "read_pair",
    "read_verdict",
]

JUDGE_INSTRUCTION = (
    "You judge whether two answers to the same question say the same thing (the same facts, the same "
    "outcome; wording, language and format may differ). The user message is JSON with the question "
    "and the two answers. Reply with one line: 'yes: <one-line reason>' or 'no: <one-line reason>'."
)
JUDGE_SEED = 20240601
"""The fixed seed every judge call sends (with temperature 0)."""
JUDGE_MAX_TOKENS = 60
_REPLY = re.compile(r"\s*[*_`\"']*(yes|no)\b[*_`\"']*\s*[:.,;\-–—]?\s*(.*)", re.IGNORECASE | re.DOTALL)
_BOTH = re.compile(r"\W*(?:yes|no)\W*(?:and|or|/)\W*(?:yes|no)\b", re.IGNORECASE)
_MAX_ANSWER = 4000


def judge_messages(prompt: str, a: str, b: str) -> list[dict[str, Any]]:
    """The chat messages of one judge call (each text cut at 4,000 characters)."""
    pair = {"question": prompt[:_MAX_ANSWER], "answer_a": a[:_MAX_ANSWER], "answer_b": b[:_MAX_ANSWER]}
    return [
        {"role": "system", "content": JUDGE_INSTRUCTION},
        {"role": "user", "content": json.dumps(pair, ensure_ascii=False)},
    ]


def read_pair(messages: list[Any]) -> tuple[str, str, str] | None:
    """(question, answer a, answer b) of a judge request; None for any other request."""
    if (
        len(messages) != 2
        or not isinstance(messages[0], dict)
        or messages[0].get("content") != JUDGE_INSTRUCTION
    ):
        return None
    try:
        pair = json.loads(messages[1]["content"])
        return str(pair["question"]), str(pair["answer_a"]), str(pair["answer_b"])
    except (TypeError, KeyError, ValueError):
        return None


def read_verdict(reply: str | None) -> Decision:
    """A clear `yes` or `no` at the start of the reply's first line, with the rest as the reason;
    anything else ("yes and no", "It depends", an empty reply) is unclear (`same` None) and the
    reply's first 80 characters are the reason."""
    first = (reply or "").strip().splitlines()[0] if (reply or "").strip() else ""
    match = _REPLY.fullmatch(first)
    if match is None or _BOTH.match(first):
        return Decision(None, f"unclear reply: {first[:80]!r}")
    return Decision(match[1].casefold() == "yes", match[2].strip()[:200] or match[1].casefold())
