"""Which API each coding tool speaks, and the root it needs from a benchmark route.

A RerunLens route's base URL is an OpenAI-compatible root (`https://gw.example.com/v1`): the SDK
appends `/chat/completions`. The coding tools append their own endpoint to their own root:

- Claude Code speaks the Anthropic Messages API and appends `/v1/messages` to `ANTHROPIC_BASE_URL`,
  so its root is the gateway root *without* the `/v1` (code.claude.com/docs/en/env-vars;
  ngrok.com/docs/ai-gateway/agents/claude-code: "the gateway URL without /v1, since Claude Code
  appends /v1/messages itself"; opencode.ai/docs/console/harnesses/claude-code).
- Codex speaks the OpenAI Responses API and appends `/responses` to `model_providers.<id>.base_url`,
  so its root is the route's root *with* the `/v1` (opencode.ai/docs/console/harnesses/codex:
  "Codex appends /responses to the base URL and reads the key from env_key"). `wire_api = "chat"`
  was deprecated and then refused by Codex (openai/codex discussion 7782, quoted in
  github.com/janhq/jan/issues/7413 and github.com/labring/aiproxy/issues/568), so the gateway must
  serve `/responses` as well as the `/chat/completions` the benchmark used.
- CC Switch stores a provider per app; the export targets its Claude app, so it takes Claude
  Code's root.

`tool_root` returns the root written, why, and a warning wherever the gateway root looks like the
other protocol's (an `/openai` path for Claude Code, an `/anthropic` path for Codex).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

Tool = Literal["claude-code", "codex", "cc-switch"]
Protocol = Literal["anthropic-messages", "openai-responses"]

TOOLS: tuple[Tool, ...] = ("claude-code", "codex", "cc-switch")
TOOL_NAMES: dict[Tool, str] = {"claude-code": "Claude Code", "codex": "Codex", "cc-switch": "CC Switch"}
TOOL_PROTOCOL: dict[Tool, Protocol] = {
    "claude-code": "anthropic-messages",
    "codex": "openai-responses",
    "cc-switch": "anthropic-messages",
}
ENDPOINTS: dict[Protocol, str] = {"anthropic-messages": "/v1/messages", "openai-responses": "/responses"}
"""What each tool appends to the root it is given."""

OPENAI_ONLY_HOSTS = {"api.openai.com", "api.mistral.ai", "api.together.xyz", "api.groq.com"}
"""Hosts that serve the OpenAI API and no Anthropic Messages API."""
ANTHROPIC_HOSTS = {"api.anthropic.com"}
"""Hosts that serve the Anthropic Messages API (their OpenAI-compatible layer has no /responses)."""

_VERSION = re.compile(r"v\d+(\.\d+)?(alpha\d*|beta\d*)?", re.IGNORECASE)


@dataclass(frozen=True)
class RootChoice:
    """The root written for one tool, the URL the tool will call, why, and what looks wrong."""

    root: str
    """The base URL written into the tool's settings."""
    calls: str
    """The URL the tool will call for one request (root + its endpoint)."""
    why: str
    """One line: which root this is and why the tool needs it."""
    warnings: list[str] = field(default_factory=list)
    """Where the gateway root looks like the other protocol's, or versions look wrong."""


def is_version(segment: str) -> bool:
    """True for a path segment such as `v1`, `v2beta`, `v1.1`."""
    return _VERSION.fullmatch(segment) is not None


def path_segments(url: str) -> list[str]:
    """The non-empty segments of a URL's path."""
    return [s for s in urlsplit(url).path.split("/") if s]


def doubled_version(url: str) -> str | None:
    """The version segment a URL's path holds twice (`/v1/v1`), else None."""
    versions = [s.lower() for s in path_segments(url) if is_version(s)]
    return next((v for v in versions if versions.count(v) > 1), None)


def _with_path(url: str, segments: list[str]) -> str:
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, "/" + "/".join(segments) if segments else "", "", ""))


def tool_root(tool: Tool, base_url: str) -> RootChoice:
    """The root `tool` needs, derived from a route's OpenAI-compatible base URL."""
    protocol = TOOL_PROTOCOL[tool]
    url = base_url.strip().rstrip("/")
    segments = path_segments(url)
    host = (urlsplit(url).hostname or "").lower()
    lowered = [s.lower() for s in segments]
    if protocol == "anthropic-messages":
        return _anthropic_root(tool, url, segments, host, lowered)
    return _openai_root(tool, url, host, lowered)


def _anthropic_root(tool: Tool, url: str, segments: list[str], host: str, lowered: list[str]) -> RootChoice:
    name = TOOL_NAMES["claude-code"]  # CC Switch's Claude app runs Claude Code too
    if segments and is_version(segments[-1]):
        root = _with_path(url, segments[:-1])
        why = (
            f"{name} speaks the Anthropic Messages API and appends /v1/messages itself, so the "
            f"route's trailing /{segments[-1]} was dropped: wrote {root}"
        )
    else:
        root = url
        why = (
            f"{name} speaks the Anthropic Messages API and appends /v1/messages; "
            f"wrote the route's root {root}"
        )
    warnings: list[str] = []
    if host in OPENAI_ONLY_HOSTS:
        warnings.append(
            f"{host} serves the OpenAI API only; {name} needs a gateway root that serves the "
            "Anthropic Messages API (/v1/messages)"
        )
    elif "openai" in lowered:
        warnings.append(
            f"the gateway root {url} has an /openai path: it looks like the OpenAI protocol's root; "
            f"{name} needs the gateway's Anthropic Messages root (often the same path with /anthropic)"
        )
    return RootChoice(root, root + ENDPOINTS["anthropic-messages"], why, warnings)


def _openai_root(tool: Tool, url: str, host: str, lowered: list[str]) -> RootChoice:
    name = TOOL_NAMES[tool]
    why = (
        f"{name} speaks the OpenAI Responses API and appends /responses to the same root the "
        f"benchmark's SDK appends /chat/completions to: wrote the route's root {url} unchanged"
    )
    warnings = [
        f"the benchmark called {url}/chat/completions; {name} calls {url}/responses "
        '(wire_api = "responses", the only value current Codex accepts): the gateway must serve both'
    ]
    if host in ANTHROPIC_HOSTS:
        warnings.append(
            f"{host} serves the Anthropic Messages API; it has no OpenAI /responses endpoint for {name}"
        )
    elif "anthropic" in lowered:
        warnings.append(
            f"the gateway root {url} has an /anthropic path: it looks like the Anthropic protocol's "
            f"root; {name} needs the gateway's OpenAI root (often the same path with /openai/v1)"
        )
    if not any(is_version(s) for s in lowered):
        warnings.append(f"the root {url} has no version segment; most OpenAI-compatible gateways want /v1")
    return RootChoice(url, url + ENDPOINTS["openai-responses"], why, warnings)


__all__ = [
    "ENDPOINTS",
    "TOOLS",
    "TOOL_NAMES",
    "TOOL_PROTOCOL",
    "Protocol",
    "RootChoice",
    "Tool",
    "doubled_version",
    "is_version",
    "path_segments",
    "tool_root",
]
