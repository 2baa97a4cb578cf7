"""The tokens the proxy counts for an attempt, after its answer has gone to the client.

The tokenizer holds the interpreter while it runs (bpe-openai's binding does not release the GIL:
about 0.5 ms per 8,000 tokens), so the proxy counts in a process of its own (`counter`, one per
Python process, shared by its proxies; spawned, so the vocabulary lives there and the proxy's event
loop is never held). The texts go to it whole and are counted in one go. Should that process be
gone, the proxy counts here instead, in steps of `STEP_CHARS` characters letting the event loop go
between them (`RunningCount` cuts only where tokens do not change, so the count is the same).
An agent resends its whole conversation every turn, so each message's count is kept by the hash of
its text (`SEEN_TEXTS` of them, least recently used dropped): a turn counts only its new messages.
Only the counts reach the journal, never the texts.
"""

from __future__ import annotations

import asyncio
import hashlib
import multiprocessing
import threading
from collections import OrderedDict
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from analyzer.metrics.token_count import MAX_COUNTED_CHARS, RunningCount, count_text, message_parts

if TYPE_CHECKING:  # not imported at run time: the counting process imports this module, and only it
    from analyzer.proxy.facts import RequestFacts, ResponseFacts

STEP_CHARS = 2_000
"""Characters counted between two turns of the event loop (when counting in the proxy itself)."""
ONE_GO_CHARS = 50_000
"""The longest text counted in one call: at most 4 bytes a character stays within the tokenizer's
200,000-token limit per call (a longer one is counted piecewise by `RunningCount`, with the same result)."""
SEEN_TEXTS = 4_096
"""Counts of this many message texts are kept (by hash: 16 bytes and a number each)."""
NOT_CHAT = "not a chat completion (or its body is over the counting bound)"


class HeldText(RunningCount):
    """A stream's answer text, held as it arrives (up to the counting bound) to be counted with the
    rest of the attempt after the stream ended, rather than counted piece by piece in the proxy."""

    def __init__(self, encoding: str, limit: int = MAX_COUNTED_CHARS) -> None:
        super().__init__(encoding, limit)
        self.pieces: list[str] = []

    def add(self, piece: str) -> None:
        if self.over:
            return
        self.chars += len(piece)
        if self.chars > self.limit:
            self.over, self.pieces = True, []
            return
        self.pieces.append(piece)

    def text(self) -> str | None:
        """The text held, None when it went over the bound."""
        return None if self.over else "".join(self.pieces)


async def attempt_counts(asked: RequestFacts, answered: ResponseFacts) -> dict[str, Any]:
    """The attempt record's `counted` (and `not_counted`, why a figure is missing)."""
    if answered.counting is None or asked.messages is None:
        return {"not_counted": NOT_CHAT}
    encoding = answered.counting.encoding
    fixed, texts = message_parts(asked.messages)
    asked_texts = texts if sum(map(len, texts)) <= MAX_COUNTED_CHARS else None
    answer_texts = _answer_texts(answered)
    counts = await _counted([*(asked_texts or []), *(answer_texts or [])], encoding)
    prompt = None if asked_texts is None else fixed + sum(counts[: len(asked_texts)])
    completion = None if answer_texts is None else sum(counts[len(asked_texts or []) :])
    over = [name for name, n in (("the request", prompt), ("the answer", completion)) if n is None]
    why = f"{' and '.join(over)} over {MAX_COUNTED_CHARS:,} characters, not counted" if over else None
    result = {"encoding": encoding, "prompt_tokens": prompt, "completion_tokens": completion}
    return {"counted": result, "not_counted": why}


def _answer_texts(answered: ResponseFacts) -> list[str] | None:
    """The answer's texts to count (each on its own), None when over the counting bound."""
    held = answered.counting
    if answered.stream and isinstance(held, HeldText):
        text = held.text()
        return None if text is None else [text]
    if held is None or sum(map(len, answered.parts)) > held.limit:
        return None
    return answered.parts


async def _counted(texts: list[str], encoding: str) -> list[int]:
    """Each text's tokens: kept from an earlier turn, else counted by the counting process (here,
    stepwise, when it is gone)."""
    keys = [_key(t, encoding) for t in texts]
    with _seen_lock:
        known = [_seen.get(k) for k in keys]
        for k, n in zip(keys, known, strict=True):
            if n is not None:
                _seen.move_to_end(k)
    new = list(dict.fromkeys(t for t, n in zip(texts, known, strict=True) if n is None))
    fresh = dict(zip(new, await _count_new(new, encoding), strict=True))
    with _seen_lock:
        for text, n in fresh.items():
            _seen[_key(text, encoding)] = n
        while len(_seen) > SEEN_TEXTS:
            _seen.popitem(last=False)
    return [n if n is not None else fresh[t] for t, n in zip(texts, known, strict=True)]


async def _count_new(texts: list[str], encoding: str) -> list[int]:
    if not texts:
        return []
    pool = counter()
    if pool is not None:
        try:
            return await asyncio.wrap_future(pool.submit(count_texts, texts, encoding))
        except BrokenExecutor:
            _drop_counter(pool)
    return [await _stepwise(text, encoding) for text in texts]


def count_texts(texts: list[str], encoding: str) -> list[int]:
    """Each text's tokens, in one go (what the counting process runs)."""
    return [count_text(t, encoding) if len(t) <= ONE_GO_CHARS else _piecewise(t, encoding) for t in texts]


def _piecewise(text: str, encoding: str) -> int:
    running = RunningCount(encoding)
    for i in range(0, len(text), ONE_GO_CHARS):
        running.add(text[i : i + ONE_GO_CHARS])
    return running.total() or 0


async def _stepwise(text: str, encoding: str) -> int:
    """A text counted here, the event loop let go after every `STEP_CHARS` characters."""
    running = RunningCount(encoding)
    for i in range(0, len(text), STEP_CHARS):
        running.add(text[i : i + STEP_CHARS])
        await asyncio.sleep(0)
    return running.total() or 0


_seen: OrderedDict[tuple[str, bytes], int] = OrderedDict()
_seen_lock = threading.Lock()  # one proxy per event-loop thread, several in one process


def _key(text: str, encoding: str) -> tuple[str, bytes]:
    return encoding, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


_counter: ProcessPoolExecutor | None = None
_counter_lock = threading.Lock()


def counter() -> ProcessPoolExecutor | None:
    """The counting process (started on first need); None when it cannot be started."""
    global _counter
    with _counter_lock:
        if _counter is None:
            try:
                _counter = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            except (OSError, ValueError):
                return None
        return _counter


def start_counting(encoding: str | None) -> None:
    """Start the counting process now, loading `encoding`'s vocabulary there (when the route names
    its model; else the vocabulary a request needs is loaded on its first count)."""
    pool = counter()
    if pool is not None:
        try:
            pool.submit(count_texts, ["warm up"] if encoding else [], encoding or "")
        except (BrokenExecutor, RuntimeError):
            _drop_counter(pool)


def _drop_counter(pool: ProcessPoolExecutor) -> None:
    """Forget a broken counting process (the next count starts another)."""
    global _counter
    with _counter_lock:
        if _counter is pool:
            _counter = None
    pool.shutdown(wait=False, cancel_futures=True)
