"""What every importer shares: the error type, shape checks that name the place, and the builder
that turns per-result rows into a format-2 `RunLog` with provenance.

An importer reads a foreign file into `Row`s (task, round, the result's fields, and where in the
source file the result came from) plus a `Provenance`; `build_log` validates each result on its own,
so a bad value is reported at its place in the foreign file, not in the log being built.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NoReturn

from pydantic import ValidationError

import analyzer.numbers as numbers
from analyzer.errors import LogError
from analyzer.log.fast_decode import duplicate_key
from analyzer.log.loader import json_type
from analyzer.log.model import FORMAT_V2, Result, Route, RunLog, TaskSpec
from analyzer.log.redaction import redacted_payload, redacted_route

IMPORTER_VERSION = 3
"""Bumped when an importer maps a field differently, so an imported log says which mapping made it."""


class ForeignLogError(LogError):
    """A file in a known foreign format (Inspect AI, tau-bench, ...) that cannot be read."""


def member_obj(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """`parent[key]` when it is a JSON object, else `{}` (absent, null or another type)."""
    value = parent.get(key)
    return value if isinstance(value, dict) else {}


def member_list(parent: dict[str, Any], key: str) -> list[Any]:
    """`parent[key]` when it is a JSON list, else `[]` (absent, null or another type)."""
    value = parent.get(key)
    return value if isinstance(value, list) else []


@dataclass(frozen=True)
class Source:
    """The file being imported, for one-line errors that name it and the place in it."""

    name: str

    def fail(self, place: str, message: str) -> NoReturn:
        """Raise a `ForeignLogError` naming the file and `place` (e.g. `simulations[3].trial`)."""
        where = f"{self.name}: {place}: " if place else f"{self.name}: "
        raise ForeignLogError(where + message)

    def obj(self, value: Any, place: str) -> dict[str, Any]:
        """`value` as a JSON object, or a one-line error."""
        if not isinstance(value, dict):
            self.fail(place, f"expected an object, got {json_type(value)}")
        return value

    def items(self, value: Any, place: str) -> list[Any]:
        """`value` as a JSON list, or a one-line error."""
        if not isinstance(value, list):
            self.fail(place, f"expected a list, got {json_type(value)}")
        return value

    def number(self, value: Any, place: str) -> float:
        """`value` as a finite number (not true/false), or a one-line error."""
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            self.fail(place, f"expected a number, got {json_type(value)}")
        if value in (float("inf"), float("-inf")):
            self.fail(place, "not a finite number")
        return float(value)

    def count(self, value: Any, place: str) -> int:
        """`value` as a token count (null counts 0), or a one-line error."""
        if value is None:
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail(place, f"expected a count (a whole number, 0 or more), got {json_type(value)}")
        return value

    def optional_obj(self, value: Any, place: str) -> dict[str, Any]:
        """An object the source may leave out or set to null (then `{}`); another type is an error."""
        return {} if value is None else self.obj(value, place)

    def optional_items(self, value: Any, place: str) -> list[Any] | None:
        """A list the source may leave out or set to null (then None); another type is an error."""
        return None if value is None else self.items(value, place)

    def optional_text(self, value: Any, place: str) -> str | None:
        """A string the source may leave out or set to null; another type is an error."""
        if value is not None and not isinstance(value, str):
            self.fail(place, f"expected a string, got {json_type(value)}")
        return value

    def optional_bool(self, value: Any, place: str) -> bool | None:
        """true/false, or null/absent; another type (`"yes"`, 1) is an error."""
        if value is not None and not isinstance(value, bool):
            self.fail(place, f"expected true or false, got {json_type(value)}")
        return value

    def optional_number(self, value: Any, place: str) -> float | None:
        """A finite number, or null/absent; another type is an error."""
        return None if value is None else self.number(value, place)

    def optional_int(self, value: Any, place: str) -> int | None:
        """A whole number, or null/absent; another type (`"a"`, 1.5, true) is an error."""
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            got = str(value) if isinstance(value, float) else json_type(value)
            self.fail(place, f"expected a whole number, got {got}")
        return value

    def task_id(self, value: Any, place: str) -> str | int:
        """`value` as a task id (a string or an integer), or a one-line error."""
        if isinstance(value, bool) or not isinstance(value, str | int):
            self.fail(place, f"expected a task id (a string or an integer), got {json_type(value)}")
        return value


def make_route(fields: dict[str, Any], source: Source, places: dict[str, str]) -> Route:
    """A `Route` from the source's values, or one line naming the place of the first bad one.

    Args:
        fields: Route fields (None values are dropped).
        source: The file, for error messages.
        places: Where each field came from in the source, e.g. `{"model": "eval.model"}`.
    """
    try:
        return Route.model_validate({k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        source.fail(places.get(field, field), f"{first['msg']} (got {str(first.get('input'))[:40]!r})")


def parse_json(text: str | bytes, source: Source, place: str = "") -> Any:
    """Parse JSON, refusing NaN and infinities and a key twice in one object (the last would win
    silently); a syntax error names the line and column."""

    def refuse(constant: str) -> NoReturn:
        source.fail(place, f"not valid JSON: {constant} is not a number JSON allows")

    try:
        parsed = json.loads(text, parse_constant=refuse)
    except json.JSONDecodeError as exc:
        message = exc.msg.removesuffix(" at")  # "Unterminated string starting at" + " at line ..."
        source.fail(place, f"not valid JSON: {message} at line {exc.lineno} column {exc.colno}")
    except UnicodeDecodeError as exc:
        source.fail(place, f"not UTF-8 text (byte at offset {exc.start})")
    except RecursionError:
        source.fail(place, "not valid JSON: nesting too deep")
    if isinstance(parsed, dict | list) and (repeated := duplicate_key(text)) is not None:
        source.fail(place, f"duplicate key {repeated}; a key may appear only once in an object")
    spelled = (
        _SURROGATE_ESCAPE.search(text) if isinstance(text, str) else _SURROGATE_ESCAPE_BYTES.search(text)
    )
    if spelled:
        return without_lone_surrogates(parsed)
    return parsed


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
"""A `\\uD800`-`\\uDFFF` escape: JSON may spell a lone surrogate, which no UTF-8 output can hold."""
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _fix(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def without_lone_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its strings (keys included) replaced by U+FFFD: text that
    leaves the program (a terminal, a CSV, Arrow strings, the imported log) must be valid UTF-8.
    Walks without recursion (the parsed value may be nested deep)."""
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if isinstance(item, str):
            holder[key] = _fix(item)
        elif isinstance(item, list):
            stack.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            renamed = {_fix(k) if isinstance(k, str) else k: v for k, v in item.items()}
            item.clear()
            item.update(renamed)
            stack.extend((item, k) for k in item)
    return root[0]


@dataclass(frozen=True)
class Row:
    """One result read from a foreign file, before validation."""

    task_id: str | int
    """Task the result answers."""
    round: int
    """1-based round (epoch, trial + 1, repeat order)."""
    fields: dict[str, Any]
    """The result's other fields, named as in `analyzer.log.model.Result`."""
    place: str
    """Where the result is in the source file, e.g. `samples[4]` (kept as `source_ref`)."""


@dataclass
class Provenance:
    """What the imported log says about where it came from."""

    format: str
    """Source format, e.g. `tau2-bench`."""
    version: str | None
    """The source's own version marker (log version, tool version, git commit), when it has one."""
    importer: str
    """Module that did the import."""
    label: str
    """Label for the imported log."""
    created_at: datetime | None = None
    """When the source run started or was written, when it says."""
    route: Route | None = None
    """The run's route as far as the source records it; results without their own get a copy."""
    tasks: list[TaskSpec] | None = None
    """Task definitions, when the source holds them."""
    warnings: list[str] = field(default_factory=list)
    """What the import changed, dropped or could not know, one line each."""
    resample: dict[str, Any] | None = None
    """Per-step scores of a step resample the source made (ALTK-Evolve), as `RunLog.resample`."""
    experiments: list[dict[str, Any]] | None = None
    """Experiment groups the source compares in one file (promptfoo's providers and prompts), in the
    source's order: `{"label", "tasks": {task_id: name in the group}}` (`importers.experiments`)."""
    score_scale: dict[str, Any] | None = None
    """The headline score's scale where it is no pass/fail and no 0-1 share (a 0-10 rubric):
    `{"scorer", "metric", "low", "high", "pass_fail": False, "phrase"}` (`importers.inspect_scale`)."""
    stopped: dict[str, Any] | None = None
    """For a run that stopped before running every task: `{"status", "error", "planned", "logged",
    "never_ran": [ids]}` (`importers.inspect_stopped`)."""
    figures: list[dict[str, Any]] | None = None
    """The source tool's own figures as it reported them, each beside RerunLens's recomputation from
    the same file (lm-evaluation-harness: `importers.lm_eval_run.figures`)."""


def build_log(rows: list[Row], prov: Provenance, source: Source, digest_of: bytes) -> RunLog:
    """A format-2 `RunLog` from rows: round-major, each result validated at its source place.

    Rounds are numbered by the distinct round numbers present, in order, so a result's position in
    `runs` and its `round` field agree even when the source skips a number.

    Args:
        rows: The results read from the source.
        prov: Provenance and log-level fields.
        source: The file, for error messages.
        digest_of: The source bytes; the run id is derived from them, so importing twice gives one id.
    """
    if not rows:
        source.fail("", "no results to import")
    numbers = sorted({r.round for r in rows})
    position = {n: i for i, n in enumerate(numbers)}
    runs: list[list[Result]] = [[] for _ in numbers]
    run_route = prov.route.model_dump(exclude_none=True) if prov.route is not None else None
    for row in rows:
        payload = {**row.fields, "task_id": row.task_id, "round": position[row.round] + 1}
        if prov.route is not None and payload.get("route") is None:
            payload["route"] = run_route  # a run-level setting: every result was sent with it
        payload["source_ref"] = row.place
        payload = redacted_payload(payload)  # another tool's file may quote a key: none is kept
        try:
            result = Result.model_validate(payload)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            loc = ".".join(str(p) for p in first["loc"])
            source.fail(row.place, f"{loc}: {first['msg']} (got {str(first.get('input'))[:40]!r})")
        runs[position[row.round]].append(result)
    digest = hashlib.sha256(digest_of).hexdigest()[:16]
    return RunLog(
        format=FORMAT_V2,
        run_id=f"import-{prov.format}-{digest}",
        created_at=prov.created_at,
        label=prov.label,
        route=redacted_route(prov.route),
        tasks=prov.tasks,
        resample=prov.resample,
        runs=runs,
        imported_from={
            "format": prov.format,
            "version": prov.version,
            "importer": prov.importer,
            "importer_version": IMPORTER_VERSION,
            "file": source.name,
            "imported_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "warnings": prov.warnings,
            **({"experiments": prov.experiments} if prov.experiments else {}),
            **({"source_figures": prov.figures} if prov.figures else {}),
            **({"score_scale": prov.score_scale} if prov.score_scale else {}),
            **({"stopped": prov.stopped} if prov.stopped else {}),
        },
    )


def parse_time(value: Any) -> datetime | None:
    """An ISO-8601 time as written by the source tools (naive times are taken as UTC); else None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def plural(n: int, word: str) -> str:
    """`1 result`, `3 results`: the one number style (`numbers.counted`)."""
    return numbers.counted(n, word)
