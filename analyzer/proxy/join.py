"""Each result of a harness's log joined to the proxy attempts it made.

A harness call (one model call a result made, from the harness's own log) is matched to proxy
attempts first by the request id the client sent and recorded (Inspect's `x-irid`): exact, however
many calls ran at once. Otherwise by the hash of the request messages within the call's time window:
the journal's attempts are grouped into calls (a failed attempt and the retries after it), and each
harness call takes the one call with its hash that ended nearest its own end, so two identical
prompts in flight at once each get one. What is left on either side is counted.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from analyzer.importers.common import parse_time, plural
from analyzer.importers.proxy_journal import as_attempt, call_route, checked_attempts, group_calls
from analyzer.log.model import Attempt, Result, Route, RunLog

SLACK = timedelta(seconds=2)
"""How far a proxy call may start before (or end after) the harness's window for it (clock skew)."""


@dataclass(frozen=True)
class HarnessCall:
    """One model call in a harness's log."""

    result: tuple[str, int] | str
    """(task id, round) of the result that made it, or its place in the source (`source_ref`)."""
    messages_hash: str | None
    client_id: str | None = None
    start: datetime | None = None
    end: datetime | None = None


@dataclass
class JoinReport:
    """What the join found, one line each."""

    harness: str
    results: int = 0
    joined_results: int = 0
    calls: int = 0
    """Proxy calls (an attempt and its retries) in the journal."""
    unmatched_calls: int = 0
    exact: int = 0
    """Harness calls matched by their recorded request id."""
    by_hash: int = 0
    unmatched_results: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Values of the journal left out as not valid (one line, or none)."""

    def lines(self) -> list[str]:
        """The join in three lines: joined, unmatched calls, unmatched results."""
        unmatched = ", ".join(self.unmatched_results[:5]) + (
            " ..." if len(self.unmatched_results) > 5 else ""
        )
        return [
            f"joined {self.joined_results} of {plural(self.results, 'result')} of the {self.harness} log to "
            f"their proxy attempts ({plural(self.exact, 'call')} by request id, {self.by_hash} by content "
            "hash and time)",
            f"unmatched calls: {self.unmatched_calls} of {self.calls} proxy calls belong to no result",
            f"unmatched results: {len(self.unmatched_results)}" + (f" ({unmatched})" if unmatched else ""),
            *self.notes,
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "results": self.results,
            "joined_results": self.joined_results,
            "calls": self.calls,
            "unmatched_calls": self.unmatched_calls,
            "matched_by_request_id": self.exact,
            "matched_by_hash": self.by_hash,
            "unmatched_results": self.unmatched_results,
        }


def match(calls: list[HarnessCall], attempts: list[dict[str, Any]], report: JoinReport) -> dict[int, list]:
    """Attempts per harness call (by index); counts what is left on the report."""
    by_id: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for a in attempts:
        if a.get("client_request_id"):
            by_id[a["client_request_id"]].append(a)
    out: dict[int, list[dict[str, Any]]] = {}
    for i, call in enumerate(calls):
        if call.client_id and call.client_id in by_id:
            out[i] = by_id.pop(call.client_id)
            report.exact += 1
    taken = {id(a) for found in out.values() for a in found}
    pool = group_calls([a for a in attempts if id(a) not in taken])
    report.calls = len(pool) + len({a.get("client_request_id") for a in attempts if id(a) in taken})
    free: dict[Any, list[list[dict[str, Any]]]] = defaultdict(list)
    for group in pool:
        free[group[0].get("messages_hash")].append(group)
    order = sorted((i for i in range(len(calls)) if i not in out), key=lambda i: _sort_time(calls[i]))
    for i in order:
        nearest = _nearest(calls[i], free.get(calls[i].messages_hash) or [])
        if nearest is not None:
            free[calls[i].messages_hash].remove(nearest)
            out[i] = nearest
            report.by_hash += 1
    report.unmatched_calls = sum(len(groups) for groups in free.values())
    return out


def _sort_time(call: HarnessCall) -> float:
    when = call.end or call.start
    return when.timestamp() if when else float("inf")


def _nearest(call: HarnessCall, groups: list[list[dict[str, Any]]]) -> list[dict[str, Any]] | None:
    """The proxy call inside the harness call's window whose end is nearest the harness call's end."""
    best, best_gap = None, None
    for group in groups:
        start, end = parse_time(group[0].get("started_at")), parse_time(group[-1].get("ended_at"))
        if call.start and start and start < call.start - SLACK:
            continue
        if call.end and end and end > call.end + SLACK:
            continue
        gap = abs((call.end - end).total_seconds()) if call.end and end else 0.0
        if best_gap is None or gap < best_gap:
            best, best_gap = group, gap
    return best


def join_log(
    log: RunLog, calls: list[HarnessCall], records: list[dict[str, Any]], report: JoinReport
) -> RunLog:
    """The harness's log with each result's attempts, route and served model from the proxy."""
    attempts, report.notes = checked_attempts(records)
    attempts.sort(key=lambda a: a.get("started_at") or "")
    start = next((r for r in records if r.get("kind") == "start"), {})
    found = match(calls, attempts, report)
    per_result: dict[tuple[str, int] | str, list[dict[str, Any]]] = defaultdict(list)
    for i, group in sorted(found.items(), key=lambda kv: kv[1][0].get("started_at") or ""):
        per_result[calls[i].result].extend(group)
    made_calls = {c.result for c in calls}
    runs = []
    for results in log.runs:
        row = []
        for result in results:
            key = (str(result.task_id), result.round or 0)
            ref = (result.model_extra or {}).get("source_ref")
            report.results += 1
            mine = per_result.get(key) or (per_result.get(ref) if ref else None)
            if mine:
                report.joined_results += 1
                row.append(_joined(result, mine, start.get("route") or {}))
            else:
                if key in made_calls or ref in made_calls or not calls:
                    report.unmatched_results.append(f"{key[0]} round {key[1]}")
                row.append(result)
        runs.append(row)
    route = Route.model_validate(start.get("route") or {}) if start.get("route") else log.route
    return log.model_copy(update={"runs": runs, "route": route})


def _joined(result: Result, attempts: list[dict[str, Any]], pinned: dict[str, Any]) -> Result:
    last_ok = next((a for a in reversed(attempts) if a.get("outcome") == "ok"), attempts[-1])
    route = {**(result.route.model_dump(exclude_none=True) if result.route else {}), **pinned}
    route |= call_route(last_ok)
    return result.model_copy(
        update={
            "attempts": [Attempt.model_validate(as_attempt(a, i)) for i, a in enumerate(attempts)],
            "served_model": last_ok.get("served_model") or result.served_model,
            "system_fingerprint": last_ok.get("system_fingerprint") or result.system_fingerprint,
            "route": Route.model_validate(route),
        }
    )
