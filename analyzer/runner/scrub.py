"""Keep keys out of messages: error text from a provider may quote a key, masked or not."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

KEYLIKE = re.compile(r"\b(sk|rk)-[A-Za-z0-9*_\-]{6,}")


def secret_forms(secret: str) -> set[str]:
    """Every way a key may show up in a message: as is, stripped, and escaped.

    An HTTP library that refuses a header quotes it with `repr()` (`b'Bearer key\\n'`), JSON escapes
    it, a URL percent-encodes it; each of these forms must go, not just the literal key.
    """
    forms = {secret, secret.strip()}
    for s in (secret, secret.strip()):
        forms.add(repr(s)[1:-1])
        forms.add(repr(s.encode("utf-8", "backslashreplace"))[2:-1])
        forms.add(json.dumps(s)[1:-1])
        forms.add(json.dumps(s, ensure_ascii=False)[1:-1])
        forms.add(s.encode("unicode_escape").decode("ascii"))
        forms.add(quote(s, safe=""))
    return {f for f in forms if len(f) >= 4}


def scrub(text: str, secrets: list[str]) -> str:
    """The text with every known key (in any escaped form, any case) and anything key-like redacted."""
    forms: set[str] = set()
    for secret in secrets:
        if secret:
            forms |= secret_forms(secret)
    for form in sorted(forms, key=len, reverse=True):
        text = re.sub(re.escape(form), "[redacted]", text, flags=re.IGNORECASE)
    return KEYLIKE.sub("[redacted]", text)


def one_line(text: str, limit: int = 300) -> str:
    """White space collapsed, cut to `limit` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
