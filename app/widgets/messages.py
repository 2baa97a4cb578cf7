"""Text for the page: markdown-safe messages, one-line errors (never a traceback), log text in a box."""

from __future__ import annotations

import re

import streamlit as st

from analyzer.errors import RerunLensError

URL = re.compile(r"https?://[^\s`]+")


def safe(text: str) -> str:
    """Text for markdown elements: escaped, with URLs as literal code spans (escapes would show in links)."""
    parts, last = [], 0
    for match in URL.finditer(text):
        url = match.group(0).rstrip(".,;:)")
        parts += [escape(text[last : match.start()]), f"`{url}`"]
        last = match.start() + len(url)
    return "".join([*parts, escape(text[last:])])


def one_line_error(exc: Exception) -> str:
    """The analyzer's one-line message, or the error's type for anything unexpected."""
    return exc.message if isinstance(exc, RerunLensError) else f"unexpected {type(exc).__name__}"


_MARKDOWN_SPECIALS = "\\`*_{}[]()<>#+-.!|~$:@&="


def escape(text: object) -> str:
    """Text from a log (labels, file names, messages) made safe to put inside markdown: plain text.

    Every markdown punctuation is backslash-escaped, including `:` (no `:material/...:` icons, no
    `:red[...]` colours, no `https://` autolinks), `@` (no e-mail autolinks), `&` (no entities) and
    `=` (no setext headings), so a file name or label never renders as a link, an image or markup.
    """
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in str(text))


def inline_code(text: str) -> str:
    """Text for inside a markdown code span (a backquote would end it)."""
    return text.replace("`", "'")


def text_box(text: str) -> None:
    """Log text as plain text in a bordered box. Not `st.code`: a code block loads the browser's
    syntax highlighter, about 0.55 s on every page load that shows one (scripts/bench_elements.py)."""
    with st.container(border=True):
        st.text(text)
