"""Following a wrapped run live from its proxy journal: requests, 429s, retries, tokens, per request,
and per sample once `wrap` has joined the harness's log.

Read-only: the journal's bytes are read through the bounded reader (a torn last line is left out);
nothing is locked or written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.errors import LogError
from analyzer.importers import load_any
from analyzer.importers.common import Source
from analyzer.importers.proxy_journal import checked_attempts, group_calls, parse_lines
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.safety.bounded_read import read_file

SUFFIX = ".proxy.jsonl"


@dataclass(frozen=True)
class ProxyProgress:
    """What a wrapped (or proxied) run has sent so far."""

    journal: Path
    label: str | None
    finished: bool
    """The proxy wrote its end record (it stopped)."""
    requests: int
    """HTTP attempts forwarded."""
    calls: int
    """Client calls (an attempt and the retries after it)."""
    rate_limited: int
    retries: int
    tokens: int
    per_request: pd.DataFrame
    """Per distinct request (its messages hash): calls, attempts, 429s, tokens, the last status."""
    log: Path | None
    """The joined log, once `wrap` has written it."""
    per_sample: pd.DataFrame | None
    """Per result of the joined log: attempts, 429s, retries, tokens."""


def proxy_journals(folder: str | os.PathLike[str]) -> list[Path]:
    """Proxy journals in a runs folder, newest first."""
    root = Path(folder)
    found = [p for p in root.rglob(f"*{SUFFIX}") if p.is_file()] if root.is_dir() else []
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def joined_log_for(journal: Path) -> Path:
    """`runs/NAME.proxy.jsonl` -> `runs/NAME.altk_runs.json` (what `wrap` writes beside it)."""
    return journal.with_name(journal.name.removesuffix(SUFFIX) + ".altk_runs.json")


def watch_proxy(journal: str | os.PathLike[str]) -> ProxyProgress:
    """The journal's figures now.

    Raises:
        LogError: the journal cannot be read (one line naming it).
    """
    path = Path(journal)
    data = read_file(path, MAX_LOG_BYTES, "proxy journal", LogError)
    records = parse_lines(data.decode("utf-8", "replace"), Source(str(path)))["records"]
    start: dict[str, Any] = next((r for r in records if r.get("kind") == "start"), {})
    attempts, _ = checked_attempts(records)  # a usage of `true` or 10**30 counts no tokens
    calls = group_calls(attempts)
    log = joined_log_for(path)
    return ProxyProgress(
        journal=path,
        label=start.get("label"),
        finished=any(r.get("kind") == "end" for r in records),
        requests=len(attempts),
        calls=len(calls),
        rate_limited=sum(a.get("status") == 429 for a in attempts),
        retries=len(attempts) - len(calls),
        tokens=sum(_tokens(a) for a in attempts),
        per_request=_per_request(calls),
        log=log if log.is_file() else None,
        per_sample=_per_sample(log) if log.is_file() else None,
    )


def _tokens(attempt: dict[str, Any]) -> int:
    usage: dict[str, Any] = attempt["usage"] if isinstance(attempt.get("usage"), dict) else {}
    value = usage.get("total_tokens")
    return value if isinstance(value, int) else 0


def _per_request(calls: list[list[dict[str, Any]]]) -> pd.DataFrame:
    rows: dict[str, dict[str, Any]] = {}
    for call in calls:
        key = str(call[0].get("messages_hash") or "none")[:12]
        row = rows.setdefault(
            key, {"request": key, "calls": 0, "attempts": 0, "rate_limited": 0, "tokens": 0}
        )
        row["calls"] += 1
        row["attempts"] += len(call)
        row["rate_limited"] += sum(a.get("status") == 429 for a in call)
        row["tokens"] += sum(_tokens(a) for a in call)
        row["last_status"] = call[-1].get("status")
    columns = ["request", "calls", "attempts", "rate_limited", "tokens", "last_status"]
    return pd.DataFrame(list(rows.values()), columns=columns)


def _per_sample(log_path: Path) -> pd.DataFrame:
    log = load_any(log_path).log
    rows = []
    for results in log.runs:
        for r in results:
            attempts = r.attempts or []
            rows.append(
                {
                    "task_id": str(r.task_id),
                    "round": r.round,
                    "attempts": len(attempts),
                    "rate_limited": sum(a.status_code == 429 for a in attempts),
                    "tokens": r.total_tokens,
                    "served_model": r.served_model,
                }
            )
    return pd.DataFrame(
        rows, columns=["task_id", "round", "attempts", "rate_limited", "tokens", "served_model"]
    )
