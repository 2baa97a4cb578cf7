"""The recording proxy: a pass-through endpoint on 127.0.0.1 in front of one route.

Clients (a harness, a coding tool) authenticate with a per-run local token; the route's real key is
held here only and sent only to the endpoints the proxy serves under the route's own root (the one
rule in `forwarding`). Redirects are followed by hand, at most `MAX_REDIRECTS`, and a hop anywhere
else carries no credential. Bodies are bounded (`MAX_REQUEST_BYTES`, `MAX_RESPONSE_BYTES`). Every attempt
is written to the journal; bodies and headers going back to the client pass the scrubber. A stream
(SSE) is relayed event by event as it arrives.

It is a bare ASGI app under uvicorn (no framework: each layer costs latency), forwarding with one
pooled `httpx2.AsyncClient`.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2
import uvicorn

from analyzer.errors import RerunLensError
from analyzer.importers.proxy_record import attempt_record
from analyzer.metrics.token_count import encoding_name
from analyzer.proxy.counting import HeldText, attempt_counts, count_ahead, start_counting, stop_counting
from analyzer.proxy.facts import RequestFacts, ResponseFacts, answer_problem, request_facts
from analyzer.proxy.forwarding import ApiRoot, forwarded_path
from analyzer.proxy.journal import Journal
from analyzer.routes.url_lint import redact_url, strip_query
from analyzer.runner.client import MAX_REDIRECTS, _proxy_for
from analyzer.runner.transport import (
    CREDENTIAL_HEADERS,
    KeyRing,
    now_utc,
    origin_of,
    outcome_for_status,
    retry_after_seconds,
)
from analyzer.safety.keys import key_fingerprint
from analyzer.safety.scrub import scrub, scrub_body

LOOPBACK = "127.0.0.1"
MAX_REQUEST_BYTES = 32 * 2**20
"""A request body over 32 MiB is refused (413) before it is read further."""
MAX_RESPONSE_BYTES = 64 * 2**20
"""A whole (not streamed) response over 64 MiB is not relayed (502); it would be held to scrub it."""
MAX_JSON_READ = 8_000_000
"""A body larger than this is relayed but not parsed for its facts (nor judged an error)."""
MAX_EVENT_BYTES = 8 * 2**20
"""A streamed response is relayed event by event; one event over 8 MiB ends the stream."""
STOPPED = "the proxy stopped before this attempt's count was done"
CLIENT_ID_HEADERS = ("x-irid", "x-client-request-id")
"""Request ids a client sends and records in its own log: the exact join key when present."""
_DROPPED = {"host", "connection", "content-length", "transfer-encoding", "accept-encoding", "keep-alive"}
_DROPPED_BACK = {"content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"}

_Headers = list[tuple[bytes, bytes]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]


@dataclass
class ProxyConfig:
    """One route to stand in front of, and where the journal goes."""

    upstream: str
    """The route's API root, e.g. `https://api.openai.com/v1` (the path after `/v1` is appended)."""
    keys: KeyRing
    journal: str
    route: dict[str, Any] = field(default_factory=dict)
    """The route as the journal's start record shows it (fingerprints only)."""
    port: int = 0
    timeout_s: float = 120.0
    keep_bodies: bool = False
    label: str | None = None
    rotation: list[str] = field(default_factory=list)
    """Further API roots of the route (a base-URL rotation): requests go to `upstream` and these in
    turn; the key goes to each of them and to no other host."""


@dataclass
class _Hop:
    """One attempt in flight: what the journal line will say."""

    n: int
    method: str
    path: str
    facts: RequestFacts
    retry: int | None
    client_id: str | None = None
    """The request id the client sent (Inspect's `x-irid`), which its log records too."""
    started_at: str = ""
    t0: float = 0.0
    shown: str = ""
    """The API root this request went to, as the journal shows it."""
    outcome: str | None = None
    """Set when the answer failed although its status did not say so (an error object, a cap)."""
    extra: dict[str, Any] = field(default_factory=dict)
    ended: tuple[str, float] | None = None
    """When the answer had gone to the client (UTC and the clock): counting comes after it."""
    counts: dict[str, Any] = field(default_factory=dict)
    """The tokens counted for the record (`counting.attempt_counts`)."""

    def failed(self, outcome: str, why: str) -> str:
        """Mark the attempt failed although its status did not say so; `why` in one line."""
        self.outcome, self.extra["error"] = outcome, why
        return why


class RecordingProxy:
    """Start with `start()`, stop with `stop()` (or use as a context manager)."""

    def __init__(self, config: ProxyConfig) -> None:
        self.config = config
        self.token = "rlproxy-" + secrets.token_urlsafe(24)
        """The per-run local token clients present instead of the key (it opens nothing else)."""
        self._origin = origin_of(config.upstream)
        if self._origin is None:
            raise RerunLensError(f"{redact_url(config.upstream)}: the route's base URL has no host")
        upstreams = [config.upstream, *[u for u in config.rotation if u != config.upstream]]
        self._roots = [ApiRoot(u.rstrip("/").removesuffix("/v1"), redact_url(u)) for u in upstreams]
        self._shown = self._roots[0].shown
        self._secrets = config.keys.secrets()
        self._serial = 0
        self.refused = 0
        self.journal = Journal(config.journal)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._client: httpx2.AsyncClient | None = None
        self._sock: socket.socket | None = None
        self._counting: dict[int, tuple[_Hop, int, float | None, ResponseFacts, float | None]] = {}
        """Attempts waiting for their counts, by number: what their journal record needs."""
        self._counting_lock = threading.Lock()

    # --- lifetime ------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._sock is None:
            raise RuntimeError("proxy not started")
        return int(self._sock.getsockname()[1])

    @property
    def base_url(self) -> str:
        """The OpenAI-style API root to give clients."""
        return f"http://{LOOPBACK}:{self.port}/v1"

    def client_env(self) -> dict[str, str]:
        """The variables that point OpenAI and Anthropic clients here, with the local token."""
        root = f"http://{LOOPBACK}:{self.port}"
        return {
            "OPENAI_BASE_URL": f"{root}/v1",
            "OPENAI_API_KEY": self.token,
            "ANTHROPIC_BASE_URL": root,
            "ANTHROPIC_API_KEY": self.token,
            "OPENAI_API_BASE": f"{root}/v1",  # what litellm (tau2-bench) reads
        }

    def start(self) -> RecordingProxy:
        """Bind 127.0.0.1 and serve in a daemon thread; the journal's start record is written first."""
        self.journal.write("start", self._start_record())
        # asyncio sets TCP_NODELAY on accepted sockets only when their protocol says TCP: without it
        # each reply (headers, then body) waited 40 ms for a delayed ACK.
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind((LOOPBACK, self.config.port))
        except OSError as err:
            self._sock.close()
            self.journal.close()
            where = f"port {self.config.port}: cannot listen on {LOOPBACK}"
            raise RerunLensError(f"{where} ({err.strerror})") from None
        config = uvicorn.Config(
            self, http="h11", loop="asyncio", lifespan="off", access_log=False, log_level="error",
            timeout_keep_alive=60, backlog=1024,
        )  # fmt: skip
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="rerunlens-proxy", daemon=True)
        self._thread.start()
        while not self._server.started and self._thread.is_alive():
            time.sleep(0.005)
        if not self._server.started:
            raise RerunLensError(f"the proxy could not start on {LOOPBACK}:{self.port}")
        return self

    def _serve(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        """Serve, with the counting process beside (loading the route's vocabulary when it names a model)."""
        assert self._server is not None and self._sock is not None
        model = self.config.route.get("model")
        await start_counting(encoding_name(model) if isinstance(model, str) else None)
        try:
            await self._server.serve(sockets=[self._sock])
        finally:
            await stop_counting()

    def stop(self, wait_s: float = 10.0) -> None:
        """Stop serving (the attempts under way given `wait_s` seconds to end), close the upstream
        pool and the journal (its end record)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=wait_s)
        if self._sock is not None:
            self._sock.close()
        with self._counting_lock:
            late = list(self._counting)
        for n in late:  # counts still under way after the wait: journaled without them
            self._record_counted(n, {"not_counted": STOPPED})
        self.journal.close()

    def __enter__(self) -> RecordingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start_record(self) -> dict[str, Any]:
        return {
            "started_at": now_utc().isoformat(),
            "label": self.config.label,
            "upstream": self._shown,
            "route": self.config.route,
            "key_fingerprints": self.config.keys.fingerprints,
            "keep_bodies": self.config.keep_bodies,
        }

    # --- ASGI ----------------------------------------------------------------------------------
    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not self._authorized(headers):
            self.refused += 1
            await _reply(send, 401, _error("missing or wrong local token for the RerunLens proxy"))
            return
        method = scope["method"]
        path = forwarded_path(method, scope.get("raw_path") or b"")
        if path is None:
            shown = scrub(scope["path"], self._secrets)[:200]
            await _reply(send, 404, _error(f"the RerunLens proxy does not forward {method} {shown!r}"))
            return
        body = await _read_body(receive, headers)
        if body is None:
            await _reply(send, 413, _error(f"the request body is over {MAX_REQUEST_BYTES >> 20} MiB"))
            return
        if self._client is None:
            self._client = _upstream_client(self.config)
        self._serial += 1
        retry = _retry_count(headers.get("x-stainless-retry-count", ""))
        hop = _Hop(self._serial, method, path, request_facts(path, body), retry)
        ids = [headers[h] for h in CLIENT_ID_HEADERS if h in headers]
        hop.client_id = ids[0][:200] if ids else None
        query = scope.get("query_string", b"").decode("latin-1")
        root = self._roots[(self._serial - 1) % len(self._roots)]  # a rotation in turn
        hop.shown = root.shown
        counting = encoding_name(hop.facts.params.get("model"))  # the prompt's count runs on the other
        asyncio.get_running_loop().call_soon(count_ahead, hop.facts, counting)  # core as upstream answers
        await self._forward(hop, root.target(path, query), (headers, body), (receive, send))

    def _authorized(self, headers: dict[str, str]) -> bool:
        auth = headers.get("authorization", "")
        given = auth[7:].strip() if auth.lower().startswith("bearer ") else headers.get("x-api-key", "")
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    async def _forward(
        self, hop: _Hop, url: str, request: tuple[dict[str, str], bytes], client: tuple[Receive, Send]
    ) -> None:
        """Send to the upstream, following redirects by hand; relay the final answer."""
        headers, body = request
        method, send = hop.method, client[1]
        for _ in range(MAX_REDIRECTS + 1):
            home = any(root.holds(url) for root in self._roots)
            out, key_fp = self._outgoing(headers, home)
            hop.started_at, hop.t0 = now_utc().isoformat(), time.perf_counter()
            hop.extra = {"base_url": hop.shown if home else _shown_origin(url), "key_fingerprint": key_fp}
            if self.config.keep_bodies:
                hop.extra["request_body"] = scrub(body.decode("utf-8", "replace"), self._secrets)
            try:
                assert self._client is not None
                raw = {k.encode(): v.encode("latin-1", "replace") for k, v in out.items()}  # as sent to us
                req = self._client.build_request(method, url, headers=raw, content=body or None)
                response = await self._client.send(req, stream=True)
            except httpx2.TimeoutException:
                await self._failed(hop, "timeout", 504, send)
                return
            except httpx2.TransportError:
                await self._failed(hop, "connection_error", 502, send)
                return
            location = response.headers.get("location")
            if 300 <= response.status_code < 400 and location:
                await response.aclose()
                target = httpx2.URL(url).join(location)
                hop.extra["redirect_to"] = redact_url(strip_query(str(target)))
                self._record(hop, response.status_code, retry_after_seconds(response.headers), None)
                if response.status_code in (301, 302, 303):
                    method, body = "GET", b""
                url = str(target)
                continue
            await self._relay(hop, response, client)
            return
        await self._failed(hop, "redirect", 502, send)

    def _outgoing(self, headers: dict[str, str], home: bool) -> tuple[dict[str, str], str | None]:
        """The headers sent upstream (the client's, minus its token; the route's key only to its
        origin) and the fingerprint of the key they carry."""
        anthropic = "x-api-key" in headers
        out = {k: v for k, v in headers.items() if k not in _DROPPED and k not in CREDENTIAL_HEADERS}
        out["accept-encoding"] = "identity"
        if not home:
            return {k: v for k, v in out.items() if not self._secrets or scrub(v, self._secrets) == v}, None
        key = self.config.keys.pick(None)
        if not key:
            return out, None
        out["x-api-key" if anthropic else "authorization"] = key if anthropic else f"Bearer {key}"
        return out, key_fingerprint(key)

    async def _relay(self, hop: _Hop, response: httpx2.Response, client: tuple[Receive, Send]) -> None:
        """The upstream's answer back to the client (scrubbed), whole or as a stream."""
        receive, send = client
        headers = self._headers_back(response)
        streaming = response.headers.get("content-type", "").startswith("text/event-stream")
        facts = ResponseFacts(stream=streaming)
        if hop.facts.messages is not None:
            facts.counting = HeldText(encoding_name(hop.facts.params.get("model")))
        first_byte: float | None = None
        try:
            if streaming:
                ended = await _unless_gone(self._relay_stream(hop, response, headers, facts, send), receive)
                hop.extra["client_gone"] = ended is _GONE or None  # the upstream was no longer read
                first_byte = None if ended is _GONE else ended
            else:
                await self._relay_whole(hop, response, (headers, facts), send)
        except httpx2.TransportError:
            hop.extra["broken"] = True
        finally:
            await response.aclose()
        hop.extra["upstream_request_id"] = response.headers.get("x-request-id") or response.headers.get(
            "request-id"
        )
        hop.ended = now_utc().isoformat(), time.perf_counter()
        with self._counting_lock:
            self._counting[hop.n] = (
                hop,
                response.status_code,
                retry_after_seconds(response.headers),
                facts,
                first_byte,
            )
        counts: dict[str, Any] = {"not_counted": STOPPED}
        try:
            counts = await attempt_counts(hop.facts, facts)
        finally:  # written even when the server stops under it (without its count then)
            self._record_counted(hop.n, counts)

    def _record_counted(self, n: int, counts: dict[str, Any]) -> None:
        """Write an attempt that waited for its count, once: when the count is done, or when the proxy
        stops before it is (then not counted)."""
        with self._counting_lock:
            waiting = self._counting.pop(n, None)
        if waiting is not None:
            hop, status, retry_after, facts, first_byte = waiting
            hop.counts = counts
            self._record(hop, status, retry_after, facts, first_byte)

    def _headers_back(self, response: httpx2.Response) -> _Headers:
        """The upstream's headers for the client: values scrubbed, a header whose name holds a key dropped."""
        names = "\n".join(response.headers.keys())
        named = scrub(names, self._secrets) != names  # one test for all names; each only when needed
        return [
            (k.encode("latin-1"), scrub(v, self._secrets).encode("latin-1", "replace"))
            for k, v in response.headers.items()
            if k.lower() not in _DROPPED_BACK and not (named and scrub(k, self._secrets) != k)
        ]

    async def _relay_whole(
        self,
        hop: _Hop,
        response: httpx2.Response,
        back: tuple[_Headers, ResponseFacts],
        send: Send,
    ) -> None:
        """A whole answer: read up to the cap, scrubbed, checked (a 200 that is an error is one)."""
        headers, facts = back
        chunks, size = [], 0
        async for chunk in response.aiter_raw():
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                over = hop.failed("too_large", f"a response over {MAX_RESPONSE_BYTES >> 20} MiB, not relayed")
                await _reply(send, 502, _error(f"the route's upstream sent {over}"))
                return
            chunks.append(chunk)
        body = scrub_body(b"".join(chunks), self._secrets)
        data = _take_json(facts, body)
        checked = response.status_code == 200 and len(body) <= MAX_JSON_READ
        problem = answer_problem(hop.path, data) if checked else None
        if problem is not None:
            hop.failed("server_error", problem)
        headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        if self.config.keep_bodies:
            hop.extra["response_body"] = body.decode("utf-8", "replace")

    async def _relay_stream(
        self,
        hop: _Hop,
        response: httpx2.Response,
        headers: _Headers,
        facts: ResponseFacts,
        send: Send,
    ) -> float | None:
        """Relay server-sent events one complete event at a time; the time to the first one (ms)."""
        await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
        started, first, pending = time.perf_counter(), None, b""
        async for chunk in response.aiter_raw():
            pending += chunk
            cut = pending.rfind(b"\n\n")
            if cut < 0:
                if len(pending) > MAX_EVENT_BYTES:
                    hop.failed("too_large", f"an event over {MAX_EVENT_BYTES >> 20} MiB; the stream was cut")
                    pending = b""
                    break
                continue
            events, pending = pending[: cut + 2], pending[cut + 2 :]
            clean = scrub_body(events, self._secrets)
            await send({"type": "http.response.body", "body": clean, "more_body": True})
            if first is None:
                first = (time.perf_counter() - started) * 1000
            _take_events(facts, clean)
        tail = scrub_body(pending, self._secrets) if pending else b""
        _take_events(facts, tail)
        if facts.error is not None:
            hop.failed("server_error", facts.error)
        await send({"type": "http.response.body", "body": tail, "more_body": False})
        return first

    async def _failed(self, hop: _Hop, outcome: str, status: int, send: Send) -> None:
        self._record(hop, None, None, None, outcome=outcome)
        message = f"the RerunLens proxy could not reach the route's upstream ({outcome})"
        await _reply(send, status, _error(message))

    def _record(
        self,
        hop: _Hop,
        status: int | None,
        retry_after: float | None,
        facts: ResponseFacts | None,
        first_byte_ms: float | None = None,
        outcome: str | None = None,
    ) -> None:
        ended_at, ended = hop.ended or (now_utc().isoformat(), time.perf_counter())
        rec: dict[str, Any] = {
            "n": hop.n,
            "started_at": hop.started_at,
            "ended_at": ended_at,
            "method": hop.method,
            "path": hop.path,
            "status": status,
            "outcome": outcome
            or hop.outcome
            or (outcome_for_status(status) if status is not None else "connection_error"),
            "retry": hop.retry,
            "client_request_id": hop.client_id,
            "retry_after_s": retry_after,
            "params": hop.facts.params,
            "stream": hop.facts.stream,
            "messages_hash": hop.facts.messages_hash,
            "latency_ms": round((ended - hop.t0) * 1000, 3),
            "first_byte_ms": round(first_byte_ms, 3) if first_byte_ms is not None else None,
        }
        if facts is not None:
            rec |= {
                "served_model": facts.served_model,
                "system_fingerprint": facts.system_fingerprint,
                "usage": facts.usage or None,
                "response_hash": facts.content_hash,
            }
            rec |= hop.counts
        rec |= hop.extra
        self.journal.attempt(attempt_record(rec, self._secrets))


def _upstream_client(config: ProxyConfig) -> httpx2.AsyncClient:
    """One pooled client for every forwarded request (made on the server's own event loop)."""
    return httpx2.AsyncClient(
        timeout=httpx2.Timeout(config.timeout_s, connect=min(config.timeout_s, 10.0)),
        follow_redirects=False,
        trust_env=False,
        proxy=_proxy_for(config.upstream),
        limits=httpx2.Limits(max_connections=256, max_keepalive_connections=256),
    )


async def _read_body(receive: Receive, headers: dict[str, str]) -> bytes | None:
    """The request body, or None when it is over `MAX_REQUEST_BYTES` (said or sent): not read further."""
    stated = headers.get("content-length", "")
    if stated.isascii() and stated.isdigit() and int(stated) > MAX_REQUEST_BYTES:
        return None
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_REQUEST_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _retry_count(text: str) -> int | None:
    """The SDK's retry number from its header: ASCII digits only (`²` is a digit to Python), else None."""
    return int(text) if text.isascii() and text.isdigit() and len(text) < 7 else None


_GONE = object()
"""What `_unless_gone` returns when the client hung up first."""


async def _unless_gone(relay: Awaitable[float | None], receive: Receive) -> Any:
    """Run the relay until it ends or the client hangs up, whichever comes first; on a hang-up the
    relay is cancelled, so the upstream is no longer read (its response is closed by the caller).
    The relay runs in this task (no hop through the loop before the first event); a watcher task
    cancels it when the client's disconnect arrives."""
    relaying = asyncio.current_task()
    assert relaying is not None
    hung_up = False

    async def watch() -> None:
        nonlocal hung_up
        await _client_gone(receive)
        hung_up = True
        relaying.cancel()

    watcher = asyncio.ensure_future(watch())
    try:
        return await relay
    except asyncio.CancelledError:
        if not hung_up:
            raise  # the server is stopping: not ours to swallow
        relaying.uncancel()
        return _GONE
    finally:
        watcher.cancel()


async def _client_gone(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _reply(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "rerunlens_proxy", "param": None, "code": None}}


def _shown_origin(url: str) -> str:
    parsed = httpx2.URL(url)
    return redact_url(f"{parsed.scheme}://{parsed.netloc.decode('ascii', 'replace')}")


def _take_json(facts: ResponseFacts, body: bytes) -> Any:
    """The parsed JSON object (its facts taken), or None when the body is not one."""
    if len(body) > MAX_JSON_READ or not body.lstrip().startswith(b"{"):
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    facts.take(data)
    return data


def _take_events(facts: ResponseFacts, events: bytes) -> None:
    for line in events.split(b"\n"):
        if line.startswith(b"data:"):
            payload = line[5:].strip()
            if payload and payload != b"[DONE]":
                _take_json(facts, payload)
