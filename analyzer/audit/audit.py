"""One audit of two logs of the same prompts: identity, token ledger and tool-call fidelity."""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.audit.ledger import Ledger, token_ledger
from analyzer.audit.samples import paired_samples
from analyzer.audit.tool_calls import ToolFidelity, tool_fidelity
from analyzer.audit.verdict import IdentityVerdict, identity_verdict
from analyzer.log.model import RunLog
from analyzer.log.table import gc_paused


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
