"""The proxy holds nothing without a bound: a client hanging up on an endless stream stops the upstream
read; a request body over 32 MiB is refused (413) and a whole response over 64 MiB is not relayed
(502), each with one line; a long stream is relayed without being held whole.

The upstream is a real HTTP server on 127.0.0.1 writing its body as the test says (endlessly, or
lazily so the test itself holds little); memory is the peak traced in this process (proxy included).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
from test_proxy_forwarding import proxy_on

from analyzer.proxy.server import MAX_REQUEST_BYTES, MAX_RESPONSE_BYTES

MiB = 2**20
EVENT = b'data: {"choices": [{"delta": {"content": "' + b"x" * 1000 + b'"}}]}\n\n'


class LazyUpstream:
    """An HTTP server on 127.0.0.1 answering every request with `body()` chunks, as they are made;
    `stopped` is set when the reader went away (a write failed) or the body ended."""

    def __init__(
        self, content_type: str, body: Callable[[], Iterator[bytes]], length: int | None = None
    ) -> None:
        self.stopped = threading.Event()
        self.requests = 0
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                upstream.requests += 1
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.send_header("content-type", content_type)
                self.send_header("connection", "close")
                if length is not None:
                    self.send_header("content-length", str(length))
                self.end_headers()
                try:
                    for chunk in body():
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except OSError:
                    pass
                finally:
                    upstream.stopped.set()

            def log_message(self, *_args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> LazyUpstream:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _endless(deadline_s: float = 30.0) -> Iterator[bytes]:
    """Events every 10 ms for as long as someone reads them (at most `deadline_s`)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        yield EVENT
        time.sleep(0.01)


def _headers(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}", "content-type": "application/json"}


def test_a_client_hanging_up_on_an_endless_stream_stops_the_upstream_read(tmp_path: Path) -> None:
    journal = tmp_path / "j.proxy.jsonl"
    body = json.dumps({"model": "m", "stream": True, "messages": []})
    with LazyUpstream("text/event-stream", _endless) as up, proxy_on(up.base_url, journal) as proxy:
        with httpx2.stream(
            "POST", f"{proxy.base_url}/chat/completions", content=body, headers=_headers(proxy.token)
        ) as reply:
            for _ in zip(range(3), reply.iter_raw(), strict=False):
                pass  # three chunks, then hang up
        assert up.stopped.wait(10), "the proxy kept pulling the endless stream after the client left"
    (attempt,) = [r for r in map(json.loads, journal.read_text().splitlines()) if r["kind"] == "attempt"]
    assert attempt.get("client_gone") is True


def _one_line_error(reply: httpx2.Response) -> str:
    message = reply.json()["error"]["message"]
    assert "\n" not in message and "Traceback" not in reply.text
    return str(message)


def _stated_only(port: int, token: str, length: int) -> int:
    """The status answered to a request that states `length` bytes and sends none of them."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("POST", "/v1/chat/completions")
        conn.putheader("Authorization", f"Bearer {token}")
        conn.putheader("Content-Length", str(length))
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


def test_a_request_body_over_the_cap_is_refused_before_it_is_read_or_sent(tmp_path: Path) -> None:
    chunk = b" " * MiB

    def chunks() -> Iterator[bytes]:
        yield b'{"model": "m", "messages": []'
        for _ in range(MAX_REQUEST_BYTES // MiB + 16):
            yield chunk

    with (
        LazyUpstream("application/json", lambda: iter([b"{}"])) as up,
        proxy_on(up.base_url, tmp_path / "j.jsonl") as proxy,
    ):
        url = f"{proxy.base_url}/chat/completions"
        stated = _stated_only(proxy.port, proxy.token, 10 * 2**30)
        tracemalloc.start()
        try:
            sent = httpx2.post(url, content=chunks(), headers=_headers(proxy.token), timeout=30)
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    assert (stated, sent.status_code) == (413, 413)
    assert "32 MiB" in _one_line_error(sent)
    assert up.requests == 0
    assert peak < MAX_REQUEST_BYTES * 1.5


def test_a_whole_response_over_the_cap_is_not_relayed_and_a_long_stream_is_not_held(tmp_path: Path) -> None:
    size = MAX_RESPONSE_BYTES + 16 * MiB
    chunk = b" " * MiB

    def whole() -> Iterator[bytes]:
        yield b"{"
        for _ in range(size // MiB):
            yield chunk

    def long_stream() -> Iterator[bytes]:
        for _ in range(size // len(EVENT)):
            yield EVENT

    body = json.dumps({"model": "m", "messages": []})
    with (
        LazyUpstream("application/json", whole, length=size + 1) as up,
        proxy_on(up.base_url, tmp_path / "a.jsonl") as proxy,
    ):
        big = httpx2.post(f"{proxy.base_url}/chat/completions", content=body, headers=_headers(proxy.token))
    assert big.status_code == 502 and "64 MiB" in _one_line_error(big)
    with (
        LazyUpstream("text/event-stream", long_stream) as up,
        proxy_on(up.base_url, tmp_path / "b.jsonl") as proxy,
    ):
        tracemalloc.start()
        try:
            relayed = 0
            with httpx2.stream(
                "POST", f"{proxy.base_url}/chat/completions", content=body, headers=_headers(proxy.token)
            ) as reply:
                for part in reply.iter_raw():
                    relayed += len(part)
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    assert relayed >= size - len(EVENT)
    assert peak < 32 * MiB, f"{peak / MiB:.0f} MiB held while relaying an {size / MiB:.0f} MiB stream"
