"""The simulator's HTTP server: an OpenAI-compatible API on loopback, stdlib only.

Serves `POST /v1/chat/completions`, `POST /v1/embeddings` (vectors from the text's characters, see
`engine.text_embedding`) and `GET /v1/models`; anything else is a 404 in OpenAI's error
shape. Keys are checked, never logged or echoed. Start it in-process with `Simulator().start()`.
"""

from __future__ import annotations

import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import analyzer.simulator.distortion as route_distortion
from analyzer.simulator.agent import parse_tool_reply
from analyzer.simulator.engine import choose_answer, count_tokens, stable_int, text_embedding
from analyzer.simulator.judge import simulated_verdict
from analyzer.simulator.scenario import Backend, Faults, RateLimit, Scenario, ScriptRule

LOOPBACK = "127.0.0.1"
SEQ_HEADER = "x-rerunlens-seq"
"""Sent by the runner: the result's position in its run (a trace id, not a secret)."""


class _Bucket:
    """Token bucket for one key."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self.tokens = float(limit.burst)
        self.stamp = time.monotonic()

    def take(self) -> float:
        """0 when a request may pass, else seconds until it may."""
        now = time.monotonic()
        self.tokens = min(self.limit.burst, self.tokens + (now - self.stamp) * self.limit.requests_per_s)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.limit.requests_per_s


class SimulatorState:
    """Mutable state shared by request threads: counters, buckets, sticky backends, statistics."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.prompt_counts: dict[str, int] = {}
        self.script_counts: dict[int, int] = {}
        self.buckets: dict[str, _Bucket] = {}
        self.status_counts: dict[int, int] = {}
        self.requests = 0

    def count(self, status: int) -> None:
        with self.lock:
            self.status_counts[status] = self.status_counts.get(status, 0) + 1

    def next_for_prompt(self, prompt: str) -> int:
        with self.lock:
            self.requests += 1
            n = self.prompt_counts.get(prompt, 0)
            self.prompt_counts[prompt] = n + 1
            return n

    def scripted(self, prompt: str) -> tuple[str, ScriptRule] | None:
        with self.lock:
            for i, rule in enumerate(self.scenario.script):
                if rule.match in prompt:
                    n = self.script_counts.get(i, 0)
                    self.script_counts[i] = n + 1
                    if n < len(rule.actions):
                        return rule.actions[n], rule
        return None

    def key_allowed(self, key: str) -> bool:
        return bool(key) and (self.scenario.accept_any_key or key in self.scenario.keys)

    def rate_wait(self, key: str | None) -> float:
        cfg = self.scenario.keys.get(key) if key is not None else None
        limit = (cfg.rate_limit if cfg else None) or self.scenario.rate_limit
        if limit is None:
            return 0.0
        with self.lock:
            bucket = self.buckets.setdefault(key or "", _Bucket(limit))
            return bucket.take()

    def backend_for(self, key: str, retry: int, draw: random.Random) -> Backend:
        """The key's own backend, unless the load balancer spills or a retry lands elsewhere."""
        backends = self.scenario.backends
        cfg = self.scenario.keys.get(key)
        by_name = {b.name: b for b in backends}
        if cfg and cfg.backend in by_name:
            own = by_name[cfg.backend]
        else:
            own = backends[stable_int(self.scenario.seed, "key", key) % len(backends)]
        others = [b for b in backends if b is not own]
        faults = self.scenario.faults
        switch = faults.retry_switch_rate if retry > 0 else faults.spill_rate
        if others and draw.random() < switch:
            return draw.choice(others)
        return own


def _error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silent: request lines could carry secrets in a misconfigured client's query string."""

    # --- plumbing -------------------------------------------------------------------------------
    def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode("utf-8")
        self.server.state.count(status)
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("x-request-id", f"req_sim_{self.server.state.requests:06d}")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _stopping(self) -> None:
        """The simulator is shutting down: answer 503 and close, so no client waits for its timeout."""
        self.close_connection = True
        self._send(
            503, _error_body("The simulator is shutting down.", "server_error"), {"Connection": "close"}
        )

    def _retry_headers(self, seconds: float | None) -> dict[str, str]:
        if seconds is None:
            return {}
        return {"retry-after": f"{seconds:.3f}", "retry-after-ms": str(max(1, round(seconds * 1000)))}

    def _path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    def _key(self) -> str:
        auth = self.headers.get("Authorization", "")
        return auth[7:].strip() if auth.lower().startswith("bearer ") else ""

    def _not_found(self) -> None:
        self._send(
            404,
            _error_body(
                f"Unknown request URL: {self.command} {self._path()}.", "invalid_request_error", "unknown_url"
            ),
        )

    def _auth_ok(self) -> bool:
        key = self._key()
        if not key:
            self._send(401, _error_body("You didn't provide an API key.", "invalid_request_error"))
            return False
        if not self.server.state.key_allowed(key):
            self._send(
                401, _error_body("Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
            )
            return False
        return True

    # --- endpoints ------------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self._path() != "/v1/models":
            self._not_found()
            return
        if not self._auth_ok():
            return
        models = [
            {"id": m, "object": "model", "created": 0, "owned_by": "rerunlens-simulator"}
            for m in self.server.state.scenario.models
        ]
        self._send(200, {"object": "list", "data": models})

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self._path() not in ("/v1/chat/completions", "/v1/embeddings"):
            self._not_found()
            return
        if not self._auth_ok():
            return
        if self._path() == "/v1/embeddings":
            self._embed(raw)
            return
        try:
            body = json.loads(raw or b"null")
            messages = body["messages"]
            model = body["model"]
            if not isinstance(messages, list) or not messages or not isinstance(model, str):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            self._send(
                400,
                _error_body("'model' and a non-empty 'messages' list are required.", "invalid_request_error"),
            )
            return
        self._complete(body, model, messages)

    def _embed(self, raw: bytes) -> None:
        """`POST /v1/embeddings`: one vector per input string, in OpenAI's response shape."""
        try:
            body = json.loads(raw or b"null")
            model, texts = body["model"], body["input"]
            texts = [texts] if isinstance(texts, str) else texts
            if not isinstance(model, str) or not isinstance(texts, list) or not texts:
                raise ValueError
            if not all(isinstance(t, str) for t in texts):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            self._send(
                400,
                _error_body(
                    "'model' and 'input' (a string or a list of strings) are required.",
                    "invalid_request_error",
                ),
            )
            return
        data = [
            {"object": "embedding", "index": i, "embedding": text_embedding(t)} for i, t in enumerate(texts)
        ]
        tokens = sum(count_tokens(t) for t in texts)
        self._send(
            200,
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _complete(self, body: dict[str, Any], model: str, messages: list[Any]) -> None:
        state = self.server.state
        scenario = state.scenario
        if not scenario.accept_any_model and model not in scenario.models:
            self._send(
                404,
                _error_body(
                    f"The model `{model}` does not exist or you do not have access to it.",
                    "invalid_request_error",
                    "model_not_found",
                ),
            )
            return
        verdict = simulated_verdict(messages)
        if verdict is not None:  # a judge request: its deterministic verdict, no fault, no latency
            backend = state.backend_for(self._key(), 0, random.Random(0))
            self._send(200, _completion(body, model, messages, verdict, backend, state.requests))
            return
        prompt = _last_user_text(messages)
        key = self._key()
        retry = _int(self.headers.get("x-stainless-retry-count"), 0)
        n = state.next_for_prompt(prompt)
        # A request's random draws hang on its identity: the runner's sequence header when sent (so
        # a concurrent run repeats exactly), else the prompt's arrival count.
        seq = self.headers.get(SEQ_HEADER)
        identity = ("seq", seq, retry) if seq else ("n", n)
        draw = random.Random(stable_int(scenario.seed, "req", prompt, *identity))
        if self._fault(prompt, key, draw):
            return
        low, high = scenario.latency_ms
        if high > 0 and state.stop.wait(draw.uniform(low, high) / 1000.0):
            self._stopping()
            return
        backend = state.backend_for(key, retry, draw)
        seed = body.get("seed")
        distortion = scenario.distortion
        temperature = float(body.get("temperature", 1.0) if body.get("temperature") is not None else 1.0)
        text = choose_answer(
            prompt,
            backend,
            scenario,
            temperature=temperature if distortion.fixed_temperature is None else distortion.fixed_temperature,
            top_p=float(body["top_p"]) if body.get("top_p") is not None else 1.0,
            seed=seed if isinstance(seed, int) else None,
            draw=draw,
            nudge=route_distortion.substitute_for(distortion, draw),
        )
        reply = _completion(body, model, messages, text, backend, state.requests)
        self._send(200, _distorted(reply, body, messages, scenario, draw))

    def _fault(self, prompt: str, key: str | None, draw: random.Random) -> bool:
        """Answer with the scripted or drawn fault for this request, if any; True when one was sent."""
        state = self.server.state
        faults = state.scenario.faults
        scripted = state.scripted(prompt)
        action = scripted[0] if scripted else None
        retry_after = faults.retry_after_s
        if scripted and scripted[1].retry_after_s is not None:
            retry_after = scripted[1].retry_after_s
        if action is None:
            wait = state.rate_wait(key)
            if wait > 0:
                action, retry_after = "429", wait
            else:
                action = _drawn_fault(faults, draw)
        return self._send_fault(action, retry_after)

    def _send_fault(self, action: str | None, retry_after: float | None) -> bool:
        """Send the response a fault action stands for; False for none (the request is served)."""
        state = self.server.state
        if action == "429":
            rate_limited = _error_body("Rate limit reached for requests.", "requests", "rate_limit_exceeded")
            self._send(429, rate_limited, self._retry_headers(retry_after))
        elif action in ("500", "502", "503"):
            failed = _error_body("The server had an error while processing your request.", "server_error")
            self._send(int(action), failed, self._retry_headers(retry_after))
        elif action == "401":
            self._send(
                401, _error_body("Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
            )
        elif action == "400":
            self._send(400, _error_body("Invalid request (scripted).", "invalid_request_error"))
        elif action == "timeout" and state.stop.wait(state.scenario.faults.hang_s):
            self._stopping()
        else:
            return False
        return True


def _drawn_fault(faults: Faults, draw: random.Random) -> str | None:
    """A fault drawn at the scenario's rates: 429, a 5xx, a timeout, or None."""
    roll = draw.random()
    if roll < faults.rate_limit_rate:
        return "429"
    if roll < faults.rate_limit_rate + faults.server_error_rate:
        return draw.choice(("500", "502", "503"))
    if roll < faults.rate_limit_rate + faults.server_error_rate + faults.timeout_rate:
        return "timeout"
    return None


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _last_user_text(messages: list[Any]) -> str:
    """The last user message, or a tool result after it: what the scripted model answers."""
    for m in reversed(messages):
        if isinstance(m, dict) and m.get("role") in ("user", "tool"):
            content = m.get("content")
            if isinstance(content, list):
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def _completion(
    body: dict[str, Any], model: str, messages: list[Any], text: str, backend: Backend, n: int
) -> dict[str, Any]:
    cap = body.get("max_completion_tokens") or body.get("max_tokens")
    finish = "stop"
    tokens = count_tokens(text)
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    call = parse_tool_reply(text) if body.get("tools") else None
    if call is not None:  # a scripted tool call, sent as the API sends one
        finish = "tool_calls"
        function = {"name": call[0], "arguments": call[1]}
        tokens = call_words(function)
        message = {
            **message,
            "content": None,
            "tool_calls": [{"id": f"call_sim{n:08d}", "type": "function", "function": function}],
        }
    elif isinstance(cap, int) and cap > 0 and tokens > cap:
        words = text.split()
        while words and count_tokens(" ".join(words)) > cap:
            words.pop()
        text, finish, tokens = (
            " ".join(words),
            "length",
            min(cap, count_tokens(" ".join(words)) if words else 0),
        )
        message["content"] = text
    prompt_tokens = sum(count_tokens(str(m.get("content", ""))) + 3 for m in messages if isinstance(m, dict))
    return {
        "id": f"chatcmpl-sim{n:08d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": f"{model}-{backend.snapshot}",
        "system_fingerprint": backend.system_fingerprint,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": tokens,
            "total_tokens": prompt_tokens + tokens,
        },
    }


def _distorted(
    reply: dict[str, Any], body: dict[str, Any], messages: list[Any], scenario: Scenario, draw: random.Random
) -> dict[str, Any]:
    """The honest reply as the scenario's route bends it: tool calls, cut completions, usage."""
    d = scenario.distortion
    choice = reply["choices"][0]
    message = choice["message"]
    call = route_distortion.tool_call(body, d, draw) if "tool_calls" not in message else None
    if call is not None:
        function = {"name": call[0], "arguments": call[1]}
        message.update(
            content=None, tool_calls=[{"id": f"call_{reply['id']}", "type": "function", "function": function}]
        )
        choice["finish_reason"] = "tool_calls"
    elif isinstance(message.get("content"), str):
        cut = route_distortion.truncated(message["content"], d, draw)
        if cut is not None:
            message["content"], choice["finish_reason"] = cut, "length"
    served = count_tokens(message["content"]) if isinstance(message.get("content"), str) else 0
    served += sum(call_words(c.get("function") or {}) for c in message.get("tool_calls") or [])
    honest = scenario.billing == "words" and d == type(d)() and call is None
    if not honest:
        reply["usage"] = route_distortion.usage(scenario, messages, message, served, body)
    return reply


def call_words(function: dict[str, Any]) -> int:
    """A tool call's completion tokens billed by words: its name's and its arguments text's, each
    counted on its own (the rule the proxy and o200k_base billing follow)."""
    return count_tokens(str(function.get("name", ""))) + count_tokens(str(function.get("arguments", "")))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, port: int, state: SimulatorState) -> None:
        self.state = state
        super().__init__((LOOPBACK, port), _Handler)


class Simulator:
    """An in-process simulator on a loopback port; use as a context manager or start()/stop()."""

    def __init__(self, scenario: Scenario | None = None, port: int = 0) -> None:
        self.scenario = scenario or Scenario()
        self.state = SimulatorState(self.scenario)
        self._port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound port (after start)."""
        if self._server is None:
            raise RuntimeError("simulator not started")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """The API root to give the SDK, e.g. `http://127.0.0.1:54321/v1`."""
        return f"http://{LOOPBACK}:{self.port}/v1"

    @property
    def status_counts(self) -> dict[int, int]:
        """How many replies of each HTTP status were sent."""
        with self.state.lock:
            return dict(self.state.status_counts)

    def start(self) -> Simulator:
        """Bind and serve in a daemon thread."""
        self._server = _Server(self._port, self.state)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="rerunlens-simulator",
            daemon=True,
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Bind and serve in this thread until interrupted (the `simulate` command)."""
        self._server = _Server(self._port, self.state)
        try:
            self._server.serve_forever()
        finally:
            self.state.stop.set()
            self._server.server_close()

    def stop(self) -> None:
        """Stop serving; hanging requests are released."""
        self.state.stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
