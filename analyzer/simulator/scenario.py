"""What the simulator does, as a JSON-configurable scenario (`rerunlens simulate --scenario FILE`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analyzer.errors import RerunLensError
from analyzer.safety.settings_file import read_settings_text, refuse_duplicate_keys

Action = Literal["ok", "429", "500", "502", "503", "timeout", "401", "400"]
"""A scripted reply for one request."""


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class Backend(_Cfg):
    """One serving backend behind the API; backends answer ambiguous prompts differently."""

    name: str
    """Backend id, used to derive its answer bias."""
    system_fingerprint: str
    """Reported as `system_fingerprint` in every completion it serves."""
    snapshot: str = "2026-01-15"
    """Suffix of the served model name (`<model>-<snapshot>`)."""
    bias: float = Field(1.0, ge=0)
    """How far this backend's preferences stray from the task's base distribution."""


class RateLimit(_Cfg):
    """A token bucket per key: `requests_per_s` refill, `burst` capacity."""

    requests_per_s: float = Field(gt=0)
    """Sustained requests per second allowed."""
    burst: int = Field(1, ge=1)
    """Requests allowed at once before limiting starts."""


class KeyConfig(_Cfg):
    """Settings for one accepted key."""

    backend: str | None = None
    """Backend this key is routed to first (sticky); None picks one from the key's hash."""
    rate_limit: RateLimit | None = None
    """Limit for this key; None uses the scenario default."""


class Faults(_Cfg):
    """Random trouble, drawn deterministically per request from the simulator's seed."""

    rate_limit_rate: float = Field(0.0, ge=0, le=1)
    """Share of requests answered 429 regardless of the key's bucket."""
    server_error_rate: float = Field(0.0, ge=0, le=1)
    """Share of requests answered 500/502/503."""
    timeout_rate: float = Field(0.0, ge=0, le=1)
    """Share of requests that hang for `hang_s` before answering."""
    hang_s: float = Field(30.0, ge=0)
    """How long a timed-out request hangs."""
    retry_after_s: float = Field(0.05, ge=0)
    """Retry-After sent with injected 429s and 5xx (seconds; also sent as retry-after-ms)."""
    spill_rate: float = Field(0.0, ge=0, le=1)
    """Share of first attempts the load balancer sends to a backend other than the key's own."""
    retry_switch_rate: float = Field(0.5, ge=0, le=1)
    """Share of retries that land on another backend."""


class ScriptRule(_Cfg):
    """Scripted replies for requests whose last user message contains `match`."""

    match: str
    """Substring of the last user message."""
    actions: list[Action]
    """Reply to the 1st, 2nd, ... matching request; after the list runs out, normal service."""
    retry_after_s: float | None = None
    """Retry-After for scripted 429/5xx (defaults to the faults' value)."""


class Choice(_Cfg):
    """One possible answer with its weight."""

    text: str
    """Answer text."""
    weight: float = Field(1.0, gt=0)
    """Relative probability."""


class AnswerRule(_Cfg):
    """A fixed answer distribution for prompts containing `match` (a scripted model)."""

    match: str
    """Substring of the last user message."""
    choices: list[Choice] = Field(min_length=1)
    """Possible answers."""
    flake: float | None = Field(None, ge=0, le=1)
    """Chance a temperature-0 answer is resampled anyway (model noise); None derives it from the prompt."""


class Substitute(_Cfg):
    """Another model served under the requested name: its answer preferences stray by `shift`."""

    share: float = Field(1.0, ge=0, le=1)
    """Share of requests it answers (1: another or a quantised model; below 1: a cheaper one at times)."""
    shift: float = Field(1.0, ge=0)
    """How far its preferences stray from the backend's, on top of them (small: a quantised copy)."""
    name: str = "substitute"
    """Its id (seeds its preferences); never shown: the served name and fingerprint stay the backend's."""


class Distortion(_Cfg):
    """What a dishonest route does behind the same key, URL and served-model name (all off by default)."""

    substitute: Substitute | None = None
    """Another model answers (all or a share of requests)."""
    fixed_temperature: float | None = Field(None, ge=0)
    """The request's temperature is ignored and this one used."""
    system_prompt: str | None = None
    """A system prompt the route adds: billed as prompt tokens, and it bends the answers."""
    truncate_share: float = Field(0.0, ge=0, le=1)
    """Share of completions cut to half their tokens (finish reason `length`)."""
    usage_factor: float = Field(1.0, gt=0)
    """Reported prompt and completion tokens are the served ones times this."""
    reasoning_tokens: int = Field(0, ge=0)
    """Hidden reasoning tokens each completion costs (reported in completion_tokens and its details)."""
    drop_reasoning: bool = False
    """Reasoning tokens are left out of the usage (served, never reported)."""
    broken_tool_calls: float = Field(0.0, ge=0, le=1)
    """Share of tool calls broken: invalid JSON, an undeclared tool or arguments off the schema."""


class Scenario(_Cfg):
    """Everything the simulator does; the defaults make a well-behaved, slightly noisy provider."""

    seed: int = 0
    """Simulator seed: the same seed and requests give the same replies."""
    accept_any_key: bool = True
    """Accept any non-empty key; False accepts only `keys`."""
    keys: dict[str, KeyConfig] = Field(default_factory=dict)
    """Known keys and their settings (these are test keys, never real ones)."""
    rate_limit: RateLimit | None = None
    """Default per-key limit; None means unlimited."""
    models: list[str] = Field(default_factory=lambda: ["gpt-4o-mini", "gpt-4o", "sim-agent-1"])
    """Models listed by /v1/models."""
    accept_any_model: bool = True
    """Serve any model name; False answers 404 `model_not_found` for names not in `models`."""
    backends: list[Backend] = Field(
        default_factory=lambda: [
            Backend(name="east-a", system_fingerprint="fp_sim_e4a1", snapshot="2026-01-15", bias=0.6),
            Backend(name="west-b", system_fingerprint="fp_sim_w7b2", snapshot="2026-01-15", bias=1.0),
            Backend(name="canary-c", system_fingerprint="fp_sim_c9c3", snapshot="2026-03-02", bias=1.6),
        ],
        min_length=1,
    )
    """Serving backends."""
    latency_ms: tuple[float, float] = (5.0, 15.0)
    """Added latency per request, drawn uniformly in [low, high] milliseconds."""
    faults: Faults = Field(default_factory=Faults)
    """Random trouble."""
    flaky_share: float = Field(0.15, ge=0, le=1)
    """Share of derived tasks with inherent model noise at temperature 0."""
    seeded_flake_factor: float = Field(0.35, ge=0, le=1)
    """A request seed scales model noise by this factor (seeds are best effort, as with real providers)."""
    script: list[ScriptRule] = Field(default_factory=list)
    """Scripted replies, checked before anything random."""
    answers: list[AnswerRule] = Field(default_factory=list)
    """Fixed answer distributions, checked before deriving one from the prompt."""
    billing: Literal["words", "o200k_base"] = "words"
    """How usage is counted: words and punctuation marks, or OpenAI's o200k_base by the cookbook rule."""
    distortion: Distortion = Field(default_factory=Distortion)
    """What a dishonest route does (the route audit's test cases); nothing by default."""


def load_scenario(path: str | Path) -> Scenario:
    """Read a scenario JSON file; errors name the file and the first problem."""
    p = Path(path)
    text = read_settings_text(p, "scenario")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise RerunLensError(f"{p}: not valid JSON: {err}") from None
    except RecursionError:
        raise RerunLensError(f"{p}: nested too deeply to be a scenario") from None
    refuse_duplicate_keys(text, p)
    try:
        return Scenario.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        raise RerunLensError(f"{p}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
