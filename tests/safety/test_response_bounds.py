"""The runner bounds what it receives: a body that drips a byte at a time is cut at the attempt's
deadline (not only each socket read's timeout), and a body over the size cap is not read further;
each is a recorded attempt outcome. Loopback only; every server is stopped."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
import pytest

from analyzer.routes.profile import RouteProfile
from analyzer.runner import transport
from analyzer.runner.client import make_client
from analyzer.runner.transport import KeyRing, recording


@contextmanager
def _server(body: bytes, drip_s: float) -> Iterator[str]:
    """A server whose one reply is `body`, written a byte every `drip_s` seconds (0: at once)."""
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server name
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            if not drip_s:
                self.wfile.write(body)
                return
            for byte in body:
                if stop.is_set():
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(drip_s)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _one_attempt(base_url: str, timeout_s: float) -> list[str]:
    profile = RouteProfile(base_url=base_url, timeout_s=timeout_s, max_retries=0)
    client, _ = make_client(profile, base_url, KeyRing(["k-test-123456"]))
    with recording() as rec, pytest.raises(openai.OpenAIError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    return [a.outcome for a in rec.attempts]


def test_a_slow_drip_body_is_cut_at_the_attempts_deadline() -> None:
    with _server(b'{"choices": []}' + b" " * 400, drip_s=0.05) as url:  # 20 s of dripping
        started = time.monotonic()
        outcomes = _one_attempt(url, timeout_s=1.0)
        took = time.monotonic() - started
    assert outcomes == ["timeout"]
    assert took < 4.0, took  # each byte arrives well within the 1 s socket timeout


def test_a_body_over_the_cap_is_not_read_further(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "MAX_RESPONSE_BYTES", 64 * 1024)
    with _server(b'{"x": "' + b"a" * (1024 * 1024) + b'"}', drip_s=0) as url:
        assert _one_attempt(url, timeout_s=10.0) == ["too_large"]
