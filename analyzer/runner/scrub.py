"""Keep keys out of messages: error text from a provider may quote a key, masked or not."""

from __future__ import annotations

import re

KEYLIKE = re.compile(r"\b(sk|rk)-[A-Za-z0-9*_\-]{6,}")


def scrub(text: str, secrets: list[str]) -> str:
    """The text with every known key and anything that looks like one replaced by `[redacted]`."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return KEYLIKE.sub("[redacted]", text)


def one_line(text: str, limit: int = 300) -> str:
    """White space collapsed, cut to `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
