"""`route doctor`: read the coding tools' settings (and the environment) and report each classic mistake.

With no file named it reads the default locations, `~/.claude/settings.json` and
`$CODEX_HOME/config.toml` (default `~/.codex/config.toml`); a default file that is missing is
listed as not found, a file named on purpose that is missing is refused. The environment is read
only when asked (`--env`). Keys are only ever shown as fingerprints.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from analyzer.coding_tools.doctor_checks import (
    Collector,
    DoctorFinding,
    anthropic_strings,
    check_claude_env,
    check_secret,
    check_url,
    is_variable_name,
)
from analyzer.coding_tools.merge import strict_json
from analyzer.errors import RouteError
from analyzer.routes.profile import DEFAULT_KEY_ENV
from analyzer.safety.keys import key_fingerprint
from analyzer.safety.settings_file import read_settings_text

BUILTIN_CODEX_PROVIDERS = {"openai", "oss", "ollama", "lmstudio"}
"""Providers Codex defines itself (no `[model_providers.<id>]` table needed)."""


@dataclass(frozen=True)
class DoctorInputs:
    """What to examine. With no file given, the default locations are read."""

    claude_settings: Path | None = None
    """Claude Code's settings.json."""
    codex_config: Path | None = None
    """Codex's config.toml."""
    cc_switch: Path | None = None
    """A CC Switch provider JSON (one provider, or CC Switch's config with its providers)."""
    env: Mapping[str, str] | None = None
    """The environment to check; None leaves it alone."""
    benchmark_key_env: str | None = DEFAULT_KEY_ENV
    """The variable the benchmark reads its key from."""
    benchmark_fingerprints: tuple[str, ...] = ()
    """Fingerprints of the benchmark's keys (e.g. from a run log)."""
    home: Path | None = None
    """Home folder for the default locations (default: the user's)."""


@dataclass(frozen=True)
class DoctorReport:
    """The findings, and what was read."""

    findings: list[DoctorFinding] = field(default_factory=list)
    """Every mistake found, file by file."""
    checked: list[str] = field(default_factory=list)
    """One line per source: `~/.claude/settings.json: read`, `...: not found`, `environment: read`."""

    @property
    def ok(self) -> bool:
        """True when nothing was found."""
        return not self.findings

    def lines(self) -> list[str]:
        """The report as text lines: what was read, then each finding, then the verdict."""
        out = [f"checked {c}" for c in self.checked]
        out += [f.line() for f in self.findings]
        n = len(self.findings)
        out.append("no mistake found" if n == 0 else f"{n} mistake{'s' * (n != 1)} found")
        return out


def default_paths(home: Path | None = None, env: Mapping[str, str] | None = None) -> tuple[Path, Path]:
    """Claude Code's settings.json and Codex's config.toml where the tools look for them."""
    base = home or Path.home()
    codex_home = (env if env is not None else os.environ).get("CODEX_HOME")
    codex = Path(codex_home) / "config.toml" if codex_home else base / ".codex" / "config.toml"
    return base / ".claude" / "settings.json", codex


def _load(path: Path, c: Collector, kind: str) -> Any:
    """The parsed file, or None with an `unreadable` finding."""
    try:
        text = read_settings_text(path, "settings", RouteError)
        return strict_json(text, path) if kind == "json" else tomllib.loads(text)
    except RouteError as err:
        reason = err.message.removeprefix(f"{path}: ").removesuffix("; nothing written")
        c.add("unreadable", "error", "-", f"cannot be read ({reason}).", "Check the path and the file.")
    except RecursionError:
        c.add("unreadable", "error", "-", "is nested too deeply to be read.", "Fix the file.")
    except tomllib.TOMLDecodeError as err:
        c.add(
            "unreadable",
            "error",
            "-",
            f"is not valid {kind.upper()} ({err}).",
            "Fix the syntax; the tool cannot read it either.",
        )
    return None


def check_claude_settings(path: Path, c: Collector) -> None:
    """Claude Code's settings.json."""
    data = _load(path, c, "json")
    if data is None:
        return
    if not isinstance(data, dict):
        c.add("bad_shape", "error", "-", "is not a JSON object.", "Write the settings as {...}.")
        return
    for name in sorted(k for k in data if str(k).startswith(("ANTHROPIC_", "OPENAI_"))):
        c.add(
            "misplaced_var",
            "error",
            name,
            "sits at the top level; Claude Code reads variables only inside env.",
            f'Move it into "env": {{"{name}": ...}}.',
        )
    check_claude_env(c, data.get("env"))


def _check_provider(
    c: Collector, pid: str, table: Any, env: Mapping[str, str] | None, bench_env: str | None, active: bool
) -> None:
    key = f"model_providers.{pid}"
    if not isinstance(table, dict):
        c.add("bad_shape", "error", key, "is not a table.", f"Write it as [{key}].")
        return
    if "base_url" in table:
        check_url(c, f"{key}.base_url", table["base_url"], "openai")
    if table.get("wire_api") == "chat":
        c.add(
            "wire_api",
            "error",
            f"{key}.wire_api",
            'is "chat", which current Codex refuses.',
            'Use "responses" (the gateway must serve /responses).',
        )
    check_secret(c, f"{key}.experimental_bearer_token", table.get("experimental_bearer_token"))
    env_key = table.get("env_key")
    if not isinstance(env_key, str) or not env_key:
        return
    if not is_variable_name(env_key):
        c.add(
            "env_key_holds_key",
            "error",
            f"{key}.env_key",
            f"holds a value, not a variable name ({key_fingerprint(env_key)}).",
            'Name the variable that holds the key (env_key = "MY_GATEWAY_KEY") and export the key there.',
        )
        return
    if env_key == bench_env:
        c.add(
            "shared_key",
            "error",
            f"{key}.env_key",
            f"is {env_key}, the variable the benchmark reads: Codex and the benchmark share one key "
            "and its usage statistics.",
            "Give Codex a key of its own in another variable and name that one.",
        )
    elif env is not None and not env.get(env_key) and active:
        c.add(
            "unset_key",
            "error",
            f"{key}.env_key",
            f"names {env_key}, which is not set: Codex cannot start.",
            f"Export {env_key} with the gateway key in the shell that starts codex.",
        )
    elif env is not None:
        check_secret(c, f"${env_key} (its env_key)", env.get(env_key))


def check_codex_config(
    path: Path, c: Collector, env: Mapping[str, str] | None, bench_env: str | None
) -> None:
    """Codex's config.toml."""
    data = _load(path, c, "toml")
    if data is None:
        return
    providers = data.get("model_providers") or {}
    active = data.get("model_provider")
    if isinstance(active, str) and active not in BUILTIN_CODEX_PROVIDERS and active not in providers:
        c.add(
            "missing_provider",
            "error",
            "model_provider",
            f"names '{active}', which has no table.",
            f"Add [model_providers.{active}] or name an existing provider.",
        )
    if "openai_base_url" in data:
        check_url(c, "openai_base_url", data["openai_base_url"], "openai")
    if isinstance(providers, dict):
        for pid, table in providers.items():
            _check_provider(c, str(pid), table, env, bench_env, active=pid == active)
    for where in anthropic_strings(data):
        c.add(
            "wrong_tool_vars",
            "error",
            where,
            "names an ANTHROPIC_* variable; Codex never reads them.",
            "Use an OpenAI-style variable (env_key naming the gateway key) and the OpenAI root.",
        )


def _cc_providers(data: Any) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(data, dict):
        return []
    if any(k in data for k in ("settingsConfig", "base_url", "api_key")):
        return [("", data)]
    found: list[tuple[str, dict[str, Any]]] = []
    for app, section in data.items():  # {"providers": {...}} or {"claude": {"providers": {...}}, ...}
        nested = section.get("providers") if isinstance(section, dict) else None
        providers = section if app == "providers" else nested
        if isinstance(providers, dict):
            found += [(f"{app}.{pid}.", p) for pid, p in providers.items() if isinstance(p, dict)]
    return found


def check_cc_switch(path: Path, c: Collector) -> None:
    """A CC Switch provider (ours or its own record), or its config listing providers."""
    data = _load(path, c, "json")
    for prefix, provider in _cc_providers(data):
        if "base_url" in provider:
            check_url(c, f"{prefix}base_url", provider["base_url"], "anthropic")
        check_secret(c, f"{prefix}api_key", provider.get("api_key"))
        settings = provider.get("settingsConfig")
        if isinstance(settings, dict):
            check_claude_env(c, settings.get("env"), f"{prefix}settingsConfig.env")
            auth = settings.get("auth")
            if isinstance(auth, dict):
                check_secret(c, f"{prefix}settingsConfig.auth.OPENAI_API_KEY", auth.get("OPENAI_API_KEY"))


def check_environment(env: Mapping[str, str], c: Collector, bench_env: str | None) -> None:
    """Base URLs and keys exported in the shell."""
    if env.get("OPENAI_BASE_URL"):
        check_url(c, "$OPENAI_BASE_URL", env["OPENAI_BASE_URL"], "openai")
    if env.get("ANTHROPIC_BASE_URL"):
        check_url(c, "$ANTHROPIC_BASE_URL", env["ANTHROPIC_BASE_URL"], "anthropic")
    for name in ("ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_API_KEY", bench_env or DEFAULT_KEY_ENV):
        check_secret(c, f"${name}", env.get(name), shared=name != bench_env)


def run_doctor(inputs: DoctorInputs) -> DoctorReport:
    """Examine the named files (or the default locations) and, when given, the environment.

    Raises:
        RouteError: a file named on purpose does not exist.
    """
    named = [inputs.claude_settings, inputs.codex_config, inputs.cc_switch]
    for path in named:
        if path is not None and not path.exists():
            raise RouteError(f"{path}: not found")
    claude, codex, cc = named
    if not any(named):
        claude, codex = default_paths(inputs.home, inputs.env)
    fps = set(inputs.benchmark_fingerprints)
    bench = inputs.benchmark_key_env
    if inputs.env is not None and bench and inputs.env.get(bench):
        fps.add(key_fingerprint(inputs.env[bench]) or "")
    report = DoctorReport()
    codex_check = partial(check_codex_config, env=inputs.env, bench_env=bench)
    jobs: list[tuple[Path | None, Callable[[Path, Collector], None]]] = [
        (claude, check_claude_settings),
        (codex, codex_check),
        (cc, check_cc_switch),
    ]
    for path, check in jobs:
        if path is None:
            continue
        if not path.exists():
            report.checked.append(f"{path}: not found")
            continue
        c = Collector(str(path), frozenset(fps))
        check(path, c)
        report.checked.append(f"{path}: read")
        report.findings.extend(c.findings)
    if inputs.env is not None:
        c = Collector("environment", frozenset(fps))
        check_environment(inputs.env, c, bench)
        report.checked.append("environment: read")
        report.findings.extend(c.findings)
    return report


__all__ = ["DoctorFinding", "DoctorInputs", "DoctorReport", "default_paths", "run_doctor"]
