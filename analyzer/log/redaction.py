"""A log's text made safe to show: no key in a base URL, an error message or an answer.

RerunLens's runner scrubs what it writes, but a log from elsewhere (another tool's file, a team's
own script) may carry a key in a base URL (`https://user:KEY@host/v1`, `?api-key=KEY`) or quote one
in an error message. Imports pass every value of a result through `redacted_payload` before it is
kept or written; the frames that every view, report and verdict reads pass their URL columns
through `redacted_urls` and their text columns through `scrubbed_texts`, so a native log shows no
key either. Key-like words are what `analyzer.safety.scrub` removes from responses (`sk-…`, `rk-…`);
URLs are masked by `analyzer.safety.url_secrets.redact_url` (user info, query values, fragment, key-shaped
path segments).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from analyzer.log.model import Route
from analyzer.safety.scrub import scrub, scrub_json
from analyzer.safety.url_secrets import redact_url

__all__ = ["redacted_payload", "redacted_route", "redacted_urls", "scrubbed_texts", "shown_text"]

_URL_FIELDS = ("base_url", "redirect_to")
_NEEDLE = "k-"
"""Every key-like word holds it (`sk-`, `rk-`): rows without it are left alone without a regex."""


def redacted_urls(values: Sequence[str | None]) -> list[str | None]:
    """Each URL with its secrets masked; each distinct URL is redacted once (a log repeats a few)."""
    masked = {v: redact_url(v) for v in set(values) if isinstance(v, str)}
    return [masked.get(v) if isinstance(v, str) else v for v in values]


def scrubbed_texts(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """A string column with key-like words redacted; the same array when no row could hold one."""
    candidates = pc.match_substring(values, _NEEDLE)
    if not pc.any(candidates).as_py():
        return values
    texts = values.to_pylist()
    rows = pc.indices_nonzero(pc.fill_null(candidates, False)).to_pylist()
    for row in rows:
        texts[row] = scrub(texts[row], [])
    return pa.chunked_array([pa.array(texts, type=values.type)])


def shown_text(text: str | None) -> str | None:
    """One text from a log as a page may show it (a prompt, a tool call, a message): key-like words
    redacted."""
    return scrub(text, []) if isinstance(text, str) else text


def redacted_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """An imported result's fields (a new value) with the URLs of its route and attempts redacted,
    then key-like words scrubbed from every string. URLs go first: a scrubbed key inside a URL
    would leave text no URL parser reads."""
    fixed = dict(payload)
    if isinstance(fixed.get("route"), dict):
        fixed["route"] = _urls_redacted(fixed["route"])
    if isinstance(fixed.get("attempts"), list):
        fixed["attempts"] = [_urls_redacted(a) if isinstance(a, dict) else a for a in fixed["attempts"]]
    return scrub_json(fixed, [])  # type: ignore[return-value]


def redacted_route(route: Route | None) -> Route | None:
    """An imported log's run-level route with its base URL's secrets masked."""
    if route is None or not route.base_url:
        return route
    return route.model_copy(update={"base_url": redact_url(route.base_url)})


def _urls_redacted(holder: dict[str, Any]) -> dict[str, Any]:
    return {k: redact_url(v) if k in _URL_FIELDS and isinstance(v, str) else v for k, v in holder.items()}
