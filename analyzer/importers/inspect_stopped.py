"""An Inspect eval that stopped part-way: what its header says was planned against what it logged.

`eval.dataset` lists the sample ids and `eval.config.epochs` the epochs; an eval with `status:
error` (or `cancelled`) logged only the samples it reached, and its own `error` says why it stopped.
The samples that never ran are in no result, so without this they would be invisible.
"""

from __future__ import annotations

from typing import Any

from analyzer.importers.common import member_obj, plural

_SHOWN = 5


def stopped(log: dict[str, Any], samples: list[Any]) -> dict[str, Any] | None:
    """`{"status", "error", "planned", "logged", "never_ran": [ids]}` for an eval that stopped before
    running every sample, else None."""
    status = log.get("status")
    spec = member_obj(log, "eval")
    ids = member_obj(spec, "dataset").get("sample_ids")
    if status not in ("error", "cancelled") or not isinstance(ids, list):
        return None
    epochs = member_obj(spec, "config").get("epochs")
    epochs = epochs if isinstance(epochs, int) and not isinstance(epochs, bool) and epochs > 0 else 1
    logged = {str(s.get("id")) for s in samples if isinstance(s, dict)}
    never = [str(i) for i in ids if str(i) not in logged]
    message = str(member_obj(log, "error").get("message") or "").strip().splitlines()
    return {
        "status": status,
        "error": message[0][:300] if message else None,
        "planned": len(ids) * epochs,
        "logged": len(samples),
        "never_ran": never,
    }


def stopped_warning(found: dict[str, Any]) -> str:
    """One line: how far the eval got, which samples never ran, and its own error."""
    never = found["never_ran"]
    shown = ", ".join(never[:_SHOWN]) + (f" and {len(never) - _SHOWN} more" if len(never) > _SHOWN else "")
    why = f"; the eval's error: {found['error']}" if found["error"] else ""
    return (
        f"the eval stopped part-way (status {found['status']}): {found['logged']} of {found['planned']} "
        f"samples logged, {plural(len(never), 'sample')} never ran" + (f" ({shown})" if never else "") + why
    )
