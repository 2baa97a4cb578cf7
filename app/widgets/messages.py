"""Text for the page: markdown-safe messages and one-line errors (never a traceback)."""

from __future__ import annotations

import re

from analyzer.errors import RerunLensError
from app import data

URL = re.compile(r"https?://[^\s`]+")


def safe(text: str) -> str:
    """Text for markdown elements: escaped, with URLs as literal code spans (escapes would show in links)."""
    parts, last = [], 0
    for match in URL.finditer(text):
        url = match.group(0).rstrip(".,;:)")
        parts += [data.escape(text[last : match.start()]), f"`{url}`"]
        last = match.start() + len(url)
    return "".join([*parts, data.escape(text[last:])])


def one_line_error(exc: Exception) -> str:
    """The analyzer's one-line message, or the error's type for anything unexpected."""
    return exc.message if isinstance(exc, RerunLensError) else f"unexpected {type(exc).__name__}"
