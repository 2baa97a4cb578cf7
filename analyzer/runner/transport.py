"""Record every HTTP attempt the SDK makes, by wrapping the transport of its http client.

Response event hooks miss attempts that time out or never connect, so the wrapper sits where every
attempt passes: `handle_request`. It also puts the key on the request (the SDK itself only ever holds
a placeholder), which is how key rotation works and why a key can never end up in the SDK's repr.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx2

from analyzer.keys import key_fingerprint
from analyzer.model import Attempt, Outcome

SEQ_HEADER = "x-rerunlens-seq"
"""The result's position in its run, sent as a trace header (the simulator keys its random draws on it)."""

SDK_PLACEHOLDER_KEY = "set-per-attempt-by-rerunlens"
"""What the SDK is given as its key; the transport replaces it with the real one on each attempt."""


def now_utc() -> datetime:
    """The current time, UTC, timezone-aware."""
    return datetime.now(UTC)


def outcome_for_status(status: int) -> Outcome:
    """The attempt outcome a status code stands for."""
    if 200 <= status < 300:
        return "ok"
    if status == 429:
        return "rate_limited"
    if status in (401, 403):
        return "auth_error"
    if status == 404:
        return "not_found"
    if status == 408:
        return "timeout"
    if status >= 500:
        return "server_error"
    return "bad_request"


def retry_after_seconds(headers: httpx2.Headers) -> float | None:
    """Retry-After as the SDK reads it (`retry-after-ms` first, then seconds), when numeric."""
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            continue
        if seconds >= 0 and seconds != float("inf"):
            return seconds
    return None


@dataclass
class AttemptRecorder:
    """Collects the attempts behind one result (set as the current recorder while it runs)."""

    seq: int = 0
    """The result's position in the run, which fixes its place in a key rotation."""
    attempts: list[Attempt] = field(default_factory=list)
    served_model: str | None = None
    system_fingerprint: str | None = None
    last_status: int | None = None


_current: ContextVar[AttemptRecorder | None] = ContextVar("rerunlens_attempts", default=None)


@contextlib.contextmanager
def recording(seq: int = 0) -> Iterator[AttemptRecorder]:
    """Make a fresh recorder current for the attempts of one result."""
    rec = AttemptRecorder(seq=seq)
    token = _current.set(rec)
    try:
        yield rec
    finally:
        _current.reset(token)


class KeyRing:
    """The key(s) of a run, held in memory only; repr shows fingerprints."""

    def __init__(self, keys: list[str]) -> None:
        self._keys = list(keys) or [""]
        self._counter = itertools.count()
        self.fingerprints = [key_fingerprint(k) for k in self._keys]

    def __repr__(self) -> str:
        return f"KeyRing({self.fingerprints!r})"

    def __len__(self) -> int:
        return len(self._keys)

    def pick(self, rec: AttemptRecorder | None) -> str:
        """Key for the next attempt.

        With several keys every attempt gets one, like a rotating proxy under concurrency: which one is
        a fixed function of the result's position and the attempt number, so a re-run repeats it.
        (Plain round robin over positions would pin each task to one key whenever the task count is a
        multiple of the key count.)
        """
        if len(self._keys) == 1:
            return self._keys[0]
        if rec is None:
            return self._keys[next(self._counter) % len(self._keys)]
        digest = hashlib.blake2b(f"{rec.seq}/{len(rec.attempts)}".encode(), digest_size=4).digest()
        return self._keys[int.from_bytes(digest, "big") % len(self._keys)]

    def secrets(self) -> list[str]:
        """The keys themselves, for scrubbing messages; never write these anywhere."""
        return [k for k in self._keys if k]


class RecordingTransport(httpx2.BaseTransport):
    """Wraps a real transport: sets the key, times the attempt, records its outcome."""

    def __init__(self, inner: httpx2.BaseTransport, base_url: str, keys: KeyRing) -> None:
        self._inner = inner
        self._base_url = base_url
        self._keys = keys
        self._lock = threading.Lock()
        self.stray: list[Attempt] = []
        """Attempts made outside any result (e.g. from a thread an executor started itself)."""

    def __repr__(self) -> str:
        return f"RecordingTransport(base_url={self._base_url!r})"

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        rec = _current.get()
        key = self._keys.pick(rec)
        if key:
            request.headers["Authorization"] = f"Bearer {key}"
        elif "Authorization" in request.headers:
            del request.headers["Authorization"]
        if rec is not None:
            request.headers[SEQ_HEADER] = str(rec.seq)
        started = now_utc()
        fp = key_fingerprint(key)
        try:
            response = self._inner.handle_request(request)
            body = b"".join(response.stream)
            response.stream.close()
        except httpx2.TimeoutException:
            self._record(rec, started, None, "timeout", None, fp)
            raise
        except httpx2.TransportError:
            self._record(rec, started, None, "connection_error", None, fp)
            raise
        response.stream = httpx2.ByteStream(body)
        status = response.status_code
        self._record(
            rec, started, status, outcome_for_status(status), retry_after_seconds(response.headers), fp
        )
        if rec is not None:
            rec.last_status = status
            if status == 200 and not response.headers.get("content-encoding"):
                _peek(rec, body)
        return response

    def _record(
        self,
        rec: AttemptRecorder | None,
        started: datetime,
        status: int | None,
        outcome: Outcome,
        retry_after: float | None,
        fp: str | None,
    ) -> None:
        attempts = rec.attempts if rec is not None else self.stray
        with self._lock:
            attempts.append(
                Attempt(
                    attempt=len(attempts),
                    started_at=started,
                    ended_at=now_utc(),
                    status_code=status,
                    outcome=outcome,
                    retry_after_s=retry_after,
                    base_url=self._base_url,
                    key_fingerprint=fp,
                )
            )

    def close(self) -> None:
        self._inner.close()


def _peek(rec: AttemptRecorder, body: bytes) -> None:
    """Served model and system fingerprint from a JSON completion, for executors that drop them."""
    if len(body) > 2_000_000 or not body.startswith(b"{"):
        return
    try:
        data = json.loads(body)
    except ValueError:
        return
    if isinstance(data, dict):
        if isinstance(data.get("model"), str):
            rec.served_model = data["model"]
        if isinstance(data.get("system_fingerprint"), str):
            rec.system_fingerprint = data["system_fingerprint"]
