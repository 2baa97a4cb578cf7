"""The one forwarding rule: which request paths the proxy sends on, and to exactly which URL.

Only the endpoints the proxy serves are forwarded, each to the route's API root with its path
prefix kept (`http://GW/team-a/openai/v1` + `/chat/completions`). The path is judged as the client
sent it (the raw bytes, before any decoding): a dot segment, a percent escape, a backslash, an
empty segment or anything under `/v1/models/` that is not one plain model id is refused before
any upstream request, so no HTTP client can normalise it into another path that gets the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ENDPOINTS = {
    ("POST", "/v1/chat/completions"),
    ("POST", "/v1/completions"),
    ("POST", "/v1/responses"),
    ("POST", "/v1/embeddings"),
    ("POST", "/v1/messages"),
    ("POST", "/v1/messages/count_tokens"),
    ("GET", "/v1/models"),
}
"""What the proxy forwards (OpenAI chat, responses, embeddings, models; Anthropic messages)."""
MODEL_PREFIX = "/v1/models/"
MODEL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@+-]{0,199}")
"""A plain model id (`gpt-4o-mini`, `ft:gpt-4o:org:x:1`, `claude-3-5-haiku@20241022`): one segment."""
_PLAIN_PATH = re.compile(r"(/[A-Za-z0-9_.:@+-]+)+/?")


def forwarded_path(method: str, raw_path: bytes) -> str | None:
    """The path to forward (`/v1/...`, no trailing slash), or None when the proxy does not forward it."""
    try:
        text = raw_path.decode("ascii")
    except UnicodeDecodeError:
        return None
    if not _PLAIN_PATH.fullmatch(text):
        return None  # a percent escape, a backslash, an empty segment, a control character
    path = text.rstrip("/")
    if (method, path) in ENDPOINTS:
        return path
    model = path.removeprefix(MODEL_PREFIX)
    plain = model != path and MODEL_ID.fullmatch(model)
    return path if method == "GET" and plain else None


@dataclass(frozen=True)
class ApiRoot:
    """One API root of the route: where its requests go, and how the journal shows it."""

    url: str
    """The base URL without its final `/v1` (`http://GW/team-a/openai`)."""
    shown: str

    def target(self, path: str, query: str) -> str:
        """The URL for a forwarded path (`/v1/...`): the root's path prefix kept, nothing normalised."""
        return self.url + path + (f"?{query}" if query else "")

    def holds(self, url: str) -> bool:
        """Whether a URL (a redirect's target too) is one of this root's own endpoints: the root as
        written, then a path the proxy forwards. Only such a URL gets the key. Compared as text: a
        URL spelled otherwise (another case, an explicit default port) gets no key, never the reverse."""
        if not url.startswith(self.url + "/v1/"):
            return False
        rest = url[len(self.url) :].split("?", 1)[0].encode("ascii", "replace")
        return forwarded_path("GET", rest) is not None or forwarded_path("POST", rest) is not None
