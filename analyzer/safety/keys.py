"""API keys: read, checked and fingerprinted here, and nowhere else, once per run.

A route profile names the environment variable(s) holding the key; `read_keys` reads them (or takes
a key typed for one session, or a rotation of keys) at the moment a run, a job or a preflight starts,
refuses a key that cannot go into an HTTP header, and returns a `RunKeys`: the keys in memory and
their fingerprints. Only fingerprints (`sha256:` + 12 hex) are ever written anywhere.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from analyzer.errors import RouteError

SIMULATOR_KEY = "sim-local-no-secret"
"""Key sent to the embedded simulator when no key is configured; public, not a secret."""

PLACEHOLDER_MARKERS = ("your", "xxx", "placeholder", "changeme", "replace", "<", "...", "example", "dummy")
"""Substrings that mark a key as a template value nobody replaced."""

KeyProblem = Literal["empty", "placeholder", "whitespace"]

KEY_VARIABLE = re.compile(r"^[A-Z][A-Z0-9_]*(API_KEY|_KEY|_TOKEN)$")
"""What a variable listed in `RERUNLENS_KEY_VARIABLES` must look like: `TEAM_KEY`, `GW_TOKEN`."""

EXTRA_KEY_VARIABLES = "RERUNLENS_KEY_VARIABLES"
"""Comma-separated further key variables a page or a log's route may name (set by the user)."""


def allowed_key_variables(named: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
    """The key variables a page or a log's route may name: the ones the user's own route or profile
    names (`named`), and those listed in `RERUNLENS_KEY_VARIABLES` that look like key variables.

    A page or a shared log must never be able to send another server variable (`HOME`,
    `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`) as a bearer token to a base URL of its choosing.
    """
    source = os.environ if env is None else env
    extra = [v.strip() for v in source.get(EXTRA_KEY_VARIABLES, "").split(",")]
    return list(dict.fromkeys([*named, *(v for v in extra if KEY_VARIABLE.match(v))]))


def check_key_variable(name: str, allowed: Sequence[str]) -> None:
    """Refuse a key variable that the user's own route or profile does not name (`allowed`, from
    `allowed_key_variables`).

    Raises:
        RouteError: naming the variable (never a pasted key) and how to allow it.
    """
    if name in allowed:
        return
    if not re.fullmatch(r"[A-Z][A-Z0-9_]{0,63}", name):  # perhaps a pasted key: never echo it
        raise RouteError(
            f"the key variable field holds something that is not a variable name (fingerprint "
            f"{key_fingerprint(name)}); give the name of the variable that holds the key, not the key"
        )
    raise RouteError(
        f"key variable {name!r} is not one your own route names ({', '.join(allowed) or 'none'}); "
        f"name it with --key-env or in a profile, or list it in {EXTRA_KEY_VARIABLES}"
    )


def key_fingerprint(key: str | None) -> str | None:
    """One-way fingerprint of a key: `sha256:` + 12 hex characters; None for no key."""
    if not key:
        return None
    return "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def key_is_dirty(key: str) -> bool:
    """True when a key holds white space or control characters anywhere (a pasted line break, a tab).

    Such a key cannot go into an HTTP header; sending it makes the HTTP library quote the whole
    header, key included, in its error message.
    """
    return any(c.isspace() or unicodedata.category(c)[0] in "CZ" for c in key)


def dirty_key_message(key_env: str) -> str:
    """The one-line diagnosis of a key with white space or control characters (never the key)."""
    return f"the key in {key_env} contains white space or control characters; strip it"


def key_problem(key: str | None) -> KeyProblem | None:
    """`empty`, `placeholder` or `whitespace` when a key is obviously unusable, else None."""
    if key is None or key == "":
        return "empty"
    if key_is_dirty(key):
        return "whitespace"
    low = key.lower()
    if any(m in low for m in PLACEHOLDER_MARKERS) or len(set(low)) <= 2:
        return "placeholder"
    return None


@dataclass(frozen=True)
class RunKeys:
    """The key(s) of one run, read once. The repr shows fingerprints only."""

    names: tuple[str, ...]
    """Where each key came from: variable names, "the session's key field", "key N of the rotation"."""
    keys: tuple[str, ...] = field(repr=False)
    """The keys themselves (an unset variable gives ""); never write these anywhere."""
    source: str
    """`env:<VARIABLE>`, `session` (typed into a page; needed again to resume) or `rotation`."""

    @property
    def fingerprints(self) -> list[str | None]:
        """One fingerprint per key (None for an empty one)."""
        return [key_fingerprint(k) for k in self.keys]

    @property
    def fingerprint(self) -> str | None:
        """The first key's fingerprint: the run's key when there is one."""
        return self.fingerprints[0] if self.keys else None

    def secrets(self) -> list[str]:
        """The non-empty keys, for scrubbing messages."""
        return [k for k in self.keys if k]

    def missing(self) -> list[str]:
        """Names whose key is empty."""
        return [n for n, k in zip(self.names, self.keys, strict=True) if not k]

    def for_simulator(self) -> RunKeys:
        """Empty keys replaced by the public simulator key (the simulator needs some key)."""
        return RunKeys(self.names, tuple(k or SIMULATOR_KEY for k in self.keys), self.source)


def read_keys(
    key_envs: Sequence[str],
    *,
    session_key: str | None = None,
    rotation: Sequence[str] | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
) -> RunKeys:
    """Read a run's key(s) now and refuse one that holds white space or control characters.

    Args:
        key_envs: The profile's key variables, in rotation order (`RouteProfile.key_envs()`).
        session_key: A key typed for this session only (a dashboard password field); wins.
        rotation: Several explicit keys to rotate over per attempt; wins over everything.
        env: Where variables are read (default: the process environment).
        check: Refuse a dirty key (False: the preflight diagnoses it instead).

    Raises:
        RouteError: naming the variable or field, never showing the key.
    """
    if rotation:
        names = tuple(f"key {n} of the rotation" for n in range(1, len(rotation) + 1))
        keys = RunKeys(names, tuple(rotation), "rotation")
    elif session_key is not None:
        keys = RunKeys(("the session's key field",), (session_key,), "session")
    else:
        source = os.environ if env is None else env
        names = tuple(key_envs)
        keys = RunKeys(names, tuple(source.get(n, "") for n in names), f"env:{names[0]}")
    for name, key in zip(keys.names, keys.keys, strict=True):
        if check and key and key_is_dirty(key):
            raise RouteError(dirty_key_message(name))
    return keys
