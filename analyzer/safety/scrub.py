"""Keep keys out of messages: text from a provider may quote a key, masked, escaped or encoded.

A hostile or careless endpoint can echo the key back in any form: as is, `repr()`-quoted, JSON- or
URL-escaped, base64 (standard or URL-safe, at any alignment inside a longer encoded string) or hex.
`scrub` removes every one of these forms, and anything that merely looks like a key.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from urllib.parse import quote, quote_plus

KEYLIKE = re.compile(r"\b(sk|rk)-[A-Za-z0-9*_\-]{6,}")

REDACTED = "[redacted]"
"""What a key (in any form) becomes."""

_MIN_FORM = 4
"""Shorter forms are not scrubbed: they would redact ordinary words."""


def _escaped_forms(s: str) -> set[str]:
    """The key as the usual escapers write it: repr, bytes repr, JSON, unicode_escape, URL-encoding."""
    return {
        s,
        repr(s)[1:-1],
        repr(s.encode("utf-8", "backslashreplace"))[2:-1],
        json.dumps(s)[1:-1],
        json.dumps(s, ensure_ascii=False)[1:-1],
        s.encode("unicode_escape").decode("ascii"),
        quote(s, safe=""),
        quote_plus(s, safe=""),
    }


def base64_forms(raw: bytes) -> set[str]:
    """The part of the base64 text that `raw` fixes, at each of the three alignments, both alphabets.

    Inside a longer encoded string (`base64("Bearer " + key)`, HTTP basic auth `user:key`) the key's
    bytes start at any offset modulo 3; the characters that depend only on the key's own bits are the
    same whatever surrounds it, so matching those finds the key wherever it was encoded.
    """
    forms: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode("ascii")
        first = -(-4 * offset // 3)  # ceil(8 * offset / 6): the first character free of padding bits
        last = (8 * (offset + len(raw))) // 6  # characters made only of the key's bits end here
        core = encoded[first:last]
        forms.add(core)
        forms.add(core.replace("+", "-").replace("/", "_"))
    return forms


def secret_forms(secret: str) -> set[str]:
    """Every way a key may show up in a message: as is, stripped, escaped, URL-encoded, base64, hex.

    An HTTP library that refuses a header quotes it with `repr()` (`b'Bearer key\\n'`), JSON escapes
    it, a URL percent-encodes it, a proxy may log it base64- or hex-encoded; each form must go.
    """
    forms: set[str] = set()
    for s in {secret, secret.strip()}:
        forms |= _escaped_forms(s)
        raw = s.encode("utf-8", "surrogatepass")
        forms |= base64_forms(raw)
        forms.add(raw.hex())
    return {f for f in forms if len(f) >= _MIN_FORM}


@functools.lru_cache(maxsize=64)
def _lower_forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    """Every form of every key, lower-cased: a fast test for whether a text needs scrubbing at all."""
    return tuple({f.lower() for secret in secrets if secret for f in secret_forms(secret)})


@functools.lru_cache(maxsize=64)
def _pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    """One compiled alternation of every form of every key, longest first (compiled once per key set)."""
    forms: set[str] = set()
    for secret in secrets:
        if secret:
            forms |= secret_forms(secret)
    if not forms:
        return None
    ordered = sorted(forms, key=len, reverse=True)
    return re.compile("|".join(re.escape(f) for f in ordered), flags=re.IGNORECASE)


def scrub(text: str, secrets: list[str]) -> str:
    """The text with every known key (any escaped or encoded form, any case) and key-like words redacted."""
    known = tuple(s for s in secrets if s)
    pattern = _pattern(known)
    if pattern is not None and _holds_a_form(text, known):
        text = pattern.sub(REDACTED, text)
    return KEYLIKE.sub(REDACTED, text) if _keylike_possible(text) else text


def _holds_a_form(text: str, secrets: tuple[str, ...]) -> bool:
    """Whether any form of any key occurs (any case): plain substring tests, far cheaper than the regex."""
    low = text.lower()
    return any(form in low for form in _lower_forms(secrets))


def _keylike_possible(text: str) -> bool:
    """A cheap test before the key-like pattern (which costs ~0.1 us per character to run)."""
    return "k-" in text and ("sk-" in text or "rk-" in text)


def scrub_json(value: object, secrets: list[str]) -> object:
    """A parsed JSON value with every string (object keys included) scrubbed; a new value.

    Scrubbing the parsed value rather than the text also catches a key written with `\\uXXXX`
    escapes, which only mean the key once decoded.
    """
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, list):
        return [scrub_json(v, secrets) for v in value]
    if isinstance(value, dict):
        return {scrub(str(k), secrets): scrub_json(v, secrets) for k, v in value.items()}
    return value


def one_line(text: str, limit: int = 300) -> str:
    """White space collapsed, cut to `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def scrub_body(body: bytes, secrets: list[str]) -> bytes:
    """An HTTP body with every form of every key removed; the same bytes when there is none.

    A JSON body (or each JSON `data:` line of a stream) is scrubbed value by value and written back,
    so `\\uXXXX`-escaped keys go too and the body stays valid JSON; any other body as text (and a
    JSON value too deep to walk as well).
    """
    text = body.decode("utf-8", "surrogateescape")
    if scrub(text, secrets) == text and "\\u" not in text:
        return body
    whole = _scrubbed_json(text, secrets)
    if whole is not None:
        return body if whole[0] else whole[1].encode("utf-8", "surrogateescape")
    lines = []
    for line in text.split("\n"):
        head, sep, rest = line.partition("data:")
        event = _scrubbed_json(rest, secrets) if sep and not head.strip() else None
        lines.append(head + sep + " " + event[1] if event is not None else scrub(line, secrets))
    return "\n".join(lines).encode("utf-8", "surrogateescape")


def _scrubbed_json(text: str, secrets: list[str]) -> tuple[bool, str] | None:
    """(unchanged, scrubbed JSON text) when the text is a JSON object or array it can walk, else None."""
    parsed = _json_or_none(text)
    if parsed is None:
        return None
    try:
        cleaned = scrub_json(parsed[0], secrets)
        if cleaned == parsed[0]:
            return True, text
        return False, json.dumps(cleaned, ensure_ascii=False)
    except RecursionError:
        return None


def _json_or_none(text: str) -> tuple[object] | None:
    """(value,) when the text is one JSON object or array, else None."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return (value,)
