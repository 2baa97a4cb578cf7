"""The doctor's checks, one per classic mistake, each finding naming the file, the key and the fix.

The mistakes: a tracking-tagged home-page URL used as the API base; a `YOUR_API_KEY`
placeholder left in; `ANTHROPIC_*` variables in Codex's config or `OPENAI_*` in Claude Code's; one
key shared between the benchmark and the coding tools; a base URL missing or doubling its version
segment. Keys are only ever shown as fingerprints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from analyzer.coding_tools.protocol import (
    ANTHROPIC_HOSTS,
    OPENAI_ONLY_HOSTS,
    doubled_version,
    is_version,
    path_segments,
)
from analyzer.coding_tools.url_checks import lint_findings
from analyzer.safety.keys import key_fingerprint, key_problem

Severity = Literal["error", "warning"]
UrlKind = Literal["anthropic", "openai"]
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class DoctorFinding:
    """One mistake: where it is, what is wrong, what to do."""

    code: str
    """Stable identifier: `base_url`, `version_segment`, `wrong_protocol`, `placeholder_key`,
    `wrong_tool_vars`, `shared_key`, ..."""
    severity: Severity
    """`error` when the tool will fail or mix usage, `warning` when it may."""
    file: str
    """The settings file, or `environment`."""
    key: str
    """The key in that file (`env.ANTHROPIC_BASE_URL`, `model_providers.gw.base_url`, `$OPENAI_API_KEY`)."""
    message: str
    """What is wrong, one line, a key only as its fingerprint."""
    fix: str
    """What to do, one line."""

    def line(self) -> str:
        """`file: key: message Fix: fix`."""
        return f"{self.file}: {self.key}: {self.message} Fix: {self.fix}"


@dataclass
class Collector:
    """Findings for one file (or the environment), with the benchmark's key fingerprints at hand."""

    file: str
    benchmark_fps: frozenset[str] = frozenset()
    findings: list[DoctorFinding] = field(default_factory=list)

    def add(self, code: str, severity: Severity, key: str, message: str, fix: str) -> None:
        """Record one finding."""
        self.findings.append(DoctorFinding(code, severity, self.file, key, message, fix))


def _safe(text: str, url: str) -> str:
    """`text` with the URL's query and password (where a secret may sit) blanked out."""
    parts = urlsplit(url.strip())
    for secret in (parts.query, parts.password):
        if secret:
            text = text.replace(secret, "REDACTED")
    return text


def check_url(c: Collector, key: str, url: Any, kind: UrlKind) -> None:
    """Lint errors, a wrong or doubled version segment, and the other protocol's root."""
    if not isinstance(url, str) or not url.strip():
        c.add("base_url", "error", key, "is empty or not a string.", "Set it to the gateway's root URL.")
        return
    for f in lint_findings(url, want_version=kind == "openai"):
        if f.code == "missing_version":
            c.add(
                "version_segment",
                f.severity,
                key,
                "has no version segment; OpenAI-compatible clients append their endpoint right after it.",
                _safe(f.fix, url),
            )
            continue
        fix = f.fix
        if f.code == "home_page" and kind == "anthropic":
            fix = "Use the provider's API root that serves the Anthropic Messages API, without /v1."
        c.add("base_url", f.severity, key, _safe(f.message, url), _safe(fix, url))
    segments = path_segments(url)
    doubled = doubled_version(url)
    if doubled:
        c.add(
            "version_segment",
            "error",
            key,
            f"doubles its version segment (/{doubled}/.../{doubled}).",
            f"Keep one /{doubled}.",
        )
    elif kind == "anthropic" and segments and is_version(segments[-1]):
        c.add(
            "version_segment",
            "error",
            key,
            f"ends in /{segments[-1]}; Claude Code appends /v1/messages, "
            f"so it would call /{segments[-1]}/v1/messages.",
            f"Drop the trailing /{segments[-1]}.",
        )
    _check_protocol(c, key, url, kind)


def _check_protocol(c: Collector, key: str, url: str, kind: UrlKind) -> None:
    host = (urlsplit(url.strip()).hostname or "").lower()
    lowered = [s.lower() for s in path_segments(url)]
    if kind == "anthropic" and (host in OPENAI_ONLY_HOSTS or "openai" in lowered):
        c.add(
            "wrong_protocol",
            "warning",
            key,
            "looks like an OpenAI API root; Claude Code speaks the Anthropic Messages API.",
            "Use the gateway's Anthropic root (often its /anthropic path).",
        )
    if kind == "openai" and (host in ANTHROPIC_HOSTS or "anthropic" in lowered):
        c.add(
            "wrong_protocol",
            "warning",
            key,
            "looks like an Anthropic API root; this tool speaks the OpenAI API.",
            "Use the gateway's OpenAI root (often its /v1 or /openai/v1 path).",
        )


def check_secret(c: Collector, key: str, value: Any, *, shared: bool = True) -> None:
    """A placeholder or dirty key, and a key that is the benchmark's (by fingerprint)."""
    if not isinstance(value, str) or value == "":
        return
    fp = key_fingerprint(value)
    problem = key_problem(value)
    if problem == "placeholder":
        c.add(
            "placeholder_key",
            "error",
            key,
            f"holds a placeholder, not a key ({fp}).",
            "Replace it with the gateway key, or remove it and set the variable in your shell.",
        )
    elif problem == "whitespace":
        c.add(
            "dirty_key",
            "error",
            key,
            f"holds a key with white space or control characters ({fp}).",
            "Strip the key.",
        )
    elif shared and fp in c.benchmark_fps:
        c.add(
            "shared_key",
            "error",
            key,
            f"is the benchmark's key ({fp}): the coding tool's usage would land in the "
            "benchmark's statistics.",
            "Give the coding tool a key of its own.",
        )


def check_claude_env(c: Collector, env: Any, prefix: str = "env") -> None:
    """Claude Code's `env` object: base URL, tokens, and OpenAI variables it never reads."""
    if env is None:
        return
    if not isinstance(env, dict):
        c.add("bad_shape", "error", prefix, "is not an object.", 'Write it as {"NAME": "value", ...}.')
        return
    if "ANTHROPIC_BASE_URL" in env:
        check_url(c, f"{prefix}.ANTHROPIC_BASE_URL", env["ANTHROPIC_BASE_URL"], "anthropic")
    tokens = [k for k in ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY") if env.get(k)]
    for name in tokens:
        check_secret(c, f"{prefix}.{name}", env[name])
    if len(tokens) == 2:
        c.add(
            "conflicting_auth",
            "warning",
            f"{prefix}.ANTHROPIC_API_KEY",
            "is set beside ANTHROPIC_AUTH_TOKEN; both headers go out and gateways differ in which wins.",
            "Keep one of the two (ANTHROPIC_AUTH_TOKEN for a gateway).",
        )
    for name in sorted(k for k in env if str(k).startswith("OPENAI_")):
        c.add(
            "wrong_tool_vars",
            "error",
            f"{prefix}.{name}",
            "is an OpenAI variable; Claude Code never reads it.",
            "Use ANTHROPIC_BASE_URL / ANTHROPIC_AUTH_TOKEN with the gateway's Anthropic root.",
        )


def anthropic_strings(data: Any, path: str = "") -> list[str]:
    """Dotted paths of every key or string value in `data` that names an ANTHROPIC_* variable."""
    found: list[str] = []
    if isinstance(data, dict):
        for k, v in data.items():
            here = f"{path}.{k}" if path else str(k)
            if str(k).startswith("ANTHROPIC_"):
                found.append(here)
            else:
                found += anthropic_strings(v, here)
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found += anthropic_strings(v, f"{path}[{i}]")
    elif isinstance(data, str) and data.startswith("ANTHROPIC_"):
        found.append(path)
    return found


def is_variable_name(text: str) -> bool:
    """True for a plausible environment variable name (`OPENAI_API_KEY`), False for a key value."""
    return _VARIABLE.fullmatch(text) is not None and not text.lower().startswith("sk-")


__all__ = [
    "Collector",
    "DoctorFinding",
    "anthropic_strings",
    "check_claude_env",
    "check_secret",
    "check_url",
    "is_variable_name",
]
