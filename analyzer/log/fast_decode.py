"""The fast way to read a run log: msgspec records, validated column by column by the model's own types.

`RunLog.model_validate_json` builds some 3 pydantic objects per result and holds them all; on a
100k-result log that costs about as much time as parsing the JSON and twice its memory. Here msgspec
decodes the file into slotted records (names and nesting checked, unknown fields refused), each
column of leaf values is then validated in one call by a pydantic `TypeAdapter` built from the
field's own annotation in `analyzer.log.model` (so the rules are exactly the model's, one source), and
the columns become the log's `LogTable`. The log's result objects are only built if a caller asks
for `runs` (`RunLog.deferred`).

This path vouches only for what it fully checked. Whenever it cannot (a syntax error, a value the
model refuses, an unknown field it would drop, a shape it does not expect), `decode_log` returns
None and the loader reads the file the ordinary way, which gives the same one-line error as
before. Duplicate keys are counted: the keys in the bytes (`":` not escaped) must equal the keys
decoded; when the cheap count cannot tell, the exact check (`jiter`, which names the line) decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import repeat
from operator import is_
from typing import Annotated, Any, cast

import msgspec
import numpy as np
from pydantic import BaseModel, TypeAdapter

from analyzer.log.model import Attempt, Result, ResultError, Route, RunLog
from analyzer.log.table import gc_paused, table_from_records
from analyzer.safety.json_keys import duplicate_key

UNSET = msgspec.UNSET


def _record(model: type[BaseModel], nested: dict[str, Any]) -> type[msgspec.Struct]:
    """A slotted msgspec record with the model's field names; leaves are left to the model's types."""
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for name, info in model.model_fields.items():
        kind = nested.get(name, Any)
        fields.append((name, kind) if info.is_required() else (name, kind, UNSET))
    return msgspec.defstruct(
        f"_{model.__name__}Record", fields, kw_only=True, forbid_unknown_fields=True, gc=False
    )


_RouteRecord = _record(Route, {})
_ErrorRecord = _record(ResultError, {})
_AttemptRecord = _record(Attempt, {})
_ResultRecord = _record(
    Result,
    {
        "route": _RouteRecord | None,
        "error": _ErrorRecord | None,
        "attempts": list[_AttemptRecord] | None,  # type: ignore[valid-type]
    },
)
_HEADER_FIELDS: tuple[str, ...] = tuple(f for f in RunLog.model_fields if f != "runs")
_LogRecord = _record(
    RunLog,
    {"runs": list[list[_ResultRecord]], **{f: msgspec.Raw for f in _HEADER_FIELDS}},  # type: ignore[valid-type]
)
_DECODER = msgspec.json.Decoder(_LogRecord)
_ENCODER = msgspec.json.Encoder()
_NESTED = {(Result, "route"), (Result, "error"), (Result, "attempts")}
_CONTAINERS = (dict, list)
_TIMES = {"started_at", "finished_at", "ended_at"}
_CHUNK = 1 << 24  # bytes scanned at a time when counting keys, so the scan needs little memory
_COLON, _QUOTE, _BACKSLASH = ord(":"), ord('"'), ord("\\")
_SPACE = np.array([ord(c) for c in " \t\r\n"], dtype=np.uint8)


class _Refused(Exception):
    """The fast path cannot vouch for the file; the ordinary reader takes over."""


def decode_log(data: bytes) -> RunLog | None:
    """The log, read the fast way; None when the ordinary reader must decide.

    A repeated key also returns None: the ordinary reader reports the model's own errors first,
    then the repeated key, as for any file.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        with gc_paused():
            record: Any = _DECODER.decode(data)
            keys = _KeyCount()
            header = _header(record, keys)
            table = table_from_records(record.runs, keys.validate)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, _Refused):
        return None
    if not table.n_results:
        return None
    if not keys.matches(data) and duplicate_key(data) is not None:
        return None
    return RunLog.deferred(header, data, table)


def _header(record: Any, keys: _KeyCount) -> RunLog:
    """Every field but `runs`, validated by the model itself from the file's own bytes."""
    raws = {
        name: bytes(getattr(record, name)) for name in _HEADER_FIELDS if getattr(record, name) is not UNSET
    }
    keys.total += len(raws) + 1  # with `runs`
    for raw in raws.values():
        if raw[:1] in (b"{", b"["):
            if duplicate_key(raw) is not None:
                raise _Refused
            keys.total += raw.count(b'":') - raw.count(b'\\":')
    parts = [b'"' + name.encode() + b'":' + raw for name, raw in raws.items()]
    return RunLog.model_validate_json(b"{" + b",".join([*parts, b'"runs":[]']) + b"}")


class _KeyCount:
    """Validates columns and counts the keys the records were decoded from."""

    def __init__(self) -> None:
        self.total = 0

    def validate(self, model: type[BaseModel], name: str, values: Sequence[Any]) -> Sequence[Any]:
        """Validated values of one field; absent ones become the field's default."""
        absent = sum(map(is_, values, repeat(UNSET)))
        self.total += len(values) - absent
        default = model.model_fields[name].default
        if (model, name) in _NESTED:
            return [None if v is UNSET else v for v in values] if absent else values
        present = [v for v in values if v is not UNSET] if absent else values
        if not present:
            return [default] * len(values)
        checked = _adapter(model, name).validate_python(present)
        if name in _TIMES and all(map(isinstance, present, repeat(str))):
            checked = present  # the text itself: frames parse it in C (see `frames._times`)
        if name in ("expected", "trajectory"):
            self.total += _keys_of([v for v in present if isinstance(v, _CONTAINERS)])
        if not absent:
            return checked
        it = iter(checked)
        return [default if v is UNSET else next(it) for v in values]

    def matches(self, data: bytes) -> bool:
        """Whether the keys in the bytes are exactly the keys decoded (so none was repeated)."""
        found = _keys_in_bytes(data)
        return found is not None and found == self.total


def _keys_in_bytes(data: bytes) -> int | None:
    """How many keys the JSON text holds; None when a cheap count cannot be sure.

    A key is a string followed by a colon. Inside a string a quote is always escaped, so `":` is
    a key's end unless the quote is escaped (`\\":`). A backslash pair before it (`\\\\":`)
    or white space between a quote and a colon leave the count unsure.
    """
    text = np.frombuffer(data, dtype=np.uint8)
    found = 0
    for start in range(0, len(text), _CHUNK):
        colons = np.flatnonzero(text[start : start + _CHUNK] == _COLON) + start
        colons = colons[colons >= 3]
        before = text[colons - 1]
        quoted = colons[before == _QUOTE]
        escaped = text[quoted - 2] == _BACKSLASH
        if (text[quoted[escaped] - 3] == _BACKSLASH).any():
            return None
        found += int((~escaped).sum())
        for at in colons[np.isin(before, _SPACE)].tolist():
            if _after_spaces(data, at) == _QUOTE:
                return None
    return found


def _after_spaces(data: bytes, at: int) -> int:
    """The byte before position `at`, white space skipped (-1 at the start)."""
    at -= 1
    while at >= 0 and data[at] in b" \t\r\n":
        at -= 1
    return data[at] if at >= 0 else -1


def _keys_of(values: list[Any]) -> int:
    """Keys of every object inside decoded JSON values: counted on their compact encoding, where no
    white space and no unescaped quote can mislead the count (a million tool calls: a walk in Python
    took seconds); by walking them when the count cannot be sure."""
    if not values:
        return 0
    try:
        found = _keys_in_bytes(_ENCODER.encode(values))
    except (msgspec.EncodeError, TypeError, ValueError, OverflowError):
        found = None
    return found if found is not None else sum(_keys_inside(v) for v in values)


def _keys_inside(value: Any) -> int:
    """Keys of every object inside a decoded JSON value."""
    if isinstance(value, dict):
        return len(value) + sum(_keys_inside(v) for v in value.values() if isinstance(v, _CONTAINERS))
    return sum(_keys_inside(v) for v in value if isinstance(v, _CONTAINERS))


def _adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    """Validates a list of one field's values with exactly the field's own type and constraints."""
    info = model.model_fields[name]
    kind = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    return _list_adapter(repr(kind), cast(Any, kind))


@cache
def _list_adapter(spelled: str, kind: Any) -> TypeAdapter[Any]:
    """One adapter per distinct type (spelled out with its constraints): fields share them."""
    del spelled  # the cache key: `Annotated` types with constraints are not hashable
    return TypeAdapter(list[kind])
