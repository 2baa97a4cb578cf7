"""Progress of a run: a snapshot type for callbacks and a terminal progress bar."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import TextIO


@dataclass(frozen=True)
class Progress:
    """Where a run stands; passed to the progress callback after every finished result."""

    done: int
    """Results finished (resumed ones included)."""
    total: int
    """Results the run will have."""
    tokens: int
    """Tokens spent so far."""
    retries: int
    """Retries so far (attempts beyond the first, over all results)."""
    errors: int
    """Results that errored so far."""
    elapsed_s: float
    """Seconds since this process started the run."""

    @property
    def fraction(self) -> float:
        """done / total, 0..1."""
        return self.done / self.total if self.total else 1.0


class TerminalProgress:
    """A one-line progress bar on a terminal; plain lines every 10% when not a terminal."""

    def __init__(self, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._lock = threading.Lock()
        self._last_decile = -1
        self._last_draw = 0.0

    def __call__(self, p: Progress) -> None:
        with self._lock:
            line = f"{p.done}/{p.total} results  tokens {p.tokens:,}  retries {p.retries}" + (
                f"  errors {p.errors}" if p.errors else ""
            )
            if self.tty:
                now = time.monotonic()
                if p.done < p.total and now - self._last_draw < 0.1:
                    return
                self._last_draw = now
                filled = int(self.width * p.fraction)
                bar = "#" * filled + "-" * (self.width - filled)
                self.stream.write(f"\r[{bar}] {line}")
                if p.done >= p.total:
                    self.stream.write("\n")
            else:
                decile = int(p.fraction * 10)
                if decile == self._last_decile:
                    return
                self._last_decile = decile
                self.stream.write(line + "\n")
            self.stream.flush()

    def finish(self) -> None:
        """End the bar's line (after an interruption)."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
