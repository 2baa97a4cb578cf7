"""The journal ledger as figures and one sentence: `audit JOURNAL --json` prints the figures, the text
prints their `sentence`."""

from __future__ import annotations

from typing import Any

from analyzer import numbers
from analyzer.audit.journal_ledger import JournalLedger
from analyzer.audit.ledger import OVER, UNDER, UNMEASURED
from analyzer.audit.report import calls_text, ratio_json, ratio_text, reported_text
from analyzer.safety.terminal_text import visible

SHOWN_REASONS = 3
"""The most frequent reasons a sentence names for prompts left out (the figures carry all)."""


def _route_is(verdict: str) -> str:
    """ "the route is overbilled", but "unmeasured for the route" (nothing is said of it)."""
    return f"{verdict} for the route" if verdict == UNMEASURED else f"the route is {verdict}"


def journal_sentence(ledger: JournalLedger) -> str:
    """What the ledger found, thresholds and what is left apart said with it."""
    skipped = (
        f"; {numbers.counted(ledger.not_counted, 'answered call')} whose prompt the proxy could not count "
        f"left out of the prompt ratio ({left_out_text(ledger)})"
        if ledger.not_counted
        else ""
    )
    return (
        f"Tokens (counted by the proxy, {ledger.encoding or 'no encoding'}): {_route_is(ledger.verdict)}: "
        f"{ratio_text('prompt', ledger.prompt)}, "
        f"{ratio_text('completion (less reported reasoning)', ledger.completion)} "
        f"(overbilled above {OVER:g}, underbilled below {UNDER:g}, on the 95 % interval); kept apart: "
        f"{reported_text('cached prompt', ledger.cached)}, {reported_text('reasoning', ledger.reasoning)}. "
        f"Attempts a provider may bill: {calls_text('the route', ledger.calls)}{skipped}."
    )


def left_out_text(ledger: JournalLedger) -> str:
    """The reasons prompts were not counted, the most frequent first, with how many calls each."""
    shown = [f"{n}: {visible(why)}" for why, n in ledger.not_counted_why[:SHOWN_REASONS]]
    rest = sum(n for _, n in ledger.not_counted_why[SHOWN_REASONS:])
    return "; ".join(shown + ([f"{rest}: other reasons"] if rest else []))


def journal_figures(ledger: JournalLedger) -> dict[str, Any]:
    """Every figure of the journal ledger, and its sentence."""
    return {
        "tokens": {
            "verdict": ledger.verdict,
            "prompt_ratio": ledger.prompt.ratio,
            "completion_ratio": ledger.completion.ratio,
            "encoding": ledger.encoding,
            "counted_by": "proxy",
            "prompt": ratio_json(ledger.prompt),
            "completion": ratio_json(ledger.completion),
            "cached_reported": ledger.cached,
            "reasoning_reported": ledger.reasoning,
            "calls": {
                "logical": ledger.calls.results,
                "billed_attempts": ledger.calls.attempts,
            },
            "not_counted": ledger.not_counted,
            "not_counted_why": dict(ledger.not_counted_why),
        },
        "sentence": journal_sentence(ledger),
    }


def journal_token_rows(ledger: JournalLedger) -> list[dict[str, Any]]:
    """Reported against counted tokens per kind (what the Audit view charts for a proxy journal)."""
    return [
        {"tokens": kind, "reported": r.reported, "counted": r.counted, "ratio": r.ratio}
        for kind, r in (("prompt", ledger.prompt), ("completion (less reasoning)", ledger.completion))
    ]
