"""The proxy's counting process: a child Python that counts tokens, so the proxy's event loop never
runs the tokenizer (bpe-openai's binding holds the GIL while it encodes).

One per event loop (a proxy), started with it and stopped with it. The texts go down its stdin as
one JSON line per call, `[encoding, [text, ...]]`, and their counts come back as one line, in the
same order, read by the loop itself: no thread and no pickling on the proxy's side. A failed call
answers `null`; should the process die, the calls under way fail and `CounterGone` says so (the
proxy then counts in-process). It loads only the vocabularies asked of it.

    python -m analyzer.proxy.count_process     (what `Counter.start` runs)
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import deque
from typing import Any

from analyzer.metrics.token_count import RunningCount, count_text

ONE_GO_CHARS = 50_000
"""The longest text counted in one call: at most 4 bytes a character stays within the tokenizer's
200,000-token limit per call (a longer one is counted piecewise by `RunningCount`, with the same result)."""
KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT")
"""The only environment variables the counting process gets."""
MAX_ANSWER_LINE = 64 * 1024 * 1024
"""The longest answer line read back (a call of many texts answers one count per text)."""
MAX_STARTS = 3
"""Counting processes started at most for one proxy: one that keeps dying leaves the counting to
the proxy itself."""


class CounterGone(Exception):
    """The counting process ended (or failed a call): count in the proxy instead."""


def count_texts(texts: list[str], encoding: str) -> list[int]:
    """Each text's tokens, in one go (what the counting process runs per call)."""
    return [count_text(t, encoding) if len(t) <= ONE_GO_CHARS else _piecewise(t, encoding) for t in texts]


def _piecewise(text: str, encoding: str) -> int:
    running = RunningCount(encoding)
    for i in range(0, len(text), ONE_GO_CHARS):
        running.add(text[i : i + ONE_GO_CHARS])
    return running.total() or 0


def serve() -> None:
    """The counting process: a call per stdin line, its counts (or `null`) per stdout line."""
    for line in sys.stdin.buffer:
        try:
            encoding, texts = json.loads(line)
            answer: Any = count_texts(texts, encoding)
        except Exception:  # a bad call fails alone; the proxy counts it itself
            answer = None
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


class Counter:
    """The proxy's side of one counting process (used from its event loop only)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._waiting: deque[asyncio.Future[list[int]]] = deque()
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls) -> Counter | None:
        """A new counting process (None when none can be started); its imports run meanwhile."""
        # it needs no secret: only what starts Python, never the proxy's environment (a key in it)
        env = {k: os.environ[k] for k in KEPT_VARIABLES if k in os.environ}
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "analyzer.proxy.count_process",
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env,
                limit=MAX_ANSWER_LINE,
            )  # fmt: skip
        except OSError:
            return None
        return cls(process)

    @property
    def alive(self) -> bool:
        return not self._reader.done()

    def submit(self, texts: list[str], encoding: str) -> asyncio.Future[list[int]]:
        """Send one call (buffered by the pipe's transport: no wait); its counts when they come."""
        future: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_retrieved)
        if not self.alive or self.process.stdin is None:
            future.set_exception(CounterGone())
            return future
        self.process.stdin.write(json.dumps([encoding, texts]).encode() + b"\n")
        self._waiting.append(future)
        return future

    async def _read(self) -> None:
        assert self.process.stdout is not None
        try:
            while line := await self.process.stdout.readline():
                future = self._waiting.popleft()
                counts = json.loads(line)
                if not future.done():
                    future.set_result(counts) if counts is not None else future.set_exception(CounterGone())
        finally:  # the process ended, or its answer could not be read: no call is left waiting
            while self._waiting:
                future = self._waiting.popleft()
                if not future.done():
                    future.set_exception(CounterGone())
            if self.process.returncode is None:
                self.process.kill()

    async def close(self) -> None:
        """End the process once the calls under way are answered (killed after 5 s)."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 5)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        await asyncio.gather(self._reader, return_exceptions=True)


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a call's failure seen (a warm-up call's result is never awaited)."""
    if not future.cancelled():
        future.exception()


if __name__ == "__main__":
    serve()
