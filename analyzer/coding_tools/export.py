"""Render one pinned route as settings for Claude Code, Codex or CC Switch; never the key.

Formats, as checked against each tool's own documentation or source (November 2026):

- Claude Code, `~/.claude/settings.json`: an `env` object whose variables Claude Code sets for its
  session; `ANTHROPIC_BASE_URL`, `ANTHROPIC_AUTH_TOKEN` (sent as `Authorization: Bearer`) and
  `ANTHROPIC_MODEL` (code.claude.com/docs/en/settings and /env-vars; the env block for a gateway as
  in ngrok.com/docs/ai-gateway/agents/claude-code). A value in settings.json wins over the same
  variable exported in the shell (dev.to/aihubmix, "Claude Code settings.json for an LLM
  Gateway"), so a placeholder left there hides a key exported in the shell.
- Codex, `~/.codex/config.toml`: top-level `model` and `model_provider`, and a
  `[model_providers.<id>]` table with `name`, `base_url`, `env_key` (the variable holding the key)
  and `wire_api` (developers.openai.com/codex/config-sample; openai/codex docs/config.md,
  "model_providers"). The id must not be the built-in `openai`, whose table Codex does not let a
  config override (github.com/openai/codex/issues/11698).
- CC Switch: its provider record (farion1231/cc-switch src-tauri/src/provider.rs: `name`,
  `settingsConfig`, `category`, `notes`; for its Claude app `settingsConfig` is the settings.json
  `env` shape), with the flat fields its provider import takes (src-tauri/src/deeplink/mod.rs:
  app, name, endpoint, apiKey, model) as `provider`, `base_url`, `api_key`, `model`.

The key itself is never rendered: Claude Code and CC Switch get a placeholder and the instruction
to set it, Codex gets the name of the variable to read it from.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from analyzer.coding_tools.doctor_checks import is_variable_name
from analyzer.coding_tools.protocol import TOOL_NAMES, RootChoice, Tool, tool_root
from analyzer.coding_tools.toml_text import render_document
from analyzer.coding_tools.url_checks import lint_errors
from analyzer.errors import RouteError
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import has_redaction, redact_url
from analyzer.safety.shell_words import command_words, shell_line

KEY_PLACEHOLDER = "REPLACE_WITH_YOUR_KEY"
"""What stands where a key would go; the doctor reports it until it is replaced."""
PROVIDER_ID = "rerunlens"
"""The Codex provider id and CC Switch provider name prefix."""
Format = Literal["json", "toml"]

DEFAULT_PATHS: dict[Tool, str] = {
    "claude-code": "~/.claude/settings.json",
    "codex": "~/.codex/config.toml",
    "cc-switch": "rerunlens-cc-switch-provider.json",
}
"""Where each tool reads its settings (CC Switch imports a provider from any file)."""


@dataclass(frozen=True)
class ToolExport:
    """One tool's settings for a route: the data, its text, the root written and what to do next."""

    tool: Tool
    """`claude-code`, `codex` or `cc-switch`."""
    format: Format
    """`json` or `toml`."""
    data: dict[str, Any]
    """The settings as data (what `--out` merges into a file)."""
    text: str
    """The settings as the file's text."""
    root: RootChoice
    """The base URL written, the URL the tool will call, and why."""
    placeholder_keys: list[tuple[str, ...]] = field(default_factory=list)
    """Where the key placeholder sits (a real key already there is kept when merging)."""
    notes: list[str] = field(default_factory=list)
    """The root written and why, and how to set the key."""
    warnings: list[str] = field(default_factory=list)
    """What looks wrong: the other protocol's root, one key shared with the benchmark."""

    @property
    def default_path(self) -> str:
        """Where the tool reads these settings."""
        return DEFAULT_PATHS[self.tool]


def checked_base_url(profile: RouteProfile) -> str:
    """The route's base URL, refused in one line when a coding tool cannot be pointed at it.

    Raises:
        RouteError: no base URL (the simulator), a redacted one, credentials in it, or a lint error
            (tracking parameters, a site's home page, a fragment, an endpoint path ...).
    """
    url = profile.base_url
    if not url:
        raise RouteError("the route has no base URL (the built-in simulator serves it); give --base-url")
    if has_redaction(url):
        raise RouteError(
            "the route's base URL had a secret redacted from it; give the real one with --base-url"
        )
    parts = urlsplit(url.strip())
    if parts.username or parts.password:
        raise RouteError("the route's base URL carries credentials; put the key in a variable instead")
    errors = lint_errors(url)
    if errors:
        first = errors[0]
        message = first.message.replace(url.strip(), redact_url(url)) if parts.query else first.message
        codes = ", ".join(f.code for f in errors)
        raise RouteError(f"the route's base URL fails the lint ({codes}): {message} Fix: {first.fix}")
    return url.strip().rstrip("/")


def export_route(profile: RouteProfile, tool: Tool, benchmark_key_env: str | None = None) -> ToolExport:
    """The settings `tool` needs to call the route's gateway with the route's model.

    Args:
        profile: The pinned route (its base URL, key variable and model are used).
        tool: `claude-code`, `codex` or `cc-switch`.
        benchmark_key_env: The variable the benchmark reads its key from; when Codex would read
            the same one, a warning says the usage statistics would mix (Claude Code and CC Switch
            get the placeholder, and a note to use a key of their own).

    Raises:
        RouteError: the base URL is refused (see `checked_base_url`), the key variable is not a
            variable name (a key pasted into --key-env must not reach config.toml), or the tool is unknown.
    """
    if tool not in TOOL_NAMES:
        raise RouteError(f"unknown coding tool '{tool}'; choose one of {', '.join(TOOL_NAMES)}")
    if not is_variable_name(profile.key_env):
        raise RouteError("the key variable must be a variable name such as CODEX_KEY, not a key (--key-env)")
    root = tool_root(tool, checked_base_url(profile))
    render = {"claude-code": _claude, "codex": _codex, "cc-switch": _cc_switch}[tool]
    export = render(profile, root)
    if tool == "codex" and benchmark_key_env and benchmark_key_env == profile.key_env:
        export.warnings.append(
            f"the key variable {profile.key_env} is the benchmark's: one key for both loses the "
            "boundary of their usage statistics; give Codex a key of its own (export with --key-env NAME)"
        )
    elif tool != "codex":
        bench = f" (in {benchmark_key_env})" if benchmark_key_env else ""
        export.notes.append(
            f"Use a key of the coding tool's own, not the benchmark's{bench}: one key for both "
            "loses the boundary of their usage statistics."
        )
    return export


def _claude_env(profile: RouteProfile, root: RootChoice) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": root.root,
        "ANTHROPIC_AUTH_TOKEN": KEY_PLACEHOLDER,
        "ANTHROPIC_MODEL": profile.model,
    }


def _claude(profile: RouteProfile, root: RootChoice) -> ToolExport:
    data = {"env": _claude_env(profile, root)}
    note = (
        f"env.ANTHROPIC_AUTH_TOKEN holds the placeholder {KEY_PLACEHOLDER}: replace it with the "
        "gateway key, or delete that entry and export ANTHROPIC_AUTH_TOKEN in your shell (a value "
        "in settings.json wins over the shell's). RerunLens never writes a key."
    )
    return ToolExport(
        "claude-code",
        "json",
        data,
        json.dumps(data, indent=2) + "\n",
        root,
        [("env", "ANTHROPIC_AUTH_TOKEN")],
        [root.why, note],
        list(root.warnings),
    )


def _codex(profile: RouteProfile, root: RootChoice) -> ToolExport:
    host = urlsplit(root.root).hostname or "gateway"
    top = {"model": profile.model, "model_provider": PROVIDER_ID}
    table = {
        "name": f"RerunLens pinned route ({host})",
        "base_url": root.root,
        "env_key": profile.key_env,
        "wire_api": "responses",
    }
    data: dict[str, Any] = {**top, "model_providers": {PROVIDER_ID: table}}
    note = (
        f"Codex reads the key from the environment variable {profile.key_env} (env_key): export it "
        "in the shell that starts codex; config.toml never holds the key."
    )
    text = render_document(top, ("model_providers", PROVIDER_ID), table)
    return ToolExport("codex", "toml", data, text, root, [], [root.why, note], list(root.warnings))


def _cc_switch(profile: RouteProfile, root: RootChoice) -> ToolExport:
    host = urlsplit(root.root).hostname or "gateway"
    data = {
        "name": f"RerunLens pinned route ({host})",
        "provider": "claude",
        "base_url": root.root,
        "api_key": KEY_PLACEHOLDER,
        "model": profile.model,
        "settingsConfig": {"env": _claude_env(profile, root)},
        "category": "custom",
        "notes": "Exported by RerunLens from a pinned route; set the key in CC Switch, not in this file.",
    }
    note = (
        f"api_key and settingsConfig.env.ANTHROPIC_AUTH_TOKEN hold the placeholder {KEY_PLACEHOLDER}: "
        "type the gateway key into CC Switch's API key field after importing. RerunLens never writes a key."
    )
    return ToolExport(
        "cc-switch",
        "json",
        data,
        json.dumps(data, indent=2) + "\n",
        root,
        [("api_key",), ("settingsConfig", "env", "ANTHROPIC_AUTH_TOKEN")],
        [root.why + " (for CC Switch's Claude app)", note],
        list(root.warnings),
    )


def export_command(profile: RouteProfile, tool: Tool) -> str:
    """The `rerunlens route export` command that merges this export into the tool's own file."""
    options = [("--for", tool), ("--base-url", checked_base_url(profile))]
    options += [("--model", profile.model), ("--key-env", profile.key_env)]
    words = shell_line(command_words(["rerunlens", "route", "export"], options))
    return f"{words} --out {_home_path(DEFAULT_PATHS[tool])}"


def _home_path(path: str) -> str:
    """A constant `~/...` path for a shell: the tilde left to expand, the rest quoted."""
    if path.startswith("~/"):
        return "~/" + shlex.quote(path[2:])
    return shlex.quote(path)


def expand_path(path: str | Path) -> Path:
    """A path with `~` expanded."""
    return Path(path).expanduser()


__all__ = [
    "DEFAULT_PATHS",
    "KEY_PLACEHOLDER",
    "PROVIDER_ID",
    "ToolExport",
    "checked_base_url",
    "expand_path",
    "export_command",
    "export_route",
]
