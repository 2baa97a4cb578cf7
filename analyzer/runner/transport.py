"""Record every HTTP attempt the SDK makes, by wrapping the transport of its http client.

Response event hooks miss attempts that time out or never connect, so the wrapper sits where every
attempt passes: `handle_request`. It also puts the key on the request (the SDK itself only ever holds
a placeholder), which is how key rotation works and why a key can never end up in the SDK's repr.

The key goes only to the route's own origin (scheme, host, port): a redirect elsewhere is followed
without it, and recorded as what it is (a `redirect` attempt naming its target, then an attempt at
the other host, which the route-drift metrics count as a route change). Every response body and
header leaves the transport with the keys scrubbed, so nothing downstream can write one down.
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
from email.utils import parsedate_to_datetime

import httpx2

from analyzer.log.model import Attempt, Outcome
from analyzer.routes.url_lint import redact_url, strip_query
from analyzer.safety.keys import key_fingerprint
from analyzer.safety.scrub import scrub, scrub_body

SEQ_HEADER = "x-rerunlens-seq"
"""The result's position in its run, sent as a trace header (the simulator keys its random draws on it)."""

MAX_RESPONSE_BYTES = 32 * 1024 * 1024
"""Largest response body read (a chat completion is kilobytes; an endless or huge body is cut here)."""


class ResponseTooLarge(httpx2.TransportError):
    """A response body over `MAX_RESPONSE_BYTES`; the attempt is recorded as `too_large`."""


SDK_PLACEHOLDER_KEY = "set-per-attempt-by-rerunlens"
"""What the SDK is given as its key; the transport replaces it with the real one on each attempt."""


CREDENTIAL_HEADERS = ("authorization", "proxy-authorization", "api-key", "x-api-key")
"""Headers that carry a credential: never sent to another origin than the route's."""


def now_utc() -> datetime:
    """The current time, UTC, timezone-aware."""
    return datetime.now(UTC)


def outcome_for_status(status: int) -> Outcome:
    """The attempt outcome a status code stands for."""
    if 200 <= status < 300:
        return "ok"
    if 300 <= status < 400:
        return "redirect"
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


def retry_after_seconds(headers: httpx2.Headers, now: datetime | None = None) -> float | None:
    """Retry-After as the SDK reads it: `retry-after-ms`, then seconds, then an HTTP date (from now)."""
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            until = _seconds_until(value, now) if name == "retry-after" else None
            if until is None:
                continue
            seconds = until
        if seconds >= 0 and seconds != float("inf"):
            return seconds
    return None


def _seconds_until(http_date: str, now: datetime | None) -> float | None:
    """Seconds from now until an HTTP date (0 when it is past), or None when it is not a date."""
    try:
        when = parsedate_to_datetime(http_date)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, round((when - (now or now_utc())).total_seconds(), 3))


def origin_of(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of a URL, default ports filled in; None when it has no host."""
    try:
        origin = httpx2.URL(url.strip()).origin
    except (httpx2.InvalidURL, TypeError, ValueError):
        return None
    return (origin.scheme, origin.host, origin.port) if origin.host else None


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

    def __init__(self, keys: list[str], also_secret: list[str] | None = None) -> None:
        self._keys = list(keys) or [""]
        self._also_secret = list(also_secret or [])
        """Other secrets scrubbed like the keys but never sent (the base URL's secret parts)."""
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

    def also_secret(self, values: list[str]) -> None:
        """More secrets to scrub but never send (the secret parts of a rotation's other base URLs)."""
        self._also_secret += [v for v in values if v and v not in self._also_secret]

    def secrets(self) -> list[str]:
        """The keys themselves (and the base URL's secret parts), for scrubbing messages; never write
        these anywhere."""
        return [k for k in [*self._keys, *self._also_secret] if k]


class RecordingTransport(httpx2.BaseTransport):
    """Wraps a real transport: sets the key (route origin only), times the attempt, records its outcome."""

    def __init__(
        self,
        inner: httpx2.BaseTransport,
        base_url: str,
        keys: KeyRing,
        origin_url: str | None = None,
        rotation: list[str] | None = None,
    ) -> None:
        self._inner = inner
        self._base_url = base_url
        self._keys = keys
        self._origin = origin_of(origin_url or base_url)
        """Where the key may go: the route's own scheme, host and port."""
        self._roots = [u.rstrip("/") for u in rotation or []]
        """The API roots attempts rotate over (the first is the SDK's own); empty: no rotation."""
        self._origins = {self._origin, *(origin_of(u) for u in self._roots)} - {None}
        """Every origin the user's route names: the key goes to these and nowhere else."""
        self._lock = threading.Lock()
        self.deadline_s: float | None = None
        """The whole attempt's deadline in seconds, body included (None: the socket timeout only)."""
        self.stray: list[Attempt] = []
        """Attempts made outside any result (e.g. from a thread an executor started itself)."""

    def __repr__(self) -> str:
        return f"RecordingTransport(base_url={self._base_url!r})"

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        rec = _current.get()
        root = self._rotate(request, rec)
        home = origin_of(str(request.url)) in self._origins
        key = self._keys.pick(rec) if home else ""
        self._set_key(request, key, home)
        if rec is not None:
            request.headers[SEQ_HEADER] = str(rec.seq)
        request.headers["Accept-Encoding"] = "identity"  # the body is read (and scrubbed) here
        shown = redact_url(root) if root is not None else self._base_url
        where = shown if home else scrub(_shown_origin(request.url), self._keys.secrets())
        retry = _retry_number(request)
        started = now_utc()
        fp = key_fingerprint(key) if home else None
        try:
            response = self._inner.handle_request(request)
            body = _decoded(response, self._read_body(response, started))
        except ResponseTooLarge:
            self._record(rec, _Hop(started, None, "too_large", None, where, fp, retry))
            raise
        except httpx2.TimeoutException:
            self._record(rec, _Hop(started, None, "timeout", None, where, fp, retry))
            raise
        except httpx2.TransportError:
            self._record(rec, _Hop(started, None, "connection_error", None, where, fp, retry))
            raise
        secrets = self._keys.secrets()
        body = scrub_body(body, secrets)
        clean = _clean_response(response, body, secrets)
        status = clean.status_code
        wait = retry_after_seconds(clean.headers)
        hop = _Hop(started, status, outcome_for_status(status), wait, where, fp, retry)
        if 300 <= status < 400:
            hop.redirect_to = scrub(_redirect_target(request.url, clean.headers.get("location")), secrets)
        self._record(rec, hop)
        if rec is not None:
            rec.last_status = status
            if status == 200:
                _peek(rec, body)
        return clean

    def _rotate(self, request: httpx2.Request, rec: AttemptRecorder | None) -> str | None:
        """Send the attempt to one of the route's API roots (a base-URL rotation); the root used, or
        None without a rotation. Which root is a fixed function of the result and the attempt number,
        drawn apart from the key's pick so the two rotations do not move together."""
        if len(self._roots) < 2:
            return None
        url = str(request.url)
        primary = self._roots[0]
        if not url.startswith(primary):
            return None  # a redirect hop: it goes where the server sent it
        if rec is None:
            root = self._roots[0]
        else:
            digest = hashlib.blake2b(f"url/{rec.seq}/{len(rec.attempts)}".encode(), digest_size=4).digest()
            root = self._roots[int.from_bytes(digest, "big") % len(self._roots)]
        if root != primary:
            request.url = httpx2.URL(root + url[len(primary) :])
            request.headers["Host"] = request.url.netloc.decode("ascii")
        return root

    def _read_body(self, response: httpx2.Response, started: datetime) -> bytes:
        """The body, read chunk by chunk within the attempt's deadline and the size cap (a body that
        drips a byte at a time never ends a socket timeout; a 300 MB body would be held whole).

        Raises:
            httpx2.ReadTimeout: the attempt passed its deadline (recorded as `timeout`).
            ResponseTooLarge: the body passed `MAX_RESPONSE_BYTES` (recorded as `too_large`).
        """
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.iter_raw():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    limit = f"{MAX_RESPONSE_BYTES // 2**20} MiB"
                    raise ResponseTooLarge(f"the response body is over the {limit} limit; reading stopped")
                if self.deadline_s is not None and (now_utc() - started).total_seconds() > self.deadline_s:
                    raise httpx2.ReadTimeout(
                        f"the attempt took longer than its {self.deadline_s:g} s deadline"
                    )
                chunks.append(chunk)
        finally:
            response.close()
        return b"".join(chunks)

    def _set_key(self, request: httpx2.Request, key: str, home: bool) -> None:
        """The key on a request to the route's origin; elsewhere no credential at all (nor a header the
        SDK or an executor set that holds a key)."""
        if key:
            request.headers["Authorization"] = f"Bearer {key}"
            return
        if home:  # no key configured: no bearer token either, as before
            request.headers.pop("Authorization", None)
            return
        secrets = self._keys.secrets()
        for name in list(request.headers.keys()):
            value = request.headers[name]
            credential = name.lower() in CREDENTIAL_HEADERS
            if credential or (secrets and scrub(value, secrets) != value):
                del request.headers[name]

    def _record(self, rec: AttemptRecorder | None, hop: _Hop) -> None:
        attempts = rec.attempts if rec is not None else self.stray
        extra = {"redirect_to": hop.redirect_to} if hop.redirect_to else {}
        with self._lock:
            attempts.append(
                Attempt(
                    attempt=len(attempts),
                    retry=hop.retry,
                    started_at=hop.started,
                    ended_at=now_utc(),
                    status_code=hop.status,
                    outcome=hop.outcome,
                    retry_after_s=hop.retry_after,
                    base_url=hop.base_url,
                    key_fingerprint=hop.fingerprint,
                    **extra,
                )
            )

    def close(self) -> None:
        self._inner.close()


@dataclass
class _Hop:
    """One attempt as the transport saw it, before it becomes an `Attempt`."""

    started: datetime
    status: int | None
    outcome: Outcome
    retry_after: float | None
    base_url: str
    """The route's base URL, or the other origin a redirect led to."""
    fingerprint: str | None
    """The key's fingerprint; None when no key was sent (another origin)."""
    retry: int | None = None
    """The SDK's retry number (`x-stainless-retry-count`); a redirect's next hop keeps its request's."""
    redirect_to: str | None = None
    """Where a 3xx pointed (scheme, host, port and path; query dropped, secrets masked)."""


def _retry_number(request: httpx2.Request) -> int | None:
    """The SDK's retry number of a request (0 for a first try), None when the request does not say.

    httpx copies the header onto a redirect's next hop, so following a redirect is not a retry.
    """
    value = request.headers.get("x-stainless-retry-count", "")
    return int(value) if value.isdigit() and len(value) < 7 else None


def _shown_origin(url: httpx2.URL) -> str:
    """scheme://host[:port] of a URL, as it may be written down."""
    return redact_url(f"{url.scheme}://{url.netloc.decode('ascii', 'replace')}")


def _redirect_target(url: httpx2.URL, location: str | None) -> str:
    """Where a redirect points, without its query (relative locations resolve against the request)."""
    if not location:
        return "(no Location header)"
    try:
        target = url.join(location)
        return redact_url(strip_query(f"{_shown_origin(target)}{target.path}"))
    except (httpx2.InvalidURL, TypeError, ValueError):
        return "(unparseable Location header)"


def _decoded(response: httpx2.Response, raw: bytes) -> bytes:
    """The body with any content-encoding undone (the header is dropped by `_clean_response`)."""
    if not response.headers.get("content-encoding"):
        return raw
    try:
        encoding = {"content-encoding": response.headers["content-encoding"]}
        return httpx2.Response(200, headers=encoding, content=raw).read()
    except httpx2.DecodingError:
        return raw


def _clean_response(response: httpx2.Response, body: bytes, secrets: list[str]) -> httpx2.Response:
    """The response with its decoded, scrubbed body and scrubbed header values."""
    headers = [
        (name, scrub(value, secrets))
        for name, value in response.headers.items()
        if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
    ]
    headers.append(("content-length", str(len(body))))
    return httpx2.Response(
        response.status_code,
        headers=headers,
        stream=httpx2.ByteStream(body),
        extensions=response.extensions,
    )


def _peek(rec: AttemptRecorder, body: bytes) -> None:
    """Served model and system fingerprint from a JSON completion, for executors that drop them."""
    if len(body) > 2_000_000 or not body.lstrip().startswith(b"{"):
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
