"""Keys in URLs: where a URL carries one, and the URL with it masked, safe to write down or show.

Kept apart from `analyzer.routes.url_lint` (which checks a base URL before a run and needs an HTTP URL
parser) so that everything that shows a log's URLs (frames, imports, reports) can redact them
without importing an HTTP stack.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

__all__ = [
    "REDACTED",
    "has_redaction",
    "looks_like_secret",
    "redact_url",
    "secret_places",
    "secret_values",
    "strip_query",
]

REDACTED = "REDACTED"
"""What a secret in a URL becomes; no brackets, so a redacted URL still parses and redacts to itself."""


def has_redaction(url: str | None) -> bool:
    """True when a URL carries a redaction marker (its secret was never saved, so it cannot be called)."""
    return bool(url) and (REDACTED in str(url) or "[redacted]" in str(url))


_KEY_PREFIXED = re.compile(
    r"(?:sk|rk|pk|gsk|xai|hf|r8|ghp|gho|glpat)[-_][A-Za-z0-9_\-]{16,}"
    r"|AIza[0-9A-Za-z_\-]{30,}|AKIA[0-9A-Z]{16}",
    re.IGNORECASE,
)
"""Key formats with a known prefix (OpenAI and look-alikes, Groq, xAI, Hugging Face, Google, AWS...)."""

_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-+/=.~]{32,}")


def looks_like_secret(text: str) -> bool:
    """True for a key-shaped word: a known key prefix, or a long random-looking token.

    A random token is 32+ URL-safe characters with upper case, lower case and digits (3+ of each)
    and a run of 20+ characters unbroken by `-`, `_` or `.`: deployment and model names
    (`Meta-Llama-3.1-70B-Instruct-Turbo`), UUIDs and hex account ids are not.
    """
    word = unquote(text)
    if _KEY_PREFIXED.fullmatch(word):
        return True
    if not _TOKEN_CHARS.fullmatch(word):
        return False
    counts = [sum(1 for c in word if test(c)) for test in (str.isupper, str.islower, str.isdigit)]
    return min(counts) >= 3 and max(len(part) for part in re.split(r"[-_.]", word)) >= 20


def _masked_segment(segment: str) -> str:
    """A path segment with a secret masked: the whole key-shaped segment, or the value of `name=value`."""
    name, eq, value = segment.partition("=")
    if eq and value and value != REDACTED:
        return f"{name}={REDACTED}"
    return REDACTED if looks_like_secret(segment) else segment


def secret_places(url: str) -> list[str]:
    """Where a URL carries what looks like a key: `user info`, `path`, `query`, `fragment` (in that order)."""
    try:
        p = urlsplit(url.strip())
        user, password = p.username, p.password
    except ValueError:
        return []
    places = []
    if password or (user and looks_like_secret(user)):
        places.append("user info")
    if any(_masked_segment(seg) != seg for seg in p.path.split("/")):
        places.append("path")
    query = parse_qsl(p.query, keep_blank_values=True)
    if any(looks_like_secret(v) or _is_key_name(k) and v for k, v in query):
        places.append("query")
    if p.fragment and p.fragment != REDACTED:
        fragment_words = re.split(r"[&=;#]", p.fragment)
        if "=" in p.fragment or any(looks_like_secret(w) for w in fragment_words):
            places.append("fragment")
    return places


SHORTEST_SECRET = 6
"""A URL part shorter than this is never scrubbed from text (`v1`, `us`, `1` are everywhere)."""


def secret_values(url: str | None) -> list[str]:
    """The secret parts of a URL themselves (password, key-shaped user or path segment, `name=value`
    path values, query values, fragment), as given and percent-decoded: what a scrubber must remove
    wherever a server echoes the URL back (a 404 body quoting the path)."""
    if not url:
        return []
    try:
        p = urlsplit(url.strip())
        user, password = p.username, p.password
    except ValueError:
        return []
    found = [password or "", user if user and looks_like_secret(user) else ""]
    for segment in p.path.split("/"):
        name, eq, value = segment.partition("=")
        found.append(value if eq else segment if looks_like_secret(segment) else "")
    found += [v for _k, v in parse_qsl(p.query, keep_blank_values=True)]
    found += re.split(r"[&=;#]", p.fragment) if p.fragment else []
    words = [w for w in found if len(w) >= SHORTEST_SECRET and w != REDACTED]
    return list(dict.fromkeys([*words, *(unquote(w) for w in words)]))


def _is_key_name(name: str) -> bool:
    return name.lower().replace("-", "_") in {
        "key",
        "api_key",
        "apikey",
        "token",
        "access_token",
        "auth",
        "secret",
    }


def redact_url(url: str) -> str:
    """The URL safe to write down: user info, every query value, the fragment and key-shaped path
    segments (or `name=value` values in the path) become `REDACTED`.

    Some proxies take a key in the URL (`?key=...`, `/key/sk-.../v1`, `#token=...`); a log or a page
    must never show it. The fragment is never sent, so masking it loses nothing. Idempotent:
    redacting a redacted URL gives it back unchanged.
    """
    try:
        p = urlsplit(url.strip())
        password = p.password
        user = p.username or ""
    except ValueError:
        return "unparseable-URL"
    netloc = p.netloc
    if password is not None or "@" in netloc:
        host = netloc.rsplit("@", 1)[-1]
        netloc = f"{user}:{REDACTED}@{host}" if password is not None else f"{REDACTED}@{host}"
    query = "&".join(f"{k}={REDACTED}" if v else k for k, v in parse_qsl(p.query, keep_blank_values=True))
    path = "/".join(_masked_segment(seg) for seg in p.path.split("/"))
    fragment = REDACTED if p.fragment else ""
    return urlunsplit((p.scheme, netloc, path, query, fragment))


def strip_query(url: str) -> str:
    """The URL without query string and fragment (used to keep logs free of tracking junk)."""
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, p.path, "", ""))
