"""An audit as figures and sentences: `--json`, the terminal and the HTML report all read `audit_figures`."""

from __future__ import annotations

import html
from typing import Any

from analyzer import numbers
from analyzer.audit.audit import Audit
from analyzer.audit.identity import PART_WORDS
from analyzer.audit.ledger import OVER, UNDER, UNMEASURED, Calls, Ledger, Ratio, RouteLedger
from analyzer.audit.samples import completion_texts
from analyzer.audit.verdict import DIFFER, INCONCLUSIVE, IdentityVerdict
from analyzer.log.model import RunLog
from analyzer.log.table import log_table
from analyzer.safety.terminal_text import visible, visible_lines

CAVEAT = "A difference is evidence, not proof of substitution."


def _prompt_floor(v: IdentityVerdict) -> str:
    """Said when a prompt that differs alone cannot be named: its p-value is never below
    1 / (1 + permutations), and Benjamini-Hochberg's first step asks for alpha / prompts."""
    floor = 1 / (1 + v.permutations)
    if not v.tested_prompts or floor <= v.alpha / v.tested_prompts:
        return ""
    return (
        f"; a prompt's p-value cannot go below {floor:.3g} with {numbers.count(v.permutations)} "
        f"permutations, so one that differs alone among {numbers.count(v.tested_prompts)} cannot be named"
    )


def _identity_sentence(v: IdentityVerdict) -> str:
    if v.verdict == INCONCLUSIVE:
        return f"Identity: inconclusive: too few samples to test; it needs {v.needed}."
    rule = (
        f"combined test over {numbers.counted(v.tested_prompts, 'prompt')}, "
        f"{numbers.count(v.samples[0])} and {numbers.count(v.samples[1])} samples, "
        f"{numbers.count(v.permutations)} within-prompt permutations, alpha {v.alpha:g}"
        + (", prompts paired by task id alone (a log does not record them)" if v.by_id_only else "")
    )
    met = numbers.p_value(v.met_p_value, "MET baseline p")
    if v.verdict == DIFFER:
        what = PART_WORDS[v.differs_most or "opening"]
        alone = "differs on its own" if v.prompts_differing == 1 else "differ on their own"
        return (
            f"Identity: the routes differ ({numbers.p_value(v.p_value)}; {met}; {rule}); "
            f"{what} differs most; {numbers.counted(v.prompts_differing, 'prompt')} {alone} "
            f"(Benjamini-Hochberg at {v.alpha:g}{_prompt_floor(v)}). {CAVEAT}"
        )
    power = v.power
    could = (
        f"this sample would have caught a route sampling at {power.temperature:g} times the reference's "
        f"temperature {numbers.pct(power.power)} of the time (simulated from the reference's own samples, "
        f"{power.draws} draws, {power.varied_prompts} of {power.prompts} prompts vary)"
        if power
        else ""
    )
    found = f"Identity: no difference found ({numbers.p_value(v.p_value)}; {met}; {rule})"
    return f"{found}; not proof of the same model: {could}."


def _route_verdict(verdict: str) -> str:
    """ "the candidate is overbilled", but "unmeasured for the candidate" (nothing is said of it)."""
    return f"{verdict} for the candidate" if verdict == UNMEASURED else f"the candidate is {verdict}"


def ratio_text(name: str, r: Ratio) -> str:
    if r.ratio is None:
        return f"{name} tokens not recorded"
    verdict = r.verdict
    if r.undecided:  # a figure, but not enough to say which side of a threshold it is on
        if r.interval is None:
            verdict = f"{r.verdict}: one prompt, too few to tell"
        else:
            verdict = f"{r.verdict}: the interval reaches past {UNDER:g} or {OVER:g}, too few prompts to tell"
    return f"{name} tokens reported / counted {numbers.num_ci(r.ratio, r.interval, 3)} ({verdict})"


def reported_text(name: str, total: int | None) -> str:
    """A total kept apart from the ratio (cached, reasoning), or "not recorded"."""
    return f"{name} tokens {'not recorded' if total is None else f'reported {numbers.count(total)}'}"


def _apart(name: str, route: RouteLedger) -> str:
    cached, reasoning = (
        reported_text("cached prompt", route.cached),
        reported_text("reasoning", route.reasoning),
    )
    return f"{name} {cached}, {reasoning}"


def _left_out(t: Ledger) -> str:
    """The results whose prompt is not counted (left out of the prompt ratio), and why."""
    if not t.not_counted_why:
        return ""
    why = "; ".join(f"{numbers.counted(n, 'task')}: {visible(r)}" for r, n in t.not_counted_why)
    return (
        f" Left out of the prompt ratio: {numbers.counted(t.candidate.not_counted, 'candidate result')}"
        f" and {numbers.counted(t.reference.not_counted, 'reference result')} whose tools the cookbook's"
        f" rule does not cover ({why})."
    )


def _sentences(audit: Audit) -> list[str]:
    t, c = audit.tokens, audit.tool_calls
    how = "learnt from the reference route" if t.learnt else "the OpenAI cookbook's rule"
    tokens = (
        f"Tokens: {_route_verdict(t.verdict)}: {ratio_text('prompt', t.candidate.prompt)}, "
        f"{ratio_text('completion', t.candidate.completion)}; the reference reads "
        f"{ratio_text('prompt', t.reference.prompt)}, {ratio_text('completion', t.reference.completion)} "
        f"({t.encoding}, overhead {how}; overbilled above {OVER:g}, underbilled below {UNDER:g}, "
        "on the 95 % interval). Attempts a provider may bill: "
        f"{calls_text('candidate', t.candidate.calls)}; {calls_text('reference', t.reference.calls)}. "
        f"Kept apart: {_apart('candidate', t.candidate)}; {_apart('reference', t.reference)}." + _left_out(t)
    )
    if c.verdict == "unmeasured":
        calls = "Tool calls: unmeasured (a route made no call to a declared tool)."
    else:
        calls = (
            f"Tool calls: {c.verdict}: valid on the candidate {numbers.pct(c.candidate.share)} of "
            f"{numbers.counted(c.candidate.calls, 'call')}, on the reference "
            f"{numbers.pct(c.reference.share)} of "
            f"{numbers.counted(c.reference.calls, 'call')} ({numbers.p_value(c.p_value)}, one-sided Fisher)."
        )
    return [_identity_sentence(audit.identity), tokens, calls]


def ratio_json(r: Ratio) -> dict[str, Any]:
    return {
        "reported": r.reported,
        "counted": r.counted,
        "ratio": r.ratio,
        "interval": r.interval,
        "verdict": r.verdict,
        "results": r.results,
        "results_over": r.share_over,
        "results_under": r.share_under,
    }


def calls_text(name: str, calls: Calls) -> str:
    if calls.attempts is None:
        return f"{name}: {numbers.counted(calls.results, 'call')}, attempts not recorded"
    attempts = numbers.counted(calls.attempts, "attempt")
    return f"{name}: {attempts} for {numbers.counted(calls.recorded, 'call')}"


def audit_figures(audit: Audit) -> dict[str, Any]:
    """Every figure and sentence of an audit (what `--json` prints; the text is its `sentences`)."""
    v, t, c = audit.identity, audit.tokens, audit.tool_calls
    return {
        "identity": {
            "verdict": v.verdict,
            "p_value": v.p_value,
            "met_p_value": v.met_p_value,
            "alpha": v.alpha,
            "differs_most": v.differs_most,
            "parts_z": v.part_z,
            "prompts_tested": v.tested_prompts,
            "prompts_shared": v.shared_prompts,
            "samples": list(v.samples),
            "errors": list(v.errors),
            "permutations": v.permutations,
            "prompts_differing": v.prompts_differing,
            "multiple_testing": "Benjamini-Hochberg at alpha",
            "power": None if v.power is None else vars(v.power),
            "needed": v.needed,
            "prompts": [vars(p) for p in v.prompts[:20]],
            "caveat": CAVEAT,
        },
        "tokens": {
            "verdict": t.verdict,
            "prompt_ratio": t.candidate.prompt.ratio,
            "completion_ratio": t.candidate.completion.ratio,
            "encoding": t.encoding,
            "overhead": list(t.overhead),
            "overhead_learnt": t.learnt,
            "candidate": {
                "prompt": ratio_json(t.candidate.prompt),
                "completion": ratio_json(t.candidate.completion),
                "calls": vars(t.candidate.calls),
                "cached_reported": t.candidate.cached,
                "reasoning_reported": t.candidate.reasoning,
                "not_counted": t.candidate.not_counted,
            },
            "reference": {
                "prompt": ratio_json(t.reference.prompt),
                "completion": ratio_json(t.reference.completion),
                "calls": vars(t.reference.calls),
                "cached_reported": t.reference.cached,
                "reasoning_reported": t.reference.reasoning,
                "not_counted": t.reference.not_counted,
            },
            "not_counted_why": dict(t.not_counted_why),
        },
        "tool_calls": {
            "verdict": c.verdict,
            "p_value": c.p_value,
            "candidate": vars(c.candidate) | {"share": c.candidate.share},
            "reference": vars(c.reference) | {"share": c.reference.share},
        },
        "sentences": _sentences(audit),
    }


def audit_text(audit: Audit) -> str:
    """The audit for a terminal: its sentences, then the prompts that differ most (every line made
    visible: a task id from a log never emits a control character)."""
    figures = audit_figures(audit)
    lines = list(figures["sentences"])
    top = [p for p in audit.identity.prompts[:5] if audit.identity.p_value is not None]
    if top:
        lines.append("Prompts that differ most:")
        lines += [f"  {p.task_id}: {numbers.p_value(p.p_value)}, {PART_WORDS[p.part]}" for p in top]
    return visible_lines(lines)


def audit_html(audit: Audit) -> str:
    """The audit as one HTML page: the same sentences, then the prompts that differ most (offline)."""
    figures = audit_figures(audit)
    items = "".join(f"<p>{html.escape(s)}</p>" for s in figures["sentences"])
    rows = "".join(
        f"<tr><td>{html.escape(p.task_id)}</td><td>{html.escape(numbers.p_value(p.p_value))}</td>"
        f"<td>{html.escape(PART_WORDS[p.part])}</td><td>{'yes' if p.differs else 'no'}</td></tr>"
        for p in audit.identity.prompts[:20]
    )
    table = (
        "<table><tr><th>prompt</th><th>p</th><th>differs most in</th>"
        "<th>differs (Benjamini-Hochberg)</th></tr>"
        f"{rows}</table>"
        if rows
        else ""
    )
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>RerunLens route audit</title></head>'
        f'<body><section class="audit"><h1>Route audit</h1>{items}{table}</section></body></html>'
    )


def completions_side_by_side(
    reference: RunLog, candidate: RunLog, task_ids: list[str], per_route: int = 5
) -> list[dict[str, str]]:
    """The first completions of each prompt on each route, a row per prompt (answers as plain text)."""
    wanted = set(task_ids)
    found: dict[str, dict[str, list[str]]] = {t: {"reference": [], "candidate": []} for t in task_ids}
    for name, log in (("reference", reference), ("candidate", candidate)):
        cols = log_table(log).results
        texts = completion_texts(cols["answer"], cols["actions"])
        for task, answer in zip(cols["task_id"], texts, strict=True):
            tid = str(task)
            if tid in wanted and len(found[tid][name]) < per_route:
                found[tid][name].append(answer if isinstance(answer, str) else numbers.NONE)
    return [
        {
            "prompt": t,
            "reference": " | ".join(found[t]["reference"]),
            "candidate": " | ".join(found[t]["candidate"]),
        }
        for t in task_ids
    ]


def token_rows(audit: Audit) -> list[dict[str, Any]]:
    """Reported against counted tokens per route and kind (what the Audit view charts)."""
    t = audit.tokens
    return [
        {"route": route, "tokens": kind, "reported": r.reported, "counted": r.counted, "ratio": r.ratio}
        for route, ledger in (("reference", t.reference), ("candidate", t.candidate))
        for kind, r in (("prompt", ledger.prompt), ("completion", ledger.completion))
    ]


def tool_call_rows(audit: Audit) -> list[dict[str, Any]]:
    """Tool calls per route: made, valid JSON, declared tool, on schema, the valid share."""
    c = audit.tool_calls
    return [
        {
            "route": name,
            "calls": r.calls,
            "valid JSON": r.valid_json,
            "declared tool": r.declared,
            "on schema": r.schema_valid,
            "valid share": numbers.pct(r.share),
        }
        for name, r in (("reference", c.reference), ("candidate", c.candidate))
    ]
