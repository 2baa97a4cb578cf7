"""Where a wrapped harness wrote its log: named with `--log`, or found from its own command line.

Inspect writes to `--log-dir` (else `INSPECT_LOG_DIR`, else `./logs`): the newest `.eval` or `.json`
there written since the run started. promptfoo writes where `-o`/`--output` says (its `.json`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

INSPECT = "inspect-ai"
PROMPTFOO = "promptfoo"


@dataclass(frozen=True)
class HarnessLog:
    """A harness's log file and which harness wrote it (`inspect-ai`, `promptfoo` or `other`)."""

    kind: str
    path: Path
    others: int = 0
    """Further new logs in the same place (a run of several tasks); only the newest is joined."""


def harness_kind(command: list[str]) -> str | None:
    """The harness a command runs, from its words (`inspect eval`, `promptfoo eval`)."""
    names = [Path(w).name for w in command]
    for i, name in enumerate(names[:-1]):
        if name == "inspect" and names[i + 1] in ("eval", "eval-set", "eval-retry"):
            return INSPECT
        if name == "promptfoo" and names[i + 1] == "eval":
            return PROMPTFOO
    if "inspect_ai" in command and "eval" in command:  # python -m inspect_ai eval
        return INSPECT
    return None


def flag_value(command: list[str], *flags: str) -> str | None:
    """The last value given to any of the flags (`--flag V` or `--flag=V`)."""
    found = None
    for i, word in enumerate(command):
        for flag in flags:
            if word == flag and i + 1 < len(command):
                found = command[i + 1]
            elif word.startswith(flag + "="):
                found = word.split("=", 1)[1]
    return found


def find_harness_log(
    command: list[str], named: Path | None, started: float, cwd: Path | None = None
) -> HarnessLog | None:
    """The log to join: the one named, else the harness's newest since `started`; None when none."""
    kind = harness_kind(command)
    base = cwd or Path.cwd()
    if named is not None:
        return HarnessLog(kind or "other", named if named.is_absolute() else base / named)
    if kind == INSPECT:
        folder = flag_value(command, "--log-dir") or os.environ.get("INSPECT_LOG_DIR") or "logs"
        return _newest(INSPECT, base / folder, started)
    if kind == PROMPTFOO:
        outputs = [w for w in _all_values(command, "-o", "--output") if w.endswith(".json")]
        if outputs:
            path = base / outputs[-1]
            return HarnessLog(PROMPTFOO, path) if path.is_file() else None
    return None


def _all_values(command: list[str], *flags: str) -> list[str]:
    out = []
    for i, word in enumerate(command):
        if word in flags and i + 1 < len(command):
            out.append(command[i + 1])
        out += [word.split("=", 1)[1] for f in flags if word.startswith(f + "=")]
    return out


def _newest(kind: str, folder: Path, started: float) -> HarnessLog | None:
    if not folder.is_dir():
        return None
    fresh = [
        p
        for p in folder.iterdir()
        if p.suffix in (".eval", ".json") and p.is_file() and p.name != "logs.json"
        if p.stat().st_mtime >= started - 1
    ]
    if not fresh:
        return None
    fresh.sort(key=lambda p: p.stat().st_mtime)
    return HarnessLog(kind, fresh[-1], others=len(fresh) - 1)
