"""The `semantic` answer key: answers clustered by meaning, English and Chinese (docs/metrics.md).

`key` clusters a task's answers; `embed` gives the vectors (the bundled model, the route's endpoint
or the simulator) and caches them by content; `view` shows a cluster's members beside their
representative. The guards a pair must pass sit in a module each: `guards` (facts: numbers, dates,
units, weekdays), `polarity`, `antonyms`, `double` (double negation), `hedge`, `mood` (offer
against act), `distinct`, `scope`, `marks` (statuses), `quantities`, `times`, and `text` (the text
that is embedded); `numerals` holds the number words they read. Outside this package, only these
names are used.
"""

from analyzer.metrics.semantic.embed import SemanticUnavailable
from analyzer.metrics.semantic.key import (
    CROSS_LANGUAGE_GAP,
    DEFAULT_SEMANTIC_THRESHOLD,
    SemanticOptions,
    semantic_keys,
)
from analyzer.metrics.semantic.view import semantic_members

__all__ = [
    "CROSS_LANGUAGE_GAP",
    "DEFAULT_SEMANTIC_THRESHOLD",
    "SemanticOptions",
    "SemanticUnavailable",
    "semantic_keys",
    "semantic_members",
]
