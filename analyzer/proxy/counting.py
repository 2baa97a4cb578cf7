"""The tokens the proxy counts for each chat attempt: the request's from the moment it goes upstream,
the answer's once it has gone to the client.

The tokenizer holds the interpreter while it runs (bpe-openai's binding does not release the GIL:
about 0.5 ms per 8,000 tokens), so each proxy counts in a process of its own (`count_process`,
started and stopped with the proxy's event loop; the vocabulary lives there, the proxy loads none).
The prompt's new texts go to it as the request is forwarded (`count_ahead`), so they are counted
on the other core while the upstream answers; the answer's after it was relayed (a stream's text
held as it arrives, up to the counting bound). Each text is counted in one go. Should that process
be gone, the proxy counts here instead, in steps of `STEP_CHARS` characters letting the event loop
go between them (`RunningCount` cuts only where tokens do not change, so the count is the same).
An agent resends its whole conversation every turn, so each message's count is kept by the hash of
its text (`SEEN_TEXTS` of them, least recently used dropped): a turn counts only its new messages.
Tool definitions repeat every turn too: their count (or why the cookbook's rule does not cover them)
is kept by the hash of the definitions. Only the counts reach the journal, never the texts."""

from __future__ import annotations

import asyncio
import hashlib
import marshal
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from analyzer.metrics.prompt_rule import ToolList, Uncovered, checked_functions, tool_parts
from analyzer.metrics.token_count import MAX_COUNTED_CHARS, RunningCount
from analyzer.proxy.count_process import MAX_STARTS, Counter, CounterGone

if TYPE_CHECKING:
    from analyzer.proxy.facts import RequestFacts, ResponseFacts

STEP_CHARS = 2_000
"""Characters counted between two turns of the event loop (when counting in the proxy itself)."""
SEEN_TEXTS = 4_096
"""Counts of this many message texts are kept (by hash: 16 bytes and a number each)."""
SEEN_TOOLS = 256
"""Counts (or reasons not counted) of this many distinct tool lists are kept, by hash."""
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
        return {"not_counted": asked.not_counted or NOT_CHAT}
    encoding = answered.counting.encoding
    prompt = await _prompt_tokens(asked, encoding)
    uncovered = prompt if isinstance(prompt, str) else None
    prompt = None if uncovered else prompt
    answer_texts = _answer_texts(answered)
    completion = None if answer_texts is None else sum(await _counted(answer_texts, encoding))
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
    return tools + parts.fixed + sum(await _counted(parts.texts, encoding))


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
Known = int | tuple["asyncio.Future[list[int]]", int]
"""What is known of a text's tokens: its count, or the counting process's call under way and the
text's place in it."""


@dataclass
class _Here:
    """One event loop's (one proxy's) counting process and the calls it has under way."""

    counter: Counter | None = None
    starts: int = 0
    pending: dict[Key, tuple[asyncio.Future[list[int]], int]] = field(default_factory=dict)


_loops: dict[asyncio.AbstractEventLoop, _Here] = {}


async def start_counting(encoding: str | None) -> None:
    """Start this event loop's counting process, loading `encoding`'s vocabulary there now (when the
    route names its model; else the vocabulary a request needs is loaded on its first count)."""
    here = _loops.setdefault(asyncio.get_running_loop(), _Here())
    await _started(here)
    if here.counter is not None and encoding:
        here.counter.submit(["warm up"], encoding)


async def stop_counting() -> None:
    """Stop this event loop's counting process (the calls under way answered first)."""
    here = _loops.pop(asyncio.get_running_loop(), None)
    if here is not None and here.counter is not None:
        await here.counter.close()


def counting_pids() -> list[int]:
    """The process ids of the counting processes running."""
    return [h.counter.process.pid for h in list(_loops.values()) if h.counter and h.counter.alive]


async def _started(here: _Here) -> Counter | None:
    """The loop's counting process, started anew when it is gone (at most `MAX_STARTS` times)."""
    if (here.counter is None or not here.counter.alive) and here.starts < MAX_STARTS:
        here.starts += 1
        here.counter = await Counter.start()
    return here.counter if here.counter is not None and here.counter.alive else None


def count_ahead(asked: RequestFacts, encoding: str) -> None:
    """Send a chat request's new texts to the counting process as the request goes upstream: they
    are counted (on another core) while the upstream answers, rather than after the answer."""
    if asked.messages is None:
        return
    parts = asked.prompt_parts()
    if not isinstance(parts, Uncovered) and sum(map(len, parts.texts)) <= MAX_COUNTED_CHARS:
        _known(parts.texts, encoding)


def _known(texts: list[str], encoding: str) -> tuple[list[Key], dict[Key, tuple[str, Known | None]]]:
    """Each text's key, and for each key the text and what is known of its count; the unknown ones
    are sent to the counting process in one call (None: there is none, count them here)."""
    here = _loops.get(asyncio.get_running_loop())
    keys = [_key(text, encoding) for text in texts]
    out: dict[Key, tuple[str, Known | None]] = {}
    with _seen_lock:
        for key, text in zip(keys, texts, strict=True):
            count = _seen.get(key)
            if count is not None:
                _seen.move_to_end(key)
            out[key] = text, count if count is not None else here.pending.get(key) if here else None
    new = {k: text for k, (text, known) in out.items() if known is None}
    if new and here is not None and here.counter is not None and here.counter.alive:
        future = here.counter.submit(list(new.values()), encoding)
        for i, key in enumerate(new):
            here.pending[key] = future, i
            out[key] = new[key], (future, i)
        future.add_done_callback(lambda done: _settle(here, list(new), done))
    return keys, out


def _settle(here: _Here, keys: list[Key], done: asyncio.Future[list[int]]) -> None:
    """A call answered: its counts kept (by text), no longer under way."""
    for key in keys:
        here.pending.pop(key, None)
    if done.cancelled() or done.exception() is not None:
        return
    with _seen_lock:
        _seen.update(zip(keys, done.result(), strict=True))
        while len(_seen) > SEEN_TEXTS:
            _seen.popitem(last=False)


async def _counted(texts: list[str], encoding: str) -> list[int]:
    """Each text's tokens: kept from an earlier turn, else counted by the counting process (here,
    stepwise, when there is none)."""
    here = _loops.get(asyncio.get_running_loop())
    if here is not None:
        await _started(here)
    keys, known_by_key = _known(texts, encoding)
    counts: dict[Key, int] = {}
    for key, (text, known) in known_by_key.items():
        if isinstance(known, tuple):
            try:  # shielded: the call may serve other attempts too
                known = (await asyncio.shield(known[0]))[known[1]]
            except CounterGone:
                known = None
        counts[key] = known if known is not None else await _stepwise(text, encoding)
    with _seen_lock:
        for key, n in counts.items():
            _seen[key] = n
        while len(_seen) > SEEN_TEXTS:
            _seen.popitem(last=False)
    return [counts[key] for key in keys]


async def _stepwise(text: str, encoding: str) -> int:
    """A text counted here, the event loop let go after every `STEP_CHARS` characters."""
    running = RunningCount(encoding)
    for i in range(0, len(text), STEP_CHARS):
        running.add(text[i : i + STEP_CHARS])
        await asyncio.sleep(0)
    return running.total() or 0


_seen: OrderedDict[Key, int] = OrderedDict()
_seen_lock = threading.Lock()  # one proxy per event-loop thread, several in one process


_tools_seen: OrderedDict[Key, int | str] = OrderedDict()


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
        tokens = fixed + sum(await _counted(texts, encoding))
    with _seen_lock:
        _tools_seen[key] = tokens
        if len(_tools_seen) > SEEN_TOOLS:
            _tools_seen.popitem(last=False)
    return tokens


def _key(text: str, encoding: str) -> Key:
    return encoding, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
