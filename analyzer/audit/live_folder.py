"""A live audit's folder: what it is for and what it already holds, so an interrupted audit continues.

The folder holds `audit.json` (written atomically before the first request: the tasks' digest, the
samples, the model, the temperature and both routes, never a key) and per route either its finished
log or the runner's append-only journal. The same audit started again keeps every result written;
another audit is refused in one line naming what differs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.atomic import write_text_atomic
from analyzer.errors import RerunLensError
from analyzer.log.model import TaskSpec
from analyzer.runner.journal import journal_path, read_journal
from analyzer.safety.bounded_read import read_file
from analyzer.safety.url_secrets import REDACTED, redact_url
from analyzer.simulator import Scenario

MANIFEST = "audit.json"
MANIFEST_KIND = "rerunlens live audit"
MAX_MANIFEST_BYTES = 1 << 20
MAX_UNFINISHED = 50
"""Most unfinished audits listed from one runs folder (newest folder names first)."""


@dataclass(frozen=True)
class LiveRoute:
    label: str
    base_url: str
    key_env: str
    scenario: Scenario | None = None
    """How the built-in simulator serves this route when it has no base URL (None: honestly)."""


@dataclass(frozen=True)
class LiveAudit:
    tasks: list[TaskSpec]
    samples: int
    reference: LiveRoute
    candidate: LiveRoute
    model: str
    temperature: float
    out: Path

    @property
    def routes(self) -> tuple[LiveRoute, LiveRoute]:
        return self.reference, self.candidate

    @property
    def requests(self) -> int:
        """Every request of the audit, both routes together."""
        return 2 * self.samples * len(self.tasks)


def log_path(audit: LiveAudit, route: LiveRoute) -> Path:
    """Where `route`'s log is written (its journal sits beside it while it runs)."""
    return audit.out / f"audit-{route.label}.altk_runs.json"


def manifest(audit: LiveAudit) -> dict[str, Any]:
    """What makes two live audits the same one (no key, a base URL's secrets masked)."""
    tasks = [t.model_dump(mode="json", exclude_none=True) for t in audit.tasks]
    digest = hashlib.sha256(json.dumps(tasks, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return {
        "kind": MANIFEST_KIND,
        "tasks": {"count": len(tasks), "sha256": digest},
        "samples": audit.samples,
        "model": audit.model,
        "temperature": audit.temperature,
        **{r.label: _route_record(r) for r in audit.routes},
    }


def _route_record(route: LiveRoute) -> dict[str, Any]:
    record: dict[str, Any] = {"base_url": redact_url(route.base_url) if route.base_url else None}
    record["key_env"] = route.key_env
    if not route.base_url and route.scenario is not None:
        record["simulated"] = route.scenario.model_dump(mode="json")
    return record


def kept_results(audit: LiveAudit) -> dict[str, int]:
    """Results already written into the audit's folder, per route label (0 for a new audit).

    Raises:
        RerunLensError: the folder holds another audit (naming what differs), or audit logs with no
            `audit.json` to say which audit wrote them, or a damaged `audit.json` or journal.
    """
    path = audit.out / MANIFEST
    written = [p for r in audit.routes for p in (log_path(audit, r), journal_path(log_path(audit, r)))]
    if not path.exists():
        present = next((p for p in written if p.exists()), None)
        if present is not None:
            raise RerunLensError(
                f"audit: {present} is there, but no {MANIFEST} says which audit wrote it; "
                "choose another --out"
            )
        return {r.label: 0 for r in audit.routes}
    differ = differences(_read_manifest(path), manifest(audit))
    if differ:
        raise RerunLensError(
            f"audit: {audit.out} holds a live audit of {', '.join(differ)}; give the same tasks, samples "
            "and routes to continue it, or choose another --out"
        )
    return {r.label: _written(audit, r) for r in audit.routes}


def _written(audit: LiveAudit, route: LiveRoute) -> int:
    out = log_path(audit, route)
    if out.exists():
        return audit.samples * len(audit.tasks)
    journal = journal_path(out)
    return len(read_journal(journal).results) if journal_begun(journal) else 0


def journal_begun(journal: Path) -> bool:
    """Whether `journal` holds its whole header line: a process killed while creating it leaves an
    empty or torn first line, which records nothing (the route starts again)."""
    if not journal.exists():
        return False
    with open(journal, "rb") as fh:
        while chunk := fh.read(1 << 16):
            if b"\n" in chunk:
                return True
    return False


def save_manifest(audit: LiveAudit) -> None:
    """Write `audit.json` (atomically) unless it is there already; before the first request."""
    path = audit.out / MANIFEST
    if not path.exists():
        write_text_atomic(path, json.dumps(manifest(audit), indent=2, ensure_ascii=False) + "\n")


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        recorded = json.loads(read_file(path, MAX_MANIFEST_BYTES, "audit manifest"))
    except ValueError:
        recorded = None
    if not isinstance(recorded, dict) or recorded.get("kind") != MANIFEST_KIND:
        raise RerunLensError(f"audit: {path} is not a live audit's {MANIFEST}; choose another --out")
    return recorded


def differences(recorded: dict[str, Any], given: dict[str, Any]) -> list[str]:
    """What the folder's audit is, phrased against what was given: `6 samples per prompt, not 8`."""
    said: list[str] = []
    was, now = recorded.get("tasks") or {}, given["tasks"]
    if was.get("count") != now["count"]:
        said.append(f"{was.get('count')} prompts, not {now['count']} (another task file)")
    elif was.get("sha256") != now["sha256"]:
        said.append(f"other prompts ({now['count']} in both, but not the same: another task file)")
    if recorded.get("samples") != given["samples"]:
        said.append(f"{recorded.get('samples')} samples per prompt, not {given['samples']}")
    if recorded.get("model") != given["model"]:
        said.append(f"model {recorded.get('model')!r}, not {given['model']!r}")
    if recorded.get("temperature") != given["temperature"]:
        said.append(f"temperature {recorded.get('temperature')!r}, not {given['temperature']!r}")
    for label in ("reference", "candidate"):
        if recorded.get(label) != given[label]:
            said.append(f"{label} route {_shown(recorded.get(label))}, not {_shown(given[label])}")
    return said


def routes_shown(audit: LiveAudit) -> str:
    """What an audit sends, for the page's list: `reference URL with key variable VAR; candidate ...;
    model M, 12 samples per prompt at temperature 1`."""
    routes = "; ".join(f"{r.label} {_shown(_route_record(r))}" for r in audit.routes)
    settings = f"{audit.samples} samples per prompt at temperature {audit.temperature:g}"
    return f"{routes}; model {audit.model}, {settings}"


def _shown(route: Any) -> str:
    if not isinstance(route, dict):
        return "(not recorded)"
    where = route.get("base_url") or "the built-in simulator"
    if not route.get("base_url") and route.get("simulated") is not None:
        played = json.dumps(route["simulated"], sort_keys=True).encode()
        where += f" (scenario {hashlib.sha256(played).hexdigest()[:8]})"
    return f"{where} with key variable {route.get('key_env')}"


@dataclass(frozen=True)
class Unfinished:
    """An audit folder whose logs are not both written: what it holds, and the audit to continue it."""

    out: Path
    kept: int
    total: int
    audit: LiveAudit | None
    """Rebuilt from `audit.json` (routes, key variables, settings; never a key), None when it cannot be."""
    why_not: str | None = None
    """Why it cannot be continued here, when `audit` is None."""


def unfinished_audits(runs_dir: Path, known_tasks: Sequence[TaskSpec]) -> list[Unfinished]:
    """The live audits in `runs_dir`'s folders whose logs are incomplete. Their prompts are
    `known_tasks` (the built-in probes) or a journal's when `audit.json`'s digest matches them."""
    if not runs_dir.is_dir():
        return []
    folders = sorted((d for d in runs_dir.iterdir() if (d / MANIFEST).is_file()), reverse=True)
    found = []
    for folder in folders[:MAX_UNFINISHED]:
        try:
            recorded = _read_manifest(folder / MANIFEST)
        except RerunLensError:
            continue  # an `audit.json` some other tool wrote: not a live audit
        try:
            audit, why_not = _rebuilt(folder, recorded, known_tasks)
            if audit is None:
                prompts = (recorded.get("tasks") or {}).get("count")
                total = 2 * _whole(recorded.get("samples")) * _whole(prompts)
                found.append(Unfinished(folder, 0, total, None, why_not))
            elif not all(log_path(audit, r).exists() for r in audit.routes):
                found.append(Unfinished(folder, sum(kept_results(audit).values()), audit.requests, audit))
        except (RerunLensError, ValueError) as err:
            found.append(Unfinished(folder, 0, 0, None, str(err)))
    return found


def _whole(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _rebuilt(
    folder: Path, recorded: dict[str, Any], known_tasks: Sequence[TaskSpec]
) -> tuple[LiveAudit | None, str | None]:
    """The audit `audit.json` describes, or None and why it cannot be continued from the page."""
    routes = [_route_from(label, recorded.get(label)) for label in ("reference", "candidate")]
    if None in routes:
        return None, f"{folder / MANIFEST} does not name both routes' base URL and key variable"
    if any(r is not None and REDACTED in r.base_url for r in routes):
        return None, "a base URL held a secret audit.json does not keep; continue it from the CLI"
    samples, model, temperature = (
        _whole(recorded.get("samples")),
        recorded.get("model"),
        recorded.get("temperature"),
    )
    if not (samples >= 2 and isinstance(model, str) and isinstance(temperature, int | float)):
        return None, f"{folder / MANIFEST} does not record its samples, model and temperature"
    ref, cand = routes
    assert ref is not None and cand is not None
    for tasks in [list(known_tasks), *_journal_tasks(folder)]:
        audit = LiveAudit(tasks, samples, ref, cand, model, float(temperature), folder)
        if manifest(audit)["tasks"] == recorded.get("tasks"):
            return audit, None
    return None, "its prompts are not the built-in probes nor in a journal; continue it from the CLI"


def _route_from(label: str, record: Any) -> LiveRoute | None:
    if not isinstance(record, dict) or not isinstance(record.get("key_env"), str):
        return None
    url = record.get("base_url") or ""
    if not isinstance(url, str):
        return None
    played = record.get("simulated")
    scenario = Scenario.model_validate(played) if not url and played is not None else None
    return LiveRoute(label, url, record["key_env"], scenario)


def _journal_tasks(folder: Path) -> list[list[TaskSpec]]:
    """The prompts each begun journal in `folder` was started with."""
    found = []
    for journal in sorted(folder.glob("audit-*.altk_runs.journal.jsonl")):
        if journal_begun(journal):
            found.append([TaskSpec.model_validate(t) for t in read_journal(journal).header["tasks"]])
    return found
