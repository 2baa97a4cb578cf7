"""One attempt of the proxy's journal as a validated record, written and read through one model.

What a client or an upstream sent is not trusted to be a record: a temperature of NaN or 1e999, a
seed of 10**400, a usage of -3, `true` or 10**30, a model name with a lone surrogate. Each such
value is left out (not recorded) and `dropped` says which field and why, never the value itself.
Every text is scrubbed of the route's keys first. The proxy writes with `attempt_record`; the
importer reads each journal line with it too, so one bad attempt costs its bad fields, not the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, Strict, ValidationError

from analyzer.log.model import HttpStatus, Int64, NonNegFloat, NonNegInt, Number, Outcome
from analyzer.safety.scrub import scrub, scrub_json

MAX_TEXT = 2_000
"""The longest text field kept (ids, model names, URLs); a longer one is dropped, not cut."""
MAX_BODY = 1_000_000
"""The longest body kept with `--keep-bodies` (characters)."""


def _utf8(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not UTF-8 text (a lone surrogate)") from None
    return text


Text = Annotated[str, Strict(), Field(max_length=MAX_TEXT), AfterValidator(_utf8)]
Body = Annotated[str, Strict(), Field(max_length=MAX_BODY), AfterValidator(_utf8)]
Flag = Annotated[bool, Strict()]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class SentParams(_Strict):
    """The sampling parameters as the client sent them."""

    model: Text | None = None
    temperature: Number | None = None
    top_p: Number | None = None
    seed: Int64 | None = None
    max_tokens: NonNegInt | None = None


class Usage(_Strict):
    """Token counts as the upstream reported them."""

    prompt_tokens: NonNegInt | None = None
    completion_tokens: NonNegInt | None = None
    total_tokens: NonNegInt | None = None
    cached_tokens: NonNegInt | None = None
    """Prompt tokens served from the provider's cache (its usage details), part of `prompt_tokens`."""
    reasoning_tokens: NonNegInt | None = None
    """Hidden reasoning tokens (its usage details), part of `completion_tokens`."""


class TokenCount(_Strict):
    """Tokens counted by the proxy, offline, after the answer had gone to the client (never the texts)."""

    encoding: Text | None = None
    prompt_tokens: NonNegInt | None = None
    """The request's messages and tool definitions by the cookbook's rules (absent where they do not
    cover the request: `not_counted` says why)."""
    completion_tokens: NonNegInt | None = None
    """The answer's visible text and tool calls as relayed (hidden reasoning is not visible)."""


class AttemptRecord(_Strict):
    """One HTTP attempt the proxy forwarded (the journal's `attempt` line, less its two marks)."""

    n: NonNegInt | None = None
    started_at: Text | None = None
    ended_at: Text | None = None
    method: Text | None = None
    path: Text | None = None
    status: HttpStatus | None = None
    outcome: Outcome = "connection_error"
    error: Text | None = None
    """Why a 200 was not an answer (an error object, no choices), in one line."""
    retry: NonNegInt | None = None
    client_request_id: Text | None = None
    upstream_request_id: Text | None = None
    retry_after_s: NonNegFloat | None = None
    params: SentParams | None = None
    stream: Flag | None = None
    messages_hash: Text | None = None
    latency_ms: NonNegFloat | None = None
    first_byte_ms: NonNegFloat | None = None
    served_model: Text | None = None
    system_fingerprint: Text | None = None
    usage: Usage | None = None
    response_hash: Text | None = None
    counted: TokenCount | None = None
    not_counted: Text | None = None
    """Why a counted figure is missing: a shape the cookbook's rules do not cover, a text over the
    counting bound, an endpoint not counted offline (Anthropic's, embeddings)."""
    base_url: Text | None = None
    key_fingerprint: Text | None = None
    redirect_to: Text | None = None
    broken: Flag | None = None
    client_gone: Flag | None = None
    """The client hung up before the answer ended; the upstream was no longer read."""
    request_body: Body | None = None
    response_body: Body | None = None
    dropped: list[Text] = Field(default_factory=list)
    """What was left out as not a valid value: `params.temperature: not a finite number`."""

    def line(self) -> dict[str, Any]:
        """The record as the journal writes it (absent fields left out)."""
        line = self.model_dump(mode="json", exclude_none=True)
        return {k: v for k, v in line.items() if v != [] and v != {}}


def attempt_record(values: dict[str, Any], secrets: list[str]) -> AttemptRecord:
    """A record from raw values: every text scrubbed, every invalid value dropped with a note."""
    data = {k: v for k, v in values.items() if v is not None}
    texts = "\n".join(_texts(data))
    if texts and scrub(texts, secrets) != texts:  # one cheap test; the walk only when needed
        scrubbed = scrub_json(data, secrets)
        assert isinstance(scrubbed, dict)
        data = scrubbed
    dropped = [str(d) for d in data.pop("dropped", None) or [] if isinstance(d, str)]
    for _ in range(len(data) + 8):
        try:
            return AttemptRecord.model_validate({**data, "dropped": dropped})
        except ValidationError as err:
            for problem in err.errors():
                loc = [str(part) for part in problem["loc"]]
                if loc and loc[0] == "dropped":
                    dropped = [d for d in dropped if _is_text(d)]
                    continue
                _remove(data, loc)
                dropped.append(f"{'.'.join(loc)}: {problem['msg']}"[:MAX_TEXT])
    return AttemptRecord(dropped=["the attempt: no valid field"])


def _texts(data: dict[str, Any]) -> Iterator[str]:
    """The record's texts (values, and values of `params` and `usage`; its keys are its own)."""
    for value in data.values():
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            yield from (v for v in value.values() if isinstance(v, str))
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))


def _remove(data: dict[str, Any], loc: list[str]) -> None:
    """Leave out the value at `loc` (a field, or one key of `params` / `usage`)."""
    inner = data.get(loc[0]) if len(loc) > 1 else None
    if isinstance(inner, dict) and loc[1] in inner:
        inner.pop(loc[1])
        if not inner:
            data.pop(loc[0])
        return
    data.pop(loc[0], None)


def _is_text(value: str) -> bool:
    try:
        _utf8(value)
    except ValueError:
        return False
    return len(value) <= MAX_TEXT
