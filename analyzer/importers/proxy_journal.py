"""The recording proxy's journal (`rerunlens proxy`, `rerunlens wrap`) read as a log of attempts.

The journal is JSON lines: a `start` record (the route, fingerprints only), one `attempt` record per
HTTP attempt the proxy forwarded, and an `end` record. With no harness log beside it, each client
call becomes one result: attempts with the same request messages that follow a failed one are its
retries; the task is the request messages' hash and the round the call's order among calls with
the same messages. The answer is the response content's hash (bodies are not kept), so two calls
that got the same text cluster together.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from analyzer.errors import RerunLensError
from analyzer.importers.common import Provenance, Row, Source, make_route, parse_json, parse_time, plural
from analyzer.importers.proxy_record import attempt_record
from analyzer.log.model import Route

FORMAT = "rerunlens-proxy"
JOURNAL_MARK = "rerunlens-proxy/1"
"""The `journal` field of every record; the first line of a journal starts with it."""
_HEAD = b'{"journal": "' + JOURNAL_MARK.encode() + b'"'


def is_journal(data: bytes) -> bool:
    """Whether bytes are a proxy journal (its first line opens with the journal mark)."""
    return data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(_HEAD)


def parse_lines(text: str, source: Source) -> dict[str, Any]:
    """The journal's records as `{"journal": MARK, "records": [...]}`; a torn last line (a journal
    still being written) is left out; a bad first line is an error naming it, and any later bad line
    (an attempt with NaN, a key twice) becomes an `unreadable` record, so the rest is kept."""
    lines = text.split("\n")
    records: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if n == len(lines) and not text.endswith("\n"):
            break  # torn tail: the writer had not finished the line
        try:
            records.append(source.obj(parse_json(line, source, f"line {n}"), f"line {n}"))
        except RerunLensError as problem:
            if not records:
                raise
            records.append(
                {
                    "kind": "unreadable",
                    "line": n,
                    "why": str(problem).removeprefix(f"{source.name}: line {n}: "),
                }
            )
    return {"journal": JOURNAL_MARK, "records": records}


def looks_like(parsed: Any) -> bool:
    """A parsed journal (see `parse_lines`)."""
    return isinstance(parsed, dict) and parsed.get("journal") == JOURNAL_MARK and "records" in parsed


def read(parsed: dict[str, Any], source: Source) -> tuple[list[Row], Provenance]:
    """One result per client call, its attempts in order."""
    records = parsed["records"]
    start: dict[str, Any] = next((r for r in records if r.get("kind") == "start"), {})
    attempts, notes = checked_attempts(records)
    calls = group_calls(attempts)
    order: dict[str, int] = defaultdict(int)
    rows = []
    for call in calls:
        task = f"msg-{(call[0].get('messages_hash') or 'none')[:12]}"
        order[task] += 1
        rows.append(Row(task, order[task], call_fields(call, source), f"attempt {call[0].get('n')}"))
    route = _route(start.get("route"), source)
    prov = Provenance(
        format=FORMAT,
        version=JOURNAL_MARK,
        importer=__name__,
        label=str(start.get("label") or "proxy journal"),
        created_at=parse_time(start.get("started_at")),
        route=route,
        warnings=[
            f"a proxy journal with no harness log: {plural(len(calls), 'call')} of "
            f"{plural(len(attempts), 'attempt')}; each task is one distinct request (its messages' "
            "hash) and each answer the response content's hash"
        ],
    )
    prov.warnings += notes
    if not any(r.get("kind") == "end" for r in records):
        prov.warnings.append("the journal has no end record: the proxy was still running or was killed")
    return rows, prov


def checked_attempts(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The attempt records, each read through the journal's one model: a value that is not valid is
    left out as not recorded, so one bad attempt costs its bad values, never the journal; and one
    line saying how many attempts lost values (empty when none did)."""
    attempts, lost = [], []
    for record in records:
        if record.get("kind") == "unreadable":
            lost.append(f"line {record.get('line')}: {record.get('why')}")
        if record.get("kind") != "attempt":
            continue
        checked = attempt_record({k: v for k, v in record.items() if k not in ("journal", "kind")}, [])
        attempts.append({"kind": "attempt", **checked.line()})
        if checked.dropped:
            lost.append(f"attempt {checked.n}: {'; '.join(checked.dropped[:3])}")
    if not lost:
        return attempts, []
    return attempts, [
        f"{plural(len(lost), 'attempt')} of the journal held values that are not valid, left out as "
        "not recorded "
        f"({lost[0]}{' ...' if len(lost) > 1 else ''})"
    ]


def _arrival(attempt: dict[str, Any]) -> tuple[int, int]:
    """An attempt's place in arrival order: its number, attempts without one last (in line order)."""
    n = attempt.get("n")
    return (0, n) if isinstance(n, int) and not isinstance(n, bool) else (1, 0)


def group_calls(attempts: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Attempts grouped into calls: one with the same messages as an open call that failed is a retry.

    Taken in the order the proxy received them (their number `n`), not the journal's line order: the
    proxy writes an attempt once its tokens are counted, so a short one may be written before a long
    one that arrived first."""
    calls: list[list[dict[str, Any]]] = []
    open_by_hash: dict[Any, list[dict[str, Any]]] = {}
    for a in sorted(attempts, key=_arrival):
        key = (a.get("path"), a.get("messages_hash"))
        last = open_by_hash.get(key)
        if last is not None and last[-1].get("outcome") != "ok":
            last.append(a)
            continue
        call = [a]
        calls.append(call)
        open_by_hash[key] = call
    return calls


def call_fields(call: list[dict[str, Any]], source: Source) -> dict[str, Any]:
    """A call's result fields: the final attempt's facts and every attempt as an `Attempt`."""
    last = call[-1]
    usage = source.optional_obj(last.get("usage"), f"attempt {last.get('n')}.usage")
    ok = last.get("outcome") == "ok"
    fields: dict[str, Any] = {
        "answer": last.get("response_hash") if ok else None,
        "status": "ok" if ok else "error",
        "started_at": call[0].get("started_at"),
        "finished_at": last.get("ended_at"),
        "served_model": last.get("served_model"),
        "system_fingerprint": last.get("system_fingerprint"),
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
        "total_tokens": usage.get("total_tokens"),
        "cached_tokens": usage.get("cached_tokens"),
        "reasoning_tokens": usage.get("reasoning_tokens"),
        "route": call_route(last),
        "attempts": [as_attempt(a, i) for i, a in enumerate(call)],
    }
    if not ok:
        fields["error"] = {"type": last.get("outcome"), "http_status": last.get("status")}
    return {k: v for k, v in fields.items() if v is not None}


def as_attempt(record: dict[str, Any], index: int) -> dict[str, Any]:
    """One journal attempt as a log `Attempt` (the fields the retry and drift metrics read)."""
    out = {
        "attempt": index,
        "retry": record.get("retry"),
        "started_at": record.get("started_at"),
        "ended_at": record.get("ended_at"),
        "status_code": record.get("status"),
        "outcome": record.get("outcome") or "connection_error",
        "retry_after_s": record.get("retry_after_s"),
        "base_url": record.get("base_url"),
        "key_fingerprint": record.get("key_fingerprint"),
        "redirect_to": record.get("redirect_to"),
    }
    return {k: v for k, v in out.items() if v is not None}


def call_route(last: dict[str, Any]) -> dict[str, Any]:
    """What the client asked for, on the route the call took."""
    params: dict[str, Any] = last["params"] if isinstance(last.get("params"), dict) else {}
    route = {
        "base_url": last.get("base_url"),
        "key_fingerprint": last.get("key_fingerprint"),
        **{k: params.get(k) for k in ("model", "temperature", "top_p", "seed", "max_tokens")},
    }
    return {k: v for k, v in route.items() if v is not None}


def _route(value: Any, source: Source) -> Route | None:
    if value is None:
        return None
    fields = source.obj(value, "start.route")
    known = {k: fields.get(k) for k in Route.model_fields}
    return make_route(known, source, {})
