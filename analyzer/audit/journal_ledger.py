"""The token ledger of one route a harness ran through the recording proxy, from its journal (or
the journal a wrapped run's log names).

The proxy counted every chat attempt's prompt and visible completion tokens itself, offline, after
the answer had gone out (`counted` in each attempt record). So no reference route is needed: each
answered call's reported tokens are read against the proxy's own counts, with the same ratio of sums,
95 % interval over prompts (a prompt is a distinct request: its messages' hash) and thresholds
as the two-log ledger. Reported completion tokens include hidden reasoning: where the usage details
give reasoning tokens they are taken out before the comparison and shown apart, as are cached prompt
tokens (part of the prompt, at another price). Billed attempts are every attempt that reached the
upstream; logical calls are the attempts grouped into calls (a retry joins its call). A call whose
prompt the proxy could not count (a shape the cookbook's rules do not cover, an Anthropic request, a
body over the bound) is left out of the prompt ratio, counted, with the reasons the journal gives.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

import numpy as np

from analyzer.audit.ledger import (
    Calls,
    Ratio,
    combined_verdict,
    reported_total,
    sum_ratio,
)
from analyzer.errors import LogError
from analyzer.importers import load_any
from analyzer.importers.common import Source
from analyzer.importers.proxy_journal import checked_attempts, group_calls, is_journal, parse_lines
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.log.model import RunLog
from analyzer.safety.bounded_read import read_file
from analyzer.safety.terminal_text import visible


@dataclass(frozen=True)
class JournalLedger:
    prompt: Ratio
    completion: Ratio
    """Reported completion tokens less the reasoning tokens the usage details give, against counted."""
    calls: Calls
    cached: int | None
    """Cached prompt tokens reported over the answered calls; None when no usage gives them."""
    reasoning: int | None
    """Reasoning tokens reported over the answered calls; None when no usage gives them."""
    not_counted: int
    """Answered calls that reported prompt tokens the proxy did not count (left out of the prompt
    ratio)."""
    encoding: str | None
    not_counted_why: tuple[tuple[str, int], ...] = ()
    """Why, as the journal says it, with how many calls each; the most frequent first."""

    @property
    def verdict(self) -> str:
        return combined_verdict(self.prompt, self.completion)


def is_journal_file(path: str | os.PathLike[str]) -> bool:
    """Whether a regular file opens as a proxy journal (its first bytes only; a pipe is never read)."""
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            return is_journal(f.read(256))
    except OSError:
        return False


def wrapped_journal(log_path: str | os.PathLike[str]) -> Path:
    """The proxy journal a wrapped run's log names (`wrapped.journal`, beside the log when relative
    and not found from here): only read, and only as a journal.

    Raises:
        LogError: the log is not a wrapped run's, or its journal is gone.
    """
    journal = _named_journal(load_any(log_path).log, log_path)
    if journal is None:
        raise LogError(
            f"{log_path}: not a wrapped run's log (no `wrapped.journal`); give two logs or one proxy journal"
        )
    return journal


def journal_of(path: str | os.PathLike[str], log: RunLog) -> Path | None:
    """The proxy journal behind an opened log: the file itself when it is one, the journal a wrapped
    run's log names, else None (a log with no proxy journal has no ledger of its own).

    Raises:
        LogError: a wrapped run's log whose journal is gone.
    """
    if is_journal_file(path):
        return Path(path)
    return _named_journal(log, path)


def _named_journal(log: RunLog, log_path: str | os.PathLike[str]) -> Path | None:
    """`wrapped.journal` of a log, looked for by its file name beside the log only.

    A log is data: the path it names never chooses which file on this machine is read (a shared log
    naming `/etc/...` or `../../secret` reads nothing but a journal of that name in the log's folder).
    """
    wrapped = (log.model_extra or {}).get("wrapped")
    named = wrapped.get("journal") if isinstance(wrapped, dict) else None
    if not isinstance(named, str) or not named:
        return None
    name = PurePath(named.replace("\\", "/")).name
    journal = Path(log_path).parent / name
    if not name or name in (".", "..") or not journal.is_file():
        raise LogError(
            f"{log_path}: the proxy journal it names is not beside it ({visible(named)}): "
            "give the journal itself"
        )
    return journal


def journal_ledger(path: str | os.PathLike[str]) -> JournalLedger:
    """Reported against counted tokens for the route of one proxy journal.

    Raises:
        LogError: the file cannot be read or is not a proxy journal.
    """
    data = read_file(path, MAX_LOG_BYTES, "proxy journal", LogError)
    if not is_journal(data):
        raise LogError(f"{path}: not a RerunLens proxy journal")
    records = parse_lines(data.decode("utf-8", "replace"), Source(str(path)))["records"]
    attempts, _ = checked_attempts(records)
    calls = group_calls(attempts)
    answered = [call[-1] for call in calls if call[-1].get("outcome") == "ok"]
    cols = _columns(answered)
    tasks = np.unique(
        np.asarray([str(a.get("messages_hash")) for a in answered], dtype=object), return_inverse=True
    )[1]
    billed = sum(1 for a in attempts if a.get("status") is not None)
    encodings = {a["counted"]["encoding"] for a in answered if "encoding" in a.get("counted", {})}
    left_out = _reasons(answered)
    return JournalLedger(
        sum_ratio(cols["prompt_reported"], cols["prompt_counted"], tasks),
        sum_ratio(
            cols["completion_reported"] - np.nan_to_num(cols["reasoning"]), cols["completion_counted"], tasks
        ),
        Calls(len(calls), billed, len(calls)),
        reported_total(cols["cached"]),
        reported_total(cols["reasoning"]),
        sum(left_out.values()),
        ", ".join(sorted(encodings)) or None,
        tuple(left_out.most_common()),
    )


NOT_COUNTED_PREFIX = "the prompt, not counted: "


def _reasons(answered: list[dict[str, Any]]) -> Counter[str]:
    """Why the calls that reported prompt tokens the proxy did not count have no count (the journal's
    words), with how many calls each. A call that reported none (a model list) is not left out: it
    has nothing to read against a count."""
    return Counter(
        str(a.get("not_counted") or "no reason recorded").removeprefix(NOT_COUNTED_PREFIX)
        for a in answered
        if "prompt_tokens" not in a.get("counted", {}) and a.get("usage", {}).get("prompt_tokens") is not None
    )


def _columns(answered: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per answered call: reported and counted tokens, NaN where not recorded."""

    def column(group: str, name: str) -> np.ndarray:
        values = [a.get(group, {}).get(name) for a in answered]
        return np.asarray([np.nan if v is None else float(v) for v in values], dtype=np.float64)

    return {
        "prompt_reported": column("usage", "prompt_tokens"),
        "completion_reported": column("usage", "completion_tokens"),
        "cached": column("usage", "cached_tokens"),
        "reasoning": column("usage", "reasoning_tokens"),
        "prompt_counted": column("counted", "prompt_tokens"),
        "completion_counted": column("counted", "completion_tokens"),
    }
