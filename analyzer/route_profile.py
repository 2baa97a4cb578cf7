"""Route profiles: where calls go, which key (by variable name), and which parameters.

A profile never holds a key. It names the environment variable the key lives in; the key is read
at call time (`resolve_keys`) and only its fingerprint (`key_fingerprint`) is ever written.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analyzer.errors import RouteError
from analyzer.model import Route

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
SIMULATOR_KEY = "sim-local-no-secret"
"""Key sent to the embedded simulator when no key is configured; public, not a secret."""

PLACEHOLDER_MARKERS = ("your", "xxx", "placeholder", "changeme", "replace", "<", "...", "example", "dummy")

MAX_TIMEOUT_S = 3600.0
"""Upper bound of a per-attempt timeout; `inf` or a huge value overflows the clock arithmetic."""

MAX_TOKENS = 10_000_000
"""Upper bound of a completion token cap; far above any model's, far below what a log can record."""

FLAG_NAMES: dict[str, str] = {"rounds": "--repeat", "timeout_s": "--timeout"}
"""Profile field -> the command-line flag that sets it, where the two names differ."""

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


class RouteProfile(BaseModel):
    """Everything that decides how a task reaches the model, except the key itself."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, validate_assignment=True)

    base_url: str | None = None
    """API root, e.g. `https://api.openai.com/v1`; None means the embedded simulator."""
    key_env: str = DEFAULT_KEY_ENV
    """Name of the environment variable that holds the key."""
    key_rotation: list[str] = Field(default_factory=list)
    """Further key variables; when set, attempts rotate over key_env plus these (a key-rotation setup)."""
    model: str = "gpt-4o-mini"
    """Model requested."""
    temperature: float = Field(0.0, ge=0, le=2, allow_inf_nan=False)
    """Sampling temperature."""
    top_p: float = Field(1.0, gt=0, le=1, allow_inf_nan=False)
    """Nucleus sampling parameter."""
    seed: int | None = Field(42, ge=-(2**63), le=2**63 - 1)
    """Seed sent with every request (a signed 64-bit integer); None sends none."""
    max_tokens: int | None = Field(256, ge=1, le=MAX_TOKENS)
    """Completion token cap (a task's own max_tokens wins)."""
    timeout_s: float = Field(120.0, gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)
    """Client timeout per attempt, seconds (at most an hour)."""
    max_retries: int = Field(1, ge=0, le=20)
    """SDK retries after the first attempt."""
    concurrency: int = Field(1, ge=1, le=64)
    """Tasks in flight at once."""
    rounds: int = Field(5, ge=1, le=1000)
    """How many times each task runs."""

    @property
    def uses_simulator(self) -> bool:
        """True when no base URL is configured, so the embedded simulator serves."""
        return not self.base_url

    def public_dump(self) -> dict[str, Any]:
        """The profile as JSON-ready data with secrets in the base URL (query values, passwords) redacted."""
        from analyzer.url_lint import redact_url

        data = self.model_dump(mode="json")
        if data.get("base_url"):
            data["base_url"] = redact_url(data["base_url"])
        return data

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
        from analyzer.url_lint import redact_url

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


def key_fingerprint(key: str | None) -> str | None:
    """One-way fingerprint of a key: `sha256:` + 12 hex characters; None for no key."""
    if not key:
        return None
    return "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def flag_name(field: str) -> str:
    """The command-line flag that sets a profile field (`rounds` -> `--repeat`)."""
    return FLAG_NAMES.get(field, "--" + field.replace("_", "-"))


def key_is_dirty(key: str) -> bool:
    """True when a key holds white space or control characters anywhere (a pasted line break, a tab).

    Such a key cannot go into an HTTP header; sending it makes the HTTP library quote the whole
    header, key included, in its error message.
    """
    return any(c.isspace() or unicodedata.category(c)[0] in "CZ" for c in key)


def dirty_key_message(key_env: str) -> str:
    """The one-line diagnosis of a key with white space or control characters (never the key)."""
    return f"the key in {key_env} contains white space or control characters; strip it"


def check_keys_clean(names: Sequence[str], keys: Sequence[str]) -> None:
    """Refuse, before any request, a key holding white space or control characters.

    Raises:
        RouteError: naming the variable (never showing the key).
    """
    for name, key in zip(names, keys, strict=False):
        if key and key_is_dirty(key):
            raise RouteError(dirty_key_message(name))


def key_problem(key: str | None) -> str | None:
    """`empty`, `placeholder` or `whitespace` when a key is obviously unusable, else None.

    `whitespace` covers white space or control characters anywhere in the key.
    """
    if key is None or key == "":
        return "empty"
    if key_is_dirty(key):
        return "whitespace"
    low = key.lower()
    if any(m in low for m in PLACEHOLDER_MARKERS) or len(set(low)) <= 2:
        return "placeholder"
    return None


def resolve_keys(
    profile: RouteProfile, env: Mapping[str, str] | None = None, override: str | None = None
) -> list[str]:
    """Read the key(s) at call time: the override (a session-only key) or the named variables.

    Returns one entry per key variable; an unset variable gives "".
    """
    if override is not None:
        return [override]
    source = os.environ if env is None else env
    return [source.get(name, "") for name in profile.key_envs()]


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
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as err:
        raise RouteError(f"{p}: cannot read profile ({err.strerror})") from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as err:
        raise RouteError(
            f"{p}: not valid {'JSON' if p.suffix.lower() == '.json' else 'TOML'}: {err}"
        ) from None
    if not isinstance(data, dict):
        raise RouteError(f"{p}: a profile must be a table of settings")
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
