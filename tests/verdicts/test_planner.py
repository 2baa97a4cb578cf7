"""The re-run planner: the rounds it names decide under the verdict's own rule, Benjamini-Hochberg
across the re-run's tasks included; where none can, it says so and proposes what could."""

from __future__ import annotations

import math

import pytest

from analyzer.metrics.attribution import Round
from analyzer.metrics.stats import RERUN_FDR_Q, benjamini_hochberg
from analyzer.verdicts.planner import plan_rerun, plan_sentence, plan_summary
from analyzer.verdicts.rerun_verdict import rerun_evidence, settle


def _rounds(routes: str, answers: str, start: int = 1) -> list[Round]:
    return [Round(start + i, r, a, False) for i, (r, a) in enumerate(zip(routes, answers, strict=True))]


def test_rounds_by_hand() -> None:
    # 2 x on A, 1 y on B: k agreeing rounds on a new route give 2 / (3 + k) at best: never 0.02
    assert plan_rerun({"t": _rounds("AAB", "xxy")}, ["t"]).by_task() == {"t": None}
    # 3 x on A, 3 y on B; k x on a new route. Pure tables: the 3 y's sit on B or on A: 2 ways of
    # C(6 + k, 3), times 2 partitions, divided by P(S) = 1 - C(3 + k, 6) / C(6 + k, 6).
    # k = 5: 4 / 165 / (1 - 28 / 462) = 0.026; k = 6: 4 / 220 / (1 - 84 / 924) = 0.0200
    p6 = 4 / math.comb(12, 3) / (1 - math.comb(9, 6) / math.comb(12, 6))
    assert p6 == pytest.approx(0.02, abs=1e-4)
    assert plan_rerun({"t": _rounds("ABABAB", "xyxyxy")}, ["t"]).by_task() == {"t": 6}


def _verdicts(parent: dict[str, list[Round]], reruns: dict[str, list[Round]]) -> dict[str, str]:
    """The verdicts exactly as `before_after.task_verdicts` settles them (BH over the tested tasks)."""
    ids = list(parent)
    evidence = [rerun_evidence(parent[t], reruns[t]) for t in ids]
    tested = [i for i, e in enumerate(evidence) if e.test is not None]
    q = dict(zip(tested, benjamini_hochberg([evidence[i].test.p_value for i in tested]), strict=True))  # type: ignore[union-attr]
    return {t: settle(e, q.get(i)).verdict for i, (t, e) in enumerate(zip(ids, evidence, strict=True))}


# eight tasks whose keys alternate over 8 rounds, each key its own answer; two tasks split within one
# key (model noise, never decidable): BH over all ten asks the eight for p <= 0.02 x 8 / 10
PARENT = {f"key-{i}": _rounds("ABABABAB", "xyxyxyxy") for i in range(8)}
PARENT |= {f"noise-{i}": _rounds("AAAAAAAA", "xxyxxyxx") for i in range(2)}


def _run(pinned: str, k: int) -> dict[str, str]:
    """The verdicts after k pinned rounds on `pinned` (A or B: one of the parent's keys; P: a new one),
    giving what that key gave (or the common answer); the noise tasks keep disagreeing."""
    answer = "y" if pinned == "B" else "x"
    reruns = {t: _rounds(pinned * k, answer * k, 9) for t in PARENT if t.startswith("key")}
    noisy = ("xy" * k)[:k]
    reruns |= {t: _rounds(pinned * k, noisy, 9) for t in PARENT if t.startswith("noise")}
    verdicts = _verdicts(PARENT, reruns)
    return {t: v for t, v in verdicts.items() if t.startswith("key")}


def test_the_named_rounds_decide_every_decidable_task_beside_tasks_that_cannot() -> None:
    plan = plan_rerun(PARENT, list(PARENT))
    assert plan.level == pytest.approx(RERUN_FDR_Q * 8 / 10)
    assert [t.task_id for t in plan.decidable()] == [f"key-{i}" for i in range(8)]
    k = plan.by_task()["key-0"]
    assert k is not None and plan.rounds == k
    for pinned in "ABP":  # wherever the pinned route sits, the named rounds decide
        assert set(_run(pinned, k).values()) == {"route"}, pinned
    # and they are the fewest that do so wherever it sits
    assert any("inconclusive" in _run(pinned, k - 1).values() for pinned in "ABP")


def test_a_three_round_parent_says_no_pinned_rounds_decide_and_proposes_what_could() -> None:
    parent = {"t": _rounds("ABA", "xyx")}
    plan = plan_rerun(parent, ["t"])
    task = plan.tasks[0]
    assert task.rounds is None and plan.rounds == 3  # not 30 rounds for nothing
    assert task.more_parent_rounds is not None and task.with_pinned is not None
    assert "no number of pinned rounds up to 30 decides it from 3 parent rounds" in plan_sentence(task)
    assert plan_summary(plan).startswith("None of the 1 tested tasks can be decided")
    # the proposal, run: the parent's rotation again beside the pinned rounds decides
    extra, pinned = task.more_parent_rounds, task.with_pinned
    again = _rounds(("AB" * extra)[:extra], ("xy" * extra)[:extra], 4)
    rerun = again + _rounds("A" * pinned, "x" * pinned, 4 + extra)
    assert _verdicts(parent, {"t": rerun})["t"] in ("route", "both")
    assert settle(rerun_evidence(parent["t"], rerun[:-1]), None).verdict != "route"  # fewer: not
