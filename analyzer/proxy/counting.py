"""The tokens the proxy counts for an attempt, after its answer has gone to the client.

The count runs in steps of `STEP_CHARS` characters and lets the event loop go between them, so a
request arriving meanwhile is forwarded between two steps, not after the whole count (the tokenizer
holds the interpreter while it runs: about 0.6 ms per 8,000 tokens). A text is cut only where its
tokens do not change (`RunningCount`), so the stepwise count equals the count in one go. An agent
resends its whole conversation every turn, so each message's count is kept by the hash of its text
(`SEEN_TEXTS` of them, least recently used dropped): a turn counts only its new messages. Tool
definitions repeat every turn too: their count is kept by the hash of the definitions. Only the
counts reach the journal, never the texts.
"""

from __future__ import annotations

import asyncio
import hashlib
import marshal
import threading
from collections import OrderedDict
from typing import Any

from analyzer.metrics.prompt_rule import ToolList, Uncovered, checked_functions, tool_parts
from analyzer.metrics.token_count import MAX_COUNTED_CHARS, RunningCount, count_text
from analyzer.proxy.facts import RequestFacts, ResponseFacts

STEP_CHARS = 2_000
"""Characters counted between two turns of the event loop."""
SEEN_TEXTS = 4_096
"""Counts of this many message texts are kept (by hash: 16 bytes and a number each)."""
SEEN_TOOLS = 256
"""Counts (or reasons not counted) of this many distinct tool lists are kept, by hash."""
NOT_CHAT = "not a chat completion (or its body is over the counting bound)"


async def attempt_counts(asked: RequestFacts, answered: ResponseFacts) -> dict[str, Any]:
    """The attempt record's `counted` (and `not_counted`, why a figure is missing)."""
    if answered.counting is None or asked.messages is None:
        return {"not_counted": asked.not_counted or NOT_CHAT}
    encoding = answered.counting.encoding
    prompt = await _prompt_tokens(asked, encoding)
    uncovered = prompt if isinstance(prompt, str) else None
    prompt = None if uncovered else prompt
    completion = await _stepwise(answered.parts, answered.counting)  # a stream's: counted already
    sizes = ([] if uncovered else [("the request", prompt)]) + [("the answer", completion)]
    over = [name for name, n in sizes if n is None]
    why = f"{' and '.join(over)} over {MAX_COUNTED_CHARS:,} characters, not counted" if over else None
    if uncovered:
        why = "; ".join([f"the prompt, not counted: {uncovered}", *([why] if why else [])])
    counts = {"encoding": encoding, "prompt_tokens": prompt, "completion_tokens": completion}
    return {"counted": counts, "not_counted": why}


async def _prompt_tokens(asked: RequestFacts, encoding: str) -> int | str | None:
    """The prompt's tokens by the cookbook's rules, why they do not cover it, or None when its
    messages are over the counting bound."""
    parts = asked.prompt_parts()
    if isinstance(parts, Uncovered):
        return parts.reason
    tools = await _tools_tokens(parts.tools, encoding)
    if isinstance(tools, str) or sum(map(len, parts.texts)) > MAX_COUNTED_CHARS:
        return tools if isinstance(tools, str) else None
    return tools + parts.fixed + sum([await _text_tokens(t, encoding) for t in parts.texts])


async def _stepwise(texts: list[str], running: RunningCount) -> int | None:
    """Each text counted on its own, onto `running`; the loop let go after every `STEP_CHARS`."""
    since = 0
    for text in texts:
        for i in range(0, len(text), STEP_CHARS):
            running.add(text[i : i + STEP_CHARS])
            since += min(STEP_CHARS, len(text) - i)
            if since >= STEP_CHARS:
                await asyncio.sleep(0)
                since = 0
        running.end_part()
    return running.total()


_seen: OrderedDict[tuple[str, bytes], int] = OrderedDict()
_seen_lock = threading.Lock()  # one proxy per event-loop thread, several in one process


_tools_seen: OrderedDict[tuple[str, bytes], int | str] = OrderedDict()


async def _tools_tokens(tools: ToolList, encoding: str) -> int | str:
    """A request's tool definitions' tokens by the cookbook's rule, or why they are not counted:
    kept from an earlier turn by a hash of their content (checked and counted only when new)."""
    if not tools:
        return 0
    content = marshal.dumps((tools.flat, tools.tools, tools.functions))  # a tenth of json.dumps' time
    key = encoding, hashlib.blake2b(content, digest_size=16).digest()
    with _seen_lock:
        known = _tools_seen.get(key)
        if known is not None:
            _tools_seen.move_to_end(key)
            return known
    functions = checked_functions(tools)
    if isinstance(functions, Uncovered):
        tokens: int | str = functions.reason
    else:
        fixed, texts = tool_parts(functions, encoding)
        tokens = fixed + sum([await _text_tokens(t, encoding) for t in texts])
    with _seen_lock:
        _tools_seen[key] = tokens
        if len(_tools_seen) > SEEN_TOOLS:
            _tools_seen.popitem(last=False)
    return tokens


async def _text_tokens(text: str, encoding: str) -> int:
    """One message text's tokens: kept from an earlier turn, or counted stepwise."""
    if len(text) < 64:
        return count_text(text, encoding)  # cheaper than a turn of the loop
    key = encoding, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    with _seen_lock:
        known = _seen.get(key)
        if known is not None:
            _seen.move_to_end(key)
            return known
    tokens = await _stepwise([text], RunningCount(encoding)) or 0
    with _seen_lock:
        _seen[key] = tokens
        if len(_seen) > SEEN_TEXTS:
            _seen.popitem(last=False)
    return tokens
