"""One audit of two logs of the same prompts: identity, token ledger and tool-call fidelity."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analyzer.audit.ledger import Ledger, token_ledger
from analyzer.audit.samples import paired_samples
from analyzer.audit.tool_calls import ToolFidelity, tool_fidelity
from analyzer.audit.verdict import IdentityVerdict, identity_verdict
from analyzer.log.model import RunLog
from analyzer.log.table import gc_paused
from analyzer.log.task_set import task_ids

LIVE_LABEL = "audit {route}"
"""The label of each log a live audit writes (`audit reference`, `audit candidate`)."""


@dataclass(frozen=True)
class Audit:
    identity: IdentityVerdict
    tokens: Ledger
    tool_calls: ToolFidelity


def audit_logs(reference: RunLog, candidate: RunLog, alpha: float = 0.05) -> Audit:
    """Audit the candidate route against the reference route (their logs ran the same prompts).

    Raises:
        RerunLensError: the logs share no prompt, or shared ids carry different prompts.
    """
    with gc_paused():  # many small objects (columns, codes): a collection would walk the whole log
        samples = paired_samples(reference, candidate)
        return Audit(
            identity_verdict(samples, alpha),
            token_ledger(reference, candidate),
            tool_fidelity(reference, candidate, alpha),
        )


def pair_to_audit(logs: Sequence[RunLog]) -> tuple[int, int]:
    """The positions of the first two logs that ran a prompt in common (the first two otherwise), a live
    audit's reference first: what the Audit view offers before anyone picks, so that a live audit's
    logs opened beside others do not start on a pair that cannot be audited, nor the wrong way round."""
    ids = [set(task_ids(log)) for log in logs]
    pairs = ((i, j) for i in range(len(ids)) for j in range(i + 1, len(ids)) if ids[i] & ids[j])
    i, j = next(pairs, (0, 1))
    live = [LIVE_LABEL.format(route=r) for r in ("reference", "candidate")]
    return (j, i) if [logs[j].label, logs[i].label] == live else (i, j)
