"""What the proxy reads from a request and a response: parameters, usage, served model, and the
hashes that join a harness's results to the calls it made.

The messages hash is sha256 over canonical JSON (sorted keys, no spaces) of what the client sent as
its conversation: chat `messages`, the Responses API's `instructions` + `input`, Anthropic's
`system` + `messages`, the embeddings' `input`. A harness that records the request it sent (Inspect's
model events) gives the same hash from its own log, so the join is exact there.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from analyzer.metrics.prompt_rule import PromptParts, Uncovered, chat_prompt, responses_prompt
from analyzer.metrics.token_count import MAX_COUNTED_CHARS, RunningCount
from analyzer.runner.completion_shape import OddResponse, read_completion

MAX_COUNTED_BYTES = 4 * MAX_COUNTED_CHARS
"""A chat request body above this is not kept to be counted: its attempt is recorded as not counted."""
PARAMS = ("model", "temperature", "top_p", "seed", "max_tokens")
"""The sampling parameters recorded per attempt, as the client sent them."""
NO_CLAUDE_TOKENIZER = "an Anthropic Messages request: no offline tokenizer exists for Claude models"


def canonical_hash(value: Any) -> str:
    """sha256 (hex, 24 digits) of a JSON value in canonical form."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def conversation(path: str, body: dict[str, Any]) -> Any:
    """The part of a request body that says what was asked (None when there is none)."""
    if path.endswith("/messages"):
        return {"system": body.get("system"), "messages": body.get("messages")}
    if path.endswith("/responses"):
        return {"instructions": body.get("instructions"), "input": body.get("input")}
    if path.endswith("/embeddings"):
        return body.get("input")
    return body.get("messages")


@dataclass
class RequestFacts:
    """A request's parameters and messages hash."""

    params: dict[str, Any] = field(default_factory=dict)
    messages_hash: str | None = None
    stream: bool = False
    messages: list[Any] | None = None
    """A chat request's messages (a Responses request's input items), kept until its attempt is
    journaled to count their tokens (only for a body within `MAX_COUNTED_BYTES`; never written)."""
    body: dict[str, Any] | None = None
    """The whole request of such an attempt: its tools and formats count too (never written)."""
    responses: bool = False
    """The body is a Responses API request (else a chat completion)."""
    not_counted: str | None = None
    """Why a request's tokens will not be counted, known from its endpoint or size alone."""

    _parts: PromptParts | Uncovered | None = field(default=None, init=False, repr=False, compare=False)

    def prompt_parts(self) -> PromptParts | Uncovered:
        """The prompt by the cookbook's rules (chat completions, Responses), or why it is not counted.
        Read once: the proxy needs it as the request goes upstream and again when it is journaled."""
        if self._parts is None:
            if self.body is None:
                self._parts = Uncovered(self.not_counted or "not a chat completion or a response")
            else:
                self._parts = responses_prompt(self.body) if self.responses else chat_prompt(self.body)
        return self._parts


def request_facts(path: str, raw: bytes) -> RequestFacts:
    """Parameters and the messages hash of a JSON request body (empty facts for anything else)."""
    if not raw:
        return RequestFacts()
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        return RequestFacts()
    if not isinstance(body, dict):
        return RequestFacts()
    params = {k: body[k] for k in PARAMS if isinstance(body.get(k), str | int | float)}
    cap = body.get("max_completion_tokens", body.get("max_output_tokens"))
    if "max_tokens" not in params and isinstance(cap, int):
        params["max_tokens"] = cap
    asked = conversation(path, body)
    facts = RequestFacts(
        params=params,
        messages_hash=canonical_hash(asked) if asked is not None else None,
        stream=body.get("stream") is True,
    )
    _keep_to_count(facts, path, body, len(raw))
    return facts


def _keep_to_count(facts: RequestFacts, path: str, body: dict[str, Any], size: int) -> None:
    """Keep what a chat completion or a Responses request needs to be counted (references, no copy)."""
    if path.endswith("/messages") or path.endswith("/messages/count_tokens"):
        facts.not_counted = NO_CLAUDE_TOKENIZER
        return
    chat = path.endswith("/chat/completions") and isinstance(body.get("messages"), list)
    items = body.get("input")
    response = path.endswith("/responses") and isinstance(items, str | list)
    if not (chat or response):
        return
    if size > MAX_COUNTED_BYTES:
        facts.not_counted = f"the request body over {MAX_COUNTED_BYTES:,} bytes, not counted"
        return
    facts.body, facts.responses = body, response
    facts.messages = body["messages"] if chat else [items] if isinstance(items, str) else items


@dataclass
class ResponseFacts:
    """Served model, system fingerprint, usage and the content's text (hashed when done)."""

    served_model: str | None = None
    system_fingerprint: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    """Token counts as reported (the journal's record drops what is not a count)."""
    _answer: Any = field(default_factory=lambda: hashlib.sha256(b'"'))
    """The answer's text hashed as it arrives (a long stream is never held whole)."""
    _any_text: bool = False
    error: str | None = None
    """The error an event or a body carried in place of an answer."""
    counting: RunningCount | None = None
    """Set by the proxy to count a chat answer's tokens: a stream's text as it arrives (holding
    only an unfinished word), a whole answer's `parts` after it was sent."""
    stream: bool = False
    """The answer is a stream of events (counted as it arrives) rather than one body."""
    parts: list[str] = field(default_factory=list)
    """A whole chat answer's texts (its text, each tool call's name and arguments), to be counted."""

    @property
    def content_hash(self) -> str | None:
        """sha256 of the answer's text and tool calls, None when there was none: `canonical_hash` of
        the parts joined, taken piece by piece (a JSON string's escapes are per character)."""
        if not self._any_text:
            return None
        done = self._answer.copy()
        done.update(b'"')
        return done.hexdigest()[:24]

    def take(self, data: Any) -> None:
        """Read one JSON response, or one event of a stream."""
        if not isinstance(data, dict):
            return
        if data.get("error") is not None or data.get("type") == "error":
            self.error = self.error or "the response carried an error object"
        inner = data.get("message") if isinstance(data.get("message"), dict) else None  # Anthropic start
        inner = inner or (data.get("response") if isinstance(data.get("response"), dict) else None)
        for src in (data, inner or {}):
            if isinstance(src.get("model"), str):
                self.served_model = src["model"]
            if isinstance(src.get("system_fingerprint"), str):
                self.system_fingerprint = src["system_fingerprint"]
            self._usage(src.get("usage"))
        for part in _texts(data):
            text = json.dumps(part, ensure_ascii=False)[1:-1]
            self._answer.update(text.encode("utf-8", "surrogatepass"))
            self._any_text = True
            if self.counting is not None and self.stream:
                self.counting.add(part)
            elif self.counting is not None:
                self.parts.append(part)

    def _usage(self, usage: Any) -> None:
        if not isinstance(usage, dict):
            return
        names = {
            "prompt_tokens": ("prompt_tokens", "input_tokens"),
            "completion_tokens": ("completion_tokens", "output_tokens"),
            "total_tokens": ("total_tokens",),
        }
        for ours, theirs in names.items():
            value = next((usage[n] for n in theirs if usage.get(n) is not None), None)
            if value is not None:
                self.usage[ours] = value
        details = {
            "cached_tokens": (("prompt_tokens_details", "input_tokens_details"), "cached_tokens"),
            "reasoning_tokens": (("completion_tokens_details", "output_tokens_details"), "reasoning_tokens"),
        }
        for ours, (groups, name) in details.items():
            for group in (usage.get(g) for g in groups):
                if isinstance(group, dict) and group.get(name) is not None:
                    self.usage[ours] = group[name]
        if usage.get("cache_read_input_tokens") is not None:  # Anthropic's name for it
            self.usage["cached_tokens"] = usage["cache_read_input_tokens"]
        counts = [self.usage.get(k) for k in ("prompt_tokens", "completion_tokens")]
        if "total_tokens" not in usage and all(type(c) is int and c >= 0 for c in counts):
            self.usage["total_tokens"] = sum(c for c in counts if isinstance(c, int))


def answer_problem(path: str, data: Any) -> str | None:
    """Why a whole 200 response is not an answer (one line), or None: a chat completion is read by
    the runner's strict reader; any other endpoint's answer only may not be an error object."""
    if path.endswith("/chat/completions"):
        if data is None:
            return "the response is not a JSON object: not a chat completion"
        try:
            read_completion(data)
        except OddResponse as problem:
            return str(problem)
        return None
    if isinstance(data, dict) and (data.get("error") is not None or data.get("type") == "error"):
        return "the response is an error object with status 200"
    return None


def _texts(data: dict[str, Any]) -> list[str]:
    """The answer's text pieces in a response or a stream event (chat, Responses, Anthropic)."""
    out: list[str] = []
    for choice in data.get("choices") or []:
        if not isinstance(choice, dict):
            continue
        msg = choice.get("message") or choice.get("delta") or {}
        if isinstance(msg, dict):
            out += [msg["content"]] if isinstance(msg.get("content"), str) else []
            for call in msg.get("tool_calls") or []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict):
                    out += [str(fn.get("name") or ""), str(fn.get("arguments") or "")]
    if data.get("type") == "content_block_delta" and isinstance(data.get("delta"), dict):
        delta = data["delta"]
        out += [str(delta.get("text") or delta.get("partial_json") or "")]
    kind = data.get("type")
    if kind in ("response.output_text.delta", "response.function_call_arguments.delta"):
        out += [data["delta"]] if isinstance(data.get("delta"), str) else []
    if kind == "response.output_item.added" and isinstance(data.get("item"), dict):
        out += _output_texts([data["item"]])
    if data.get("object") == "response":
        out += _output_texts(data.get("output"))
    if data.get("type") == "message" and isinstance(data.get("content"), list):
        for block in data["content"]:
            if isinstance(block, dict):
                out.append(str(block.get("text") or json.dumps(block.get("input"), sort_keys=True)))
    return [p for p in out if p]


def _output_texts(output: Any) -> list[str]:
    """A Responses output's visible texts: each message's text parts, each function call's name and
    arguments (a reasoning item is hidden: its tokens are the usage's reasoning tokens)."""
    out: list[str] = []
    for item in output if isinstance(output, list) else []:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "message":
            out += [str(c.get("text") or c.get("refusal") or "") for c in _list(item, "content")]
        elif kind == "function_call":
            out += [str(item.get("name") or ""), str(item.get("arguments") or "")]
    return out


def _list(obj: Any, name: str) -> list[Any]:
    value = obj.get(name) if isinstance(obj, dict) else None
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
