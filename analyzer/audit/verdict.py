"""The identity verdict: `differ`, `no difference found` or `inconclusive`, with what backs it.

`differ` means the p-value is at or below alpha: the routes' completions come from different
distributions on these prompts. It is evidence, not proof of substitution (a changed system prompt, a
new snapshot or a gateway's defaults all differ too). `no difference found` is never "same model":
it comes with the power this sample had against a stated shift.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from analyzer.audit.identity import MIN_PROMPTS, MIN_SAMPLES, PromptResult, enough, run_test
from analyzer.audit.kernels import PARTS, features
from analyzer.audit.power import Power, shift_power
from analyzer.audit.samples import MIN_PER_ROUTE, Samples

DIFFER = "differ"
NO_DIFFERENCE = "no difference found"
INCONCLUSIVE = "inconclusive"
VERDICTS = (DIFFER, NO_DIFFERENCE, INCONCLUSIVE)


@dataclass(frozen=True)
class IdentityVerdict:
    verdict: str
    alpha: float
    p_value: float | None
    met_p_value: float | None
    """The MET baseline's p-value on the same samples and permutations."""
    permutations: int
    shared_prompts: int
    tested_prompts: int
    samples: tuple[int, int]
    errors: tuple[int, int]
    by_id_only: bool
    differs_most: str | None = None
    part_z: dict[str, float] = field(default_factory=dict)
    prompts: list[PromptResult] = field(default_factory=list)
    prompts_differing: int = 0
    power: Power | None = None
    needed: str | None = None


def _needed(samples: Samples) -> str:
    return (
        f"at least {MIN_PROMPTS} prompts with {MIN_PER_ROUTE} or more answered samples on each route and "
        f"{MIN_SAMPLES} samples per route in all (these logs have {len(samples.task_ids)} such prompts, "
        f"{int(samples.n_ref.sum())} and {int(samples.n_cand.sum())} samples); "
        "10 samples on each of 25 prompts is what the benchmark measures"
    )


def identity_verdict(samples: Samples, alpha: float) -> IdentityVerdict:
    """The test on two routes' samples, and the verdict it supports at alpha."""
    base = IdentityVerdict(
        INCONCLUSIVE,
        alpha,
        None,
        None,
        0,
        samples.shared_prompts,
        len(samples.task_ids),
        (int(samples.n_ref.sum()), int(samples.n_cand.sum())),
        samples.errors,
        samples.by_id_only,
    )
    if not enough(samples):
        return replace(base, needed=_needed(samples))
    feats = features(samples)
    outcome = run_test(samples, feats, alpha)
    differ = outcome.p_value <= alpha
    return replace(
        base,
        verdict=DIFFER if differ else NO_DIFFERENCE,
        p_value=outcome.p_value,
        met_p_value=outcome.met_p_value,
        permutations=outcome.permutations,
        differs_most=max(PARTS, key=lambda p: outcome.part_z[p]) if differ else None,
        part_z=outcome.part_z,
        prompts=outcome.prompts,
        prompts_differing=sum(r.differs for r in outcome.prompts),
        power=None if differ else shift_power(samples, feats, alpha),
    )
