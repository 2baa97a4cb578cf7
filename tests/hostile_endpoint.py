"""A small hostile HTTP endpoint on 127.0.0.1 for the security tests: scripted replies, recorded requests.

Each request is answered by a `Reply` the test chooses (a redirect elsewhere, a 200 echoing the key,
HTML, broken JSON, a Retry-After date...), and what arrived (method, path, headers, body) is kept so
a test can assert what a second host never received. Bounded: it stops itself after `lifetime_s`
even if a test forgets it, and always at the end of its `with` block.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted HTTP reply."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass(frozen=True)
class Received:
    """One request as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def text(self) -> str:
        """Everything the request carried, as one text to search for a key."""
        head = "\n".join(f"{k}: {v}" for k, v in self.headers.items())
        return f"{self.method} {self.path}\n{head}\n\n{self.body.decode('utf-8', 'replace')}"


def completion(content: str = "OK", model: str = "gpt-4o-mini", fingerprint: str = "fp_1") -> Reply:
    """A valid chat completion reply, with the given content, model and system fingerprint."""
    data: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": fingerprint,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }
    return Reply(200, {"content-type": "application/json"}, json.dumps(data).encode())


class HostileEndpoint:
    """An HTTP server on 127.0.0.1 answering every request with `script(received)`."""

    def __init__(self, script: Callable[[Received], Reply], lifetime_s: float = 30.0) -> None:
        self.script = script
        self.received: list[Received] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = min(int(self.headers.get("content-length") or 0), 1_000_000)
                got = Received(self.command, self.path, dict(self.headers.items()), self.rfile.read(length))
                endpoint.received.append(got)
                reply = endpoint.script(got)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            do_GET = do_POST = _any

            def log_message(self, *_args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._timer = threading.Timer(lifetime_s, self._server.shutdown)
        self._timer.daemon = True

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def seen(self) -> str:
        """Every request received so far, as one text."""
        return "\n".join(r.text() for r in self.received)

    def __enter__(self) -> HostileEndpoint:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
