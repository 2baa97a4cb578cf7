"""The names of the answer keys, apart from their code so the command-line parser loads without pandas."""

from __future__ import annotations

from typing import Literal

AnswerKey = Literal["exact", "normalized", "fuzzy", "actions", "semantic"]
"""How answers are compared when grouped into clusters (see `analyzer.metrics.answers`)."""

ANSWER_KEYS: tuple[AnswerKey, ...] = ("exact", "normalized", "fuzzy", "actions", "semantic")
"""Every answer key, the default first."""
