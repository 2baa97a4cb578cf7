"""The tokens the proxy counts for an attempt, after its answer has gone to the client.

The count runs in steps of `STEP_CHARS` characters and lets the event loop go between them, so a
request arriving meanwhile is forwarded between two steps, not after the whole count (the tokenizer
holds the interpreter while it runs: about 0.6 ms per 8,000 tokens). A text is cut only where its
tokens do not change (`RunningCount`), so the stepwise count equals the count in one go. An agent
resends its whole conversation every turn, so each message's count is kept by the hash of its text
(`SEEN_TEXTS` of them, least recently used dropped): a turn counts only its new messages. Only the
counts reach the journal, never the texts.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections import OrderedDict
from typing import Any

from analyzer.metrics.token_count import MAX_COUNTED_CHARS, RunningCount, count_text, message_parts
from analyzer.proxy.facts import RequestFacts, ResponseFacts

STEP_CHARS = 2_000
"""Characters counted between two turns of the event loop."""
SEEN_TEXTS = 4_096
"""Counts of this many message texts are kept (by hash: 16 bytes and a number each)."""
NOT_CHAT = "not a chat completion (or its body is over the counting bound)"


async def attempt_counts(asked: RequestFacts, answered: ResponseFacts) -> dict[str, Any]:
    """The attempt record's `counted` (and `not_counted`, why a figure is missing)."""
    if answered.counting is None or asked.messages is None:
        return {"not_counted": NOT_CHAT}
    encoding = answered.counting.encoding
    fixed, texts = message_parts(asked.messages)
    prompt = None
    if sum(map(len, texts)) <= MAX_COUNTED_CHARS:
        prompt = fixed + sum([await _text_tokens(t, encoding) for t in texts])
    completion = await _stepwise(answered.parts, answered.counting)  # a stream's: counted already
    over = [name for name, n in (("the request", prompt), ("the answer", completion)) if n is None]
    why = f"{' and '.join(over)} over {MAX_COUNTED_CHARS:,} characters, not counted" if over else None
    counts = {"encoding": encoding, "prompt_tokens": prompt, "completion_tokens": completion}
    return {"counted": counts, "not_counted": why}


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
