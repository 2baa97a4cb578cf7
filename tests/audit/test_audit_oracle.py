"""The audit's figures on generated pairs of logs are those the audit gave before its speed work.

The golden file `tests/fixtures/audit/oracle.json` holds the figures the audit at commit dc1de7b
computed on the pairs `generated_pair` builds (its SOURCE line says how); every verdict, p-value,
per-prompt p-value and ledger ratio, sum and count must stay exactly as it was (the ratios'
intervals and per-route verdicts are left out: their method changed after the golden). Regenerate
it only from a commit whose figures are known right:
`PYTHONPATH=$PWD python tests/audit/test_audit_oracle.py --write`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from analyzer.audit import audit_figures, audit_logs, identity
from analyzer.audit.audit import Audit
from analyzer.log.model import RunLog

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "audit" / "oracle.json"
WORDS = ["the", "office", "opens", "first", "at", "nine", "on", "Monday", "in", "the", "city", "north"]
PAIRS = {"shifted": (1.5, 300), "shifted, 20 prompts": (1.5, 20), "honest": (0.0, 300)}
"""Each pair's shift and prompts (300 prompts are several blocks of the permutation engine; with
20, Benjamini-Hochberg can pick a prompt at 999 permutations)."""
LATER_RATIO_KEYS = ("interval", "verdict")
"""A route's ratio figures left out of the comparison: computed by a method changed after the golden."""


def _options(rng: np.random.Generator) -> list[str]:
    """A prompt's possible answers: short and long, some sharing their opening."""
    out = []
    for _ in range(6):
        words = rng.choice(WORDS, size=int(rng.integers(1, 14)))
        out.append(" ".join(words).capitalize() + rng.choice([".", "!", ""]))
    out[1] = out[0] + " " + out[1]
    return out


def _result(rng: np.random.Generator, task: str, answer: str, candidate: bool, shift: float) -> dict:
    tokens = max(1, len(answer) // 4 + int(rng.integers(0, 3)))
    if rng.random() < 0.05:
        return {"task_id": task, "status": "error", "error": {"type": "RateLimitError"}}
    cut = candidate and shift > 0 and rng.random() < (0.9 if task.endswith(("0", "5")) else 0.2)
    return {
        "task_id": task,
        "answer": answer[: len(answer) // 2] if cut else answer,
        "finish_reason": "length" if cut else "stop",
        "completion_tokens": None if rng.random() < 0.1 else tokens,
        "prompt_tokens": 20 + int(candidate and shift > 0) * 3,
        "served_model": "gpt-4o-mini" if candidate and shift > 0 and rng.random() < 0.1 else "gpt-4o",
        "system_fingerprint": f"fp_{int(rng.integers(0, 2))}",
        "cached_tokens": 8 if rng.random() < 0.3 else None,
        "reasoning_tokens": None,
    }


def generated_pair(shift: float, prompts: int = 300, rounds: int = 10) -> tuple[RunLog, RunLog]:
    """Two logs of the same prompts; the candidate's answer shares are sharpened by `shift` on a
    third of the prompts, and with a shift some answers are cut short (most of them on every fifth
    prompt), billed more or served by another model. Some results error and some rounds miss a
    prompt, so prompts differ in size."""
    rng = np.random.default_rng(43)
    tasks = [{"task_id": f"p{k}", "prompt": f"Which office opens first in city {k}?"} for k in range(prompts)]
    options = [_options(rng) for _ in range(prompts)]
    base = [rng.dirichlet(np.ones(6)) for _ in range(prompts)]
    logs = []
    for candidate in (False, True):
        runs: list[list[dict[str, Any]]] = [[] for _ in range(rounds)]
        for k in range(prompts):
            probs = base[k] ** (1 + shift) if candidate and k % 3 == 0 else base[k]
            for r in range(rounds):
                if rng.random() < 0.08:
                    continue
                answer = options[k][int(rng.choice(6, p=probs / probs.sum()))]
                runs[r].append(_result(rng, f"p{k}", answer, candidate, shift) | {"round": r + 1})
        label = "candidate" if candidate else "reference"
        data = {"format": "altk-runs/2", "label": label, "route": {"model": "gpt-4o"}, "tasks": tasks}
        logs.append(RunLog.model_validate(data | {"runs": runs}))
    return logs[0], logs[1]


def oracle_figures(audit: Audit) -> dict[str, Any]:
    """What must not move: the verdicts, every p-value, the parts' z, the power and the ledger."""
    figures = audit_figures(audit)
    identity = {k: v for k, v in figures["identity"].items() if k not in ("prompts", "differs_most")}
    identity["prompts"] = sorted([p.task_id, p.p_value, p.differs] for p in audit.identity.prompts)
    later = ("candidate", "reference", "not_counted", "not_counted_why")  # the last two came after the golden
    tokens = {k: v for k, v in figures["tokens"].items() if k not in later}
    for route in ("candidate", "reference"):
        for kind in ("prompt", "completion"):
            # the interval's method and the verdict rule it feeds changed after the golden (its
            # coverage is checked by simulation in test_ledger_interval.py); ratios, sums, counts stay
            tokens[f"{route} {kind}"] = {
                k: v for k, v in figures["tokens"][route][kind].items() if k not in LATER_RATIO_KEYS
            }
    kept = {"identity": identity, "tokens": tokens, "tool_calls": figures["tool_calls"]}
    return json.loads(json.dumps(kept))


def _golden() -> dict[str, Any]:
    """The golden figures, each pair's prompts in the order `oracle_figures` lists them."""
    golden = json.loads(GOLDEN.read_text())
    for name in PAIRS:
        golden[name]["identity"]["prompts"] = sorted(golden[name]["identity"]["prompts"])
        for value in golden[name]["tokens"].values():
            if isinstance(value, dict):
                for key in LATER_RATIO_KEYS:
                    value.pop(key, None)
    return golden


def _all_figures() -> dict[str, Any]:
    return {name: oracle_figures(audit_logs(*generated_pair(*how))) for name, how in PAIRS.items()}


@pytest.fixture(scope="module")
def figures() -> dict[str, Any]:
    return _all_figures()


@pytest.mark.parametrize("name", list(PAIRS))
def test_the_audit_gives_the_figures_it_gave_before_its_speed_work(name: str, figures: dict) -> None:
    golden = _golden()
    assert figures[name] == golden[name]


def test_prompts_combined_in_small_blocks_give_the_same_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-prompt combination runs a block of prompts at a time; blocks of 64 (five for the
    300 prompts) give what one block gave."""
    monkeypatch.setattr(identity, "PROMPT_BLOCK", 64)
    golden = _golden()
    assert oracle_figures(audit_logs(*generated_pair(*PAIRS["shifted"]))) == golden["shifted"]


def test_the_generated_pairs_reach_both_verdicts_and_several_chunks(figures: dict) -> None:
    """The oracle covers `differ` (with prompts picked) and `no difference found` (with its power),
    and more prompts than one block of the permutation engine holds."""
    shifted, honest = figures["shifted"]["identity"], figures["honest"]["identity"]
    assert shifted["verdict"] == "differ" and shifted["prompts_tested"] == 300
    assert figures["shifted, 20 prompts"]["identity"]["prompts_differing"] > 0
    assert honest["verdict"] == "no difference found" and honest["power"]["draws"] > 0
    assert figures["shifted"]["tokens"]["verdict"] == "overbilled"


def test_prompts_of_equal_p_are_listed_in_natural_order() -> None:
    """p1, p2, ..., p10 rather than p1, p10, p100: the prompts shown first among ties."""
    from analyzer.numbers import natural_key

    prompts = audit_logs(*generated_pair(*PAIRS["shifted"])).identity.prompts
    keys = [(p.p_value, natural_key(p.task_id)) for p in prompts]
    assert keys == sorted(keys) and len({p.p_value for p in prompts}) < len(prompts)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import subprocess

    from analyzer.atomic import write_text_atomic

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
    how = "computed by `PYTHONPATH=$PWD python tests/audit/test_audit_oracle.py --write` at commit"
    out = {"SOURCE": f"{how} {head.strip()}"} | _all_figures()
    write_text_atomic(GOLDEN, json.dumps(out, indent=1) + "\n")


def test_the_sentence_says_when_a_lone_prompt_cannot_be_named() -> None:
    """With 300 prompts a prompt's p-value (at least 1 / (1 + permutations)) cannot reach
    Benjamini-Hochberg's alpha / 300; with 20 prompts at 999 permutations it can."""
    from analyzer.audit.report import audit_text

    many = audit_logs(*generated_pair(*PAIRS["shifted"]))
    few = audit_logs(*generated_pair(*PAIRS["shifted, 20 prompts"]))
    floor = "so one that differs alone among 300 cannot be named"
    assert floor in audit_text(many).replace("\n", " ")
    assert "cannot be named" not in audit_text(few)
