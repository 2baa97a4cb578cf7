"""`json_text` escapes in one compiled pass and writes byte for byte what the character loop wrote."""

from __future__ import annotations

import json
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.safety.terminal_text import json_text

_BIDI = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"


def _old_shown(ch: str) -> str:
    if ch in {"\n": "\\n", "\r": "\\r", "\t": "\\t"}:
        return "changed"
    if unicodedata.category(ch) in ("Cc", "Cs") or ch in _BIDI:
        return "changed"
    return ch


def old_json_text(value: object, indent: int | None = 2) -> str:
    """The implementation before the compiled pass (a loop over every character), kept as the oracle."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    if text.isprintable() or all(ch == "\n" or ch.isprintable() for ch in text):
        return text
    return "".join(f"\\u{ord(ch):04x}" if ch != "\n" and _old_shown(ch) != ch else ch for ch in text)


_HOSTILE = st.sampled_from(
    [
        *map(chr, range(0x20)),
        *map(chr, range(0x7F, 0xA0)),
        *_BIDI,
        "\ud800",
        "\udfff",
        "\udc00",
        "\u200b",
        "\ufeff",
        "\u00ad",
        "é",
        "✓",
        "🙂",
        "\u3000",
        "\U000e0001",
        "\\",
        '"',
    ]
)
_TEXT = st.lists(st.one_of(_HOSTILE, st.characters()), max_size=40).map("".join)
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES, st.sampled_from([2, None]))
def test_json_text_is_byte_for_byte_the_old_loop(value: object, indent: int | None) -> None:
    new = json_text(value, indent)
    old = old_json_text(value, indent)
    assert new.encode("utf-8", "surrogatepass") == old.encode("utf-8", "surrogatepass")
    assert json.loads(new) == json.loads(json.dumps(value))  # and it still means the same


def test_every_character_escaped_is_one_the_old_loop_escaped() -> None:
    every = "".join(chr(c) for c in range(0x3000)) + "\U000e0001\U0010ffff"
    assert json_text({"all": every}) == old_json_text({"all": every})
