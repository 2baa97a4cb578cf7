"""The tokens the proxy counts for each chat attempt: the request's from the moment it goes upstream,
the answer's once it has gone to the client.

The tokenizer holds the interpreter while it runs (bpe-openai's binding does not release the GIL:
about 0.5 ms per 8,000 tokens), so the proxy counts in a process of its own (`counter`: one per
Python process, shared by its proxies, spawned, so the vocabulary lives there and the proxy's event
loop is never held). The prompt's texts go to it as the request is forwarded (`count_ahead`), so
they are counted on the other core while the upstream answers; the answer's after it was relayed
(a stream's text held as it arrives, up to the counting bound). Each text is counted in one go.
Should that process be gone, the proxy counts here instead, in steps of `STEP_CHARS` characters
letting the event loop go between them (`RunningCount` cuts only where tokens do not change, so the
count is the same). An agent resends its whole conversation every turn, so each message's count is
kept by the hash of its text (`SEEN_TEXTS` of them, least recently used dropped): a turn counts only
its new messages. Only the counts reach the journal, never the texts."""

from __future__ import annotations

import asyncio
import hashlib
import multiprocessing
import threading
from collections import OrderedDict
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor
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


Key = tuple[str, bytes]
"""A text's encoding and hash."""
Known = int | tuple["Future[list[int]]", int]
"""What is known of a text's tokens: its count, or the counting process's call under way and the
text's place in it."""


def count_ahead(asked: RequestFacts, encoding: str) -> None:
    """Send a chat request's new texts to the counting process as the request goes upstream: they
    are counted (on another core) while the upstream answers, rather than after the answer."""
    if asked.messages is not None:
        _, texts = message_parts(asked.messages)
        if sum(map(len, texts)) <= MAX_COUNTED_CHARS:
            _known(texts, encoding)


def _known(texts: list[str], encoding: str) -> tuple[list[Key], dict[Key, tuple[str, Known | None]]]:
    """Each text's key, and for each key the text and what is known of its count; the unknown ones
    are sent to the counting process in one call (None: it is gone, count them here)."""
    keys = [_key(text, encoding) for text in texts]
    out: dict[Key, tuple[str, Known | None]] = {}
    with _seen_lock:
        for key, text in zip(keys, texts, strict=True):
            out[key] = text, _seen.get(key)
            if out[key][1] is not None:
                _seen.move_to_end(key)
        new = {k: text for k, (text, known) in out.items() if known is None}
        future = _submit(list(new.values()), encoding) if new else None
        for i, key in enumerate(new):
            if future is not None:
                out[key] = new[key], (future, i)
                _seen[key] = future, i
        while len(_seen) > SEEN_TEXTS:
            _seen.popitem(last=False)
    return keys, out


async def _counted(texts: list[str], encoding: str) -> list[int]:
    """Each text's tokens: kept from an earlier turn, else counted by the counting process (here,
    stepwise, when it is gone)."""
    keys, known_by_key = _known(texts, encoding)
    counts: dict[Key, int] = {}
    for key, (text, known) in known_by_key.items():
        if isinstance(known, tuple):
            try:  # shielded: the call may serve other attempts too
                known = (await asyncio.shield(asyncio.wrap_future(known[0])))[known[1]]
            except Exception:  # the counting process died (or failed): counted here instead
                known = None
        counts[key] = known if known is not None else await _stepwise(text, encoding)
    with _seen_lock:
        for key, n in counts.items():
            if key in _seen:
                _seen[key] = n
    return [counts[key] for key in keys]


def _submit(texts: list[str], encoding: str) -> Future[list[int]] | None:
    """One call of the counting process, None when it is gone (and forgotten: the next starts anew)."""
    pool = counter()
    if pool is None:
        return None
    try:
        return pool.submit(count_texts, texts, encoding)
    except (BrokenExecutor, RuntimeError):
        _drop_counter(pool)
        return None


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


_seen: OrderedDict[Key, Known] = OrderedDict()
_seen_lock = threading.Lock()  # one proxy per event-loop thread, several in one process


def _key(text: str, encoding: str) -> Key:
    return encoding, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


MAX_STARTS = 3
"""Counting processes started at most in one Python process: one that keeps dying (a main script
that a spawned process cannot import, say) leaves the counting to the proxy itself."""
_counter: ProcessPoolExecutor | None = None
_counter_lock = threading.Lock()
_starts = 0


def counter() -> ProcessPoolExecutor | None:
    """The counting process (started on first need); None when it cannot be started."""
    global _counter, _starts
    with _counter_lock:
        if _counter is None and _starts < MAX_STARTS:
            _starts += 1
            try:
                _counter = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            except (OSError, ValueError):
                return None
        return _counter


def start_counting(encoding: str | None) -> None:
    """Start the counting process now, loading `encoding`'s vocabulary there (when the route names
    its model; else the vocabulary a request needs is loaded on its first count)."""
    _submit(["warm up"] if encoding else [], encoding or "")


def _drop_counter(pool: ProcessPoolExecutor) -> None:
    """Forget a broken counting process (the next count starts another)."""
    global _counter
    with _counter_lock:
        if _counter is pool:
            _counter = None
    pool.shutdown(wait=False)
