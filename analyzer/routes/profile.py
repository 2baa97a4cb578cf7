"""Route profiles: where calls go, which key (by variable name), and which parameters.

A profile never holds a key. It names the environment variable the key lives in; the key is read
at call time (analyzer.safety.keys) and only its fingerprint is ever written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from analyzer.errors import RouteError
from analyzer.log.model import Route
from analyzer.routes.url_lint import redact_url
from analyzer.safety.settings_file import json_kind, parse_settings, read_settings_text

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
MAX_TIMEOUT_S = 3600.0
"""Upper bound of a per-attempt timeout; `inf` or a huge value overflows the clock arithmetic."""

MAX_TOKENS = 10_000_000
"""Upper bound of a completion token cap; far above any model's, far below what a log can record."""

ENV_FIELDS: dict[str, str] = {
    "OPENAI_BASE_URL": "base_url",
    "ALTK_MODEL": "model",
    "ALTK_TEMPERATURE": "temperature",
    "ALTK_TOP_P": "top_p",
    "ALTK_SEED": "seed",
    "ALTK_REPEAT": "rounds",
    "ALTK_MAX_RETRIES": "max_retries",
    "ALTK_TIMEOUT": "timeout_s",
    "ALTK_CONCURRENCY": "concurrency",
}
"""Environment variable -> profile field, read when present."""


MAX_ROUNDS = 1000
"""Most rounds a run can have (a journal header claiming more is damaged)."""


@dataclass(frozen=True)
class RouteKnob:
    """How a person sets a route field: its command-line flag, its dashboard label, help and step.

    Carried as field metadata so the CLI's flags and the dashboard's route editor are generated from
    the profile itself: a new route field is added here, once.
    """

    flag: str
    """The command-line flag (`--top-p`)."""
    label: str
    """The dashboard label (`top_p`)."""
    help: str
    """What it does, without its default (added from the field's own default)."""
    step: float | None = None
    """Step of the dashboard's number input; None for a text field or one set elsewhere."""
    default_text: str | None = None
    """How to say the default when its value does not say it (no base URL: the simulator)."""


class RouteProfile(BaseModel):
    """Everything that decides how a task reaches the model, except the key itself."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, validate_assignment=True)

    base_url: Annotated[
        str | None,
        RouteKnob(
            "--base-url",
            "Base URL",
            "API root, e.g. https://api.openai.com/v1; the SDK appends /chat/completions to it",
            default_text="the built-in simulator",
        ),
    ] = None
    """API root, e.g. `https://api.openai.com/v1`; None means the embedded simulator."""
    key_env: Annotated[
        str,
        RouteKnob(
            "--key-env",
            "Key variable",
            "the environment variable that holds the API key; the key is read when the calls are made",
        ),
    ] = DEFAULT_KEY_ENV
    """Name of the environment variable that holds the key."""
    key_rotation: list[str] = Field(default_factory=list)
    """Further key variables; when set, attempts rotate over key_env plus these (a key-rotation setup)."""
    base_url_rotation: list[str] = Field(default_factory=list)
    """Further API roots; when set, attempts rotate over base_url plus these (several endpoints or
    gateways behind one route, the base-URL twin of key_rotation). Each is a host the user chose: the
    key goes to each of them, and never to any other."""
    model: Annotated[str, RouteKnob("--model", "Model", "model name")] = "gpt-4o-mini"
    """Model requested."""
    temperature: Annotated[
        float,
        Field(ge=0, le=2, allow_inf_nan=False),
        RouteKnob("--temperature", "Temperature", "sampling temperature; 0 is the reproducible choice", 0.1),
    ] = 0.0
    """Sampling temperature."""
    top_p: Annotated[
        float,
        Field(gt=0, le=1, allow_inf_nan=False),
        RouteKnob("--top-p", "top_p", "nucleus sampling; 1 keeps every token", 0.05),
    ] = 1.0
    """Nucleus sampling parameter."""
    seed: Annotated[
        int | None,
        Field(ge=-(2**63), le=2**63 - 1),
        RouteKnob(
            "--seed", "Seed", "sent with every request, so a backend that honours it repeats itself", 1
        ),
    ] = 42
    """Seed sent with every request (a signed 64-bit integer); None sends none."""
    max_tokens: Annotated[
        int | None,
        Field(ge=1, le=MAX_TOKENS),
        RouteKnob("--max-tokens", "Max tokens", "completion token cap (a task's own max_tokens wins)", 16),
    ] = 256
    """Completion token cap (a task's own max_tokens wins)."""
    timeout_s: Annotated[
        float,
        Field(gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False),
        RouteKnob("--timeout", "Timeout (s)", "client timeout per HTTP attempt, in seconds", 10.0),
    ] = 120.0
    """Client timeout per attempt, seconds (at most an hour)."""
    max_retries: Annotated[
        int,
        Field(ge=0, le=20),
        RouteKnob("--max-retries", "Max retries", "SDK retries after the first attempt", 1),
    ] = 1
    """SDK retries after the first attempt."""
    concurrency: Annotated[
        int,
        Field(ge=1, le=64),
        RouteKnob(
            "--concurrency", "Concurrency", "tasks in flight at once; 1 keeps the order reproducible", 1
        ),
    ] = 1
    """Tasks in flight at once."""
    rounds: Annotated[
        int,
        Field(ge=1, le=MAX_ROUNDS),
        RouteKnob("--repeat", "Rounds", "how many times each task runs; 2 is the least that can differ"),
    ] = 5
    """How many times each task runs."""

    @property
    def uses_simulator(self) -> bool:
        """True when no base URL is configured, so the embedded simulator serves."""
        return not self.base_url

    def public_dump(self) -> dict[str, Any]:
        """The profile as JSON-ready data with secrets in the base URL (query values, passwords) redacted."""
        data = self.model_dump(mode="json")
        if data.get("base_url"):
            data["base_url"] = redact_url(data["base_url"])
        return data

    @field_validator("base_url_rotation")
    @classmethod
    def _rotation_urls(cls, urls: list[str]) -> list[str]:
        for url in urls:
            parts = urlsplit(url.strip())
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"base_url_rotation: {redact_url(url)[:60]!r} is not an http(s) URL")
        return [u.strip() for u in urls]

    def base_urls(self) -> list[str]:
        """Every API root attempts go to, in rotation order (empty for the embedded simulator)."""
        if not self.base_url:
            return []
        return [self.base_url, *[u for u in self.base_url_rotation if u != self.base_url]]

    def key_envs(self) -> list[str]:
        """Every key variable the profile reads, in rotation order."""
        return [self.key_env, *[k for k in self.key_rotation if k != self.key_env]]

    def to_route(self, *, base_url: str | None = None, fingerprints: list[str] | None = None) -> Route:
        """The profile as a log `route` record (fingerprints only)."""
        fps = fingerprints or []
        extra: dict[str, Any] = {}
        if len(fps) > 1:
            extra["key_fingerprints"] = fps
            extra["key_rotation"] = self.key_envs()
        if len(self.base_urls()) > 1 and base_url is None:
            extra["base_url_rotation"] = [redact_url(u) for u in self.base_urls()]
        url = base_url if base_url is not None else self.base_url
        return Route(
            base_url=redact_url(url) if url else url,
            key_env=self.key_env,
            key_fingerprint=fps[0] if fps else None,
            model=self.model,
            temperature=self.temperature,
            top_p=self.top_p,
            seed=self.seed,
            max_tokens=self.max_tokens,
            timeout_s=self.timeout_s,
            max_retries=self.max_retries,
            concurrency=self.concurrency,
            simulator=self.uses_simulator,
            **extra,
        )


def route_knobs() -> dict[str, RouteKnob]:
    """Every profile field a person sets by hand, with its flag, label and help, in field order."""
    found: dict[str, RouteKnob] = {}
    for name, info in RouteProfile.model_fields.items():
        knob = next((m for m in info.metadata if isinstance(m, RouteKnob)), None)
        if knob is not None:
            found[name] = knob
    return found


def knob_kind(field: str) -> type:
    """The Python type a hand-set value of `field` is parsed as: int, float or str."""
    annotation = RouteProfile.model_fields[field].annotation
    if annotation in (int, int | None):
        return int
    if annotation is float:
        return float
    return str


def knob_help(field: str) -> str:
    """The knob's help with the field's own default: `sampling temperature; ... (default 0)`."""
    knob = route_knobs()[field]
    default = RouteProfile.model_fields[field].default
    shown = knob.default_text or (f"{default:g}" if isinstance(default, float) else str(default))
    return f"{knob.help} (default {shown})"


KEY_ROUTE_FIELDS = ("base_url", "key_env", "key_rotation", "base_url_rotation")
"""The route fields that choose which key is read and where it is sent: only ever the user's own
(flags, environment, profile file), never a log's or a journal's."""


def flag_name(field: str) -> str:
    """The command-line flag that sets a profile field (`rounds` -> `--repeat`)."""
    knob = route_knobs().get(field)
    return knob.flag if knob else "--" + field.replace("_", "-")


def _coerce(name: str, field: str, raw: str) -> Any:
    raw = raw.strip()
    info = RouteProfile.model_fields[field]
    kind = info.annotation
    try:
        if kind in (int, int | None):
            return None if raw.lower() in ("", "none") and kind is not int else int(raw)
        if kind is float:
            return float(raw)
    except ValueError:
        want = "an integer" if kind in (int, int | None) else "a number"
        raise RouteError(f"{name}={raw[:40]!r} is not {want}") from None
    return raw


def profile_from_env(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Profile fields set by the environment (only those present and non-empty)."""
    source = os.environ if env is None else env
    values: dict[str, Any] = {}
    for name, field in ENV_FIELDS.items():
        raw = source.get(name)
        if raw is None or raw.strip() == "":
            continue
        values[field] = raw.strip() if field == "base_url" else _coerce(name, field, raw)
        _check_field(name, field, values[field])
    return values


def _check_field(where: str, field: str, value: Any) -> None:
    try:
        RouteProfile(**{field: value})
    except ValidationError as err:
        msg = err.errors()[0]["msg"]
        raise RouteError(f"{where}={str(value)[:40]!r}: {msg}") from None


def profile_from_file(path: str | Path) -> dict[str, Any]:
    """Profile fields from a TOML or JSON file (a `[route]` table or top-level keys)."""
    p = Path(path)
    data = parse_settings(read_settings_text(p, "profile", RouteError), p, RouteError)
    if not isinstance(data, dict):
        raise RouteError(f"{p}: a profile must be a table of settings")
    if "route" in data and not isinstance(data["route"], dict):
        raise RouteError(f"{p}: 'route' must be a table of settings, not {json_kind(data['route'])}")
    data = data.get("route", data)
    for secret in ("api_key", "key", "openai_api_key"):
        if secret in data:
            raise RouteError(
                f"{p}: holds '{secret}'; put the key in an environment variable, name it in key_env"
            )
    unknown = sorted(set(data) - set(RouteProfile.model_fields))
    if unknown:
        raise RouteError(f"{p}: unknown setting '{unknown[0]}'")
    for field, value in data.items():
        _check_field(f"{p}: {field}", field, value)
    return dict(data)


def build_profile(
    *,
    file: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    use_env: bool = True,
    base: Mapping[str, Any] | None = None,
) -> RouteProfile:
    """Defaults < base < environment < profile file < explicit overrides (CLI flags).

    None overrides are ignored. A file named on purpose beats ambient environment variables; a flag
    beats both. `base` holds values that replace the defaults only (a re-run's parent settings).
    """
    values: dict[str, Any] = {k: v for k, v in (base or {}).items() if v is not None}
    if use_env:
        values.update(profile_from_env(env))
    if file is not None:
        values.update(profile_from_file(file))
    for field, value in (overrides or {}).items():
        if value is None:
            continue
        _check_field(flag_name(field), field, value)
        values[field] = value
    if values.get("base_url") is not None and not str(values["base_url"]).strip():
        values["base_url"] = None
    try:
        return RouteProfile(**values)
    except ValidationError as err:
        first = err.errors()[0]
        raise RouteError(f"route {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
