"""The token ledger of two logs: tokens each route reported against tokens counted here, offline.

Counted prompt tokens are the task prompt's tokens plus an overhead per request (the chat format, a
system prompt the log does not record) learnt from the reference route as the mean of its reported
minus its prompt's tokens; without reported figures on the reference, the cookbook's rule for one
user message. Counted completion tokens are the visible answer and each tool call's name and
arguments text (as the recording proxy counts a completion) plus the reference's mean extra (hidden
reasoning, end tokens, a call's framing). So the reference reads exactly 1 by construction, and the
candidate's ratio says how far its bill strays from what the reference's would be for the same text.
Ratios are sums over results; the 95 % interval is over prompts (results of one prompt move
together), on the log of the ratio with a small-sample t (`_interval`). Verdicts: `overbilled`
when the interval lies above `OVER`, `underbilled` when it lies below `UNDER`, `as counted` otherwise,
`unmeasured` when no result has both figures.
A task that carries tool definitions has them counted by the cookbook's rule (`prompt_rule`) with
its prompt; where the rule does not cover them, its results are left out of the prompt ratio, and the
ledger says how many and why.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analyzer.log.model import RunLog, TaskSpec, ToolCallStep
from analyzer.log.table import log_table
from analyzer.log.task_set import task_ids
from analyzer.metrics.prompt_rule import ToolList, Uncovered, tools_tokens
from analyzer.metrics.token_count import PER_MESSAGE, REPLY_PRIMING, count_text, encoding_name

OVER = 1.05
UNDER = 0.95
OVERBILLED, AS_COUNTED, UNDERBILLED, UNMEASURED = "overbilled", "as counted", "underbilled", "unmeasured"
COOKBOOK_PROMPT_OVERHEAD = PER_MESSAGE + 1 + REPLY_PRIMING
"""One user message by the cookbook's rule: its 3 tokens, the role's 1, the reply's 3."""


@dataclass(frozen=True)
class Ratio:
    reported: int
    counted: int
    ratio: float | None
    interval: tuple[float, float] | None
    results: int
    verdict: str
    share_over: float | None = None
    """Share of results whose own reported / counted is above `OVER`."""
    share_under: float | None = None
    """Share of results whose own reported / counted is below `UNDER`."""

    @property
    def undecided(self) -> bool:
        """A figure whose interval does not settle it: it reaches past a threshold (or there is no
        interval: fewer than two prompts), so no verdict is said."""
        return self.ratio is not None and self.verdict == UNMEASURED


@dataclass(frozen=True)
class Calls:
    """Logical calls (results) against HTTP attempts: a retried request is one the provider may bill."""

    results: int
    attempts: int | None
    """Attempts recorded over the results that record them; None when no result records attempts."""
    recorded: int
    """Results that record their attempts."""


@dataclass(frozen=True)
class RouteLedger:
    prompt: Ratio
    completion: Ratio
    calls: Calls
    cached: int | None = None
    """Cached prompt tokens the route reported over its answered results (kept apart: they are part of
    the prompt, billed at another price); None when no result's usage gives them."""
    reasoning: int | None = None
    """Reasoning tokens it reported (part of the completion, never visible); None when not given."""
    not_counted: int = 0
    """Answered results left out of the prompt ratio: their task's tools are outside the rule."""


@dataclass(frozen=True)
class Ledger:
    encoding: str
    overhead: tuple[float, float]
    """Prompt and completion tokens added per request to what is counted (learnt or the cookbook's)."""
    learnt: bool
    reference: RouteLedger
    candidate: RouteLedger
    not_counted_why: tuple[tuple[str, int], ...] = ()
    """Why tasks' prompts are not counted, with how many tasks each (both logs' tasks)."""

    @property
    def verdict(self) -> str:
        return combined_verdict(self.candidate.prompt, self.candidate.completion)


def combined_verdict(*ratios: Ratio) -> str:
    """A route's verdict over its ratios: overbilled or underbilled when one is; `as counted` only when
    no ratio that has a figure is undecided (its interval reaching past a threshold); else unmeasured."""
    verdicts = {r.verdict for r in ratios}
    for v in (OVERBILLED, UNDERBILLED):
        if v in verdicts:
            return v
    if any(r.undecided for r in ratios):
        return UNMEASURED
    return AS_COUNTED if AS_COUNTED in verdicts else UNMEASURED


def _texts(log: RunLog, encoding: str, counted: dict[str, float]) -> dict[str, np.ndarray]:
    """Per answered result: its task (a group number), reported and counted prompt and answer tokens,
    and whether its prompt was left out (its task's tools are outside the rule)."""
    cols = log_table(log).results
    prompt_tokens = {str(t.task_id): task_prompt(t, encoding, counted)[0] for t in log.tasks or []}
    ok = np.asarray(pd.Series(cols["status"], dtype=object).eq("ok").to_numpy(), dtype=bool)
    ids = pd.Series(task_ids(log), dtype=object)[ok]
    answers = pd.Series(cols["answer"], dtype=object)[ok]
    unique = {a: _text_tokens(a, encoding, counted) for a in answers.unique() if isinstance(a, str)}
    left_out = {k for k, v in prompt_tokens.items() if np.isnan(v)}
    answer = answers.map(unique).to_numpy(np.float64, na_value=np.nan)
    return {
        "task": pd.factorize(ids)[0],
        "prompt_reported": _floats(cols["prompt_tokens"], ok),
        "completion_reported": _floats(cols["completion_tokens"], ok),
        "prompt_content": ids.map(prompt_tokens).to_numpy(np.float64, na_value=np.nan),
        "answer": _with_calls(answer, call_tokens(log, ok, encoding, counted)),
        "cached": _floats(cols["cached_tokens"], ok),
        "reasoning": _floats(cols["reasoning_tokens"], ok),
        "left_out": ids.astype(str).isin(left_out).to_numpy(dtype=bool),
    }


def _with_calls(answer: np.ndarray, calls: np.ndarray | None) -> np.ndarray:
    """A completion's tokens: its answer's plus its tool calls'; NaN when it has neither."""
    if calls is None:
        return answer
    return np.where(np.isnan(answer), calls, np.nan_to_num(answer) + np.nan_to_num(calls))


def call_tokens(log: RunLog, ok: np.ndarray, encoding: str, counted: dict[str, float]) -> np.ndarray | None:
    """Per answered result, its tool calls' tokens (each call's name and arguments text, as the proxy
    counts a completion), NaN where it made none; None when no answered result made a call.

    The `actions` column says which results made calls, so a log without calls never has its result
    objects built; one with calls has them built once (the recorded arguments text is not a column).
    """
    actions = log_table(log).results["actions"]
    rows = [i for i, (a, keep) in enumerate(zip(actions, ok, strict=True)) if keep and a and a != "[]"]
    if not rows:
        return None
    flat = [r for rnd in log.runs for r in rnd]
    out = np.full(len(flat), np.nan)
    for i in rows:
        out[i] = sum(
            _text_tokens(step.name, encoding, counted)
            + _text_tokens(arguments_text(step.arguments), encoding, counted)
            for step in flat[i].trajectory or []
            if isinstance(step, ToolCallStep)
        )
    return out[ok]


def arguments_text(arguments: Any) -> str:
    """A call's arguments as the model wrote them: the text where the log recorded it (the wire
    format's string); an object a harness parsed as compact JSON in its recorded key order with its
    characters unescaped, the form OpenAI's models write arguments in; None as no text."""
    if isinstance(arguments, str):
        return arguments
    return "" if arguments is None else _COMPACT.encode(arguments)


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)


def _text_tokens(text: str, encoding: str, counted: dict[str, float]) -> float:
    if text not in counted:
        counted[text] = float(count_text(text, encoding))
    return counted[text]


def task_prompt(task: TaskSpec, encoding: str, counted: dict[str, float]) -> tuple[float, str | None]:
    """A task's prompt text and tool definitions counted (NaN, and why, when its tools are outside
    the cookbook's rule); the chat overhead is added apart. Prompt counts are kept in `counted`."""
    tools = (task.model_extra or {}).get("tools")
    if task.prompt not in counted:
        counted[task.prompt] = float(count_text(task.prompt, encoding))
    if not tools:
        return counted[task.prompt], None
    tokens = tools_tokens(ToolList(tools if isinstance(tools, list) else [tools], []), encoding)
    if isinstance(tokens, Uncovered):
        return float("nan"), tokens.reason
    return counted[task.prompt] + tokens, None


def _not_counted_why(
    logs: tuple[RunLog, RunLog], encoding: str, counted: dict[str, float]
) -> tuple[tuple[str, int], ...]:
    """The reasons tasks' prompts are not counted, with how many tasks each (a task once)."""
    tasks = {str(t.task_id): t for log in logs for t in log.tasks or []}
    why = Counter(task_prompt(t, encoding, counted)[1] for t in tasks.values())
    return tuple((reason, n) for reason, n in why.most_common() if reason is not None)


def _floats(values: Any, ok: np.ndarray) -> np.ndarray:
    """A column of counts as floats, NaN where not recorded, answered results only."""
    return pd.to_numeric(pd.Series(values, dtype=object)).to_numpy(np.float64, na_value=np.nan)[ok]


def sum_ratio(reported: np.ndarray, counted: np.ndarray, tasks: np.ndarray) -> Ratio:
    both = np.isfinite(reported) & np.isfinite(counted)
    if not both.any() or counted[both].sum() <= 0:
        return Ratio(0, 0, None, None, 0, UNMEASURED)
    r, c, t = reported[both], counted[both], tasks[both]
    _, group = np.unique(t, return_inverse=True)
    r_sum, c_sum = np.bincount(group, r), np.bincount(group, c)
    ratio = float(r.sum() / c.sum())
    interval = _interval(r_sum, c_sum, ratio)
    verdict = ratio_verdict(interval)
    own = r / np.maximum(c, 1e-9)
    over, under = float((own > OVER).mean()), float((own < UNDER).mean())
    return Ratio(int(r.sum()), int(round(c.sum())), ratio, interval, int(both.sum()), verdict, over, under)


def ratio_verdict(interval: tuple[float, float] | None) -> str:
    """`overbilled` when the 95 % interval lies above `OVER`, `underbilled` when below `UNDER`,
    `as counted` when it lies between them; else `unmeasured`: the interval reaches past a threshold
    (too few prompts, or too much spread, to tell), or there is none (fewer than two prompts)."""
    if interval is None:
        return UNMEASURED
    low, high = interval
    if low > OVER:
        return OVERBILLED
    if high < UNDER:
        return UNDERBILLED
    return AS_COUNTED if low >= UNDER and high <= OVER else UNMEASURED


T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262)
"""The t distribution's 97.5 % quantile for 1 to 9 degrees of freedom (statistical tables)."""


def t_quantile(df: float, z: float = 1.959963984540054) -> float:
    """The t distribution's 97.5 % quantile: the table below 10 degrees of freedom (a fractional df
    rounded down, the wider side), the Cornish-Fisher expansion from 10 on (within 0.001 there)."""
    if df < 10:
        return T_975[max(int(df), 1) - 1]
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def _interval(r_sum: np.ndarray, c_sum: np.ndarray, ratio: float) -> tuple[float, float] | None:
    """95 % interval of a ratio of sums over prompts, on the log of the ratio (a ratio of sums is
    skewed: its upper side is the longer one): the ratio's standard error as a weighted mean of the
    prompts' own ratios, weights their counted tokens, with the CR2 small-sample correction and
    Bell-McCaffrey degrees of freedom (`_spread`; below 1 they read as 1, a fraction is rounded
    down). None with fewer than 2 prompts. Its coverage by regime is measured in
    scripts/bench_audit.py (`--ledger-only`) and checked in tests/audit/test_ledger_interval.py."""
    if len(r_sum) < 2:
        return None
    if ratio <= 0:  # nothing reported: every prompt reads 0, so there is no spread either
        return 0.0, 0.0
    se, df = _spread(r_sum, c_sum, ratio)
    half = t_quantile(max(df, 1.0)) * se / ratio
    return float(ratio * np.exp(-half)), float(ratio * np.exp(half))


def _spread(r_sum: np.ndarray, c_sum: np.ndarray, ratio: float) -> tuple[float, float]:
    """Standard error and degrees of freedom of the ratio of sums, a mean of the prompts' ratios
    weighted by their counted tokens w. The CR2 variance sum(u^2 / (1 - w)) (u a prompt's weighted
    residual) is scaled so it is unbiased when the prompts' ratios spread alike, and the degrees of
    freedom are Satterthwaite's for it (Bell and McCaffrey 2002): tr(B)^2 / tr(B^2) with
    B = M' A M, M = I - 1 w', A = diag(w^2 / (1 - w)); few prompts, or a few long ones that carry
    the sum, give few degrees of freedom. Written out in O(prompts): B = A - a w' - w a' + S w w'."""
    total = c_sum.sum()
    w = c_sum / total
    a = w**2 / np.maximum(1 - w, 1e-12)
    u = (r_sum - ratio * c_sum) / total
    s, ww, aw, aa = a.sum(), (w * w).sum(), (a * w).sum(), (a * a).sum()
    trace = s * (1 + ww) - 2 * aw
    # tr(B^2) = tr(A^2) + 2 tr(A L) + tr((K G)^2): L = U K U' the low-rank rest of B, U = (a, w),
    # K = [[0, -1], [-1, S]], G = U'U
    cross = (a * (s * w**2 - 2 * a * w)).sum()
    kg = np.array([[-aw, -ww], [s * aw - aa, s * ww - aw]])
    df = trace**2 / (aa + 2 * cross + float(np.trace(kg @ kg)))
    variance = float((u**2 / np.maximum(1 - w, 1e-12)).sum()) * ww / trace
    return float(np.sqrt(max(variance, 0.0))), float(df)


def _mean_gap(reported: np.ndarray, counted: np.ndarray) -> float | None:
    """The per-request tokens that make the route's reported sum equal its counted sum."""
    both = np.isfinite(reported) & np.isfinite(counted)
    return float(np.mean(reported[both] - counted[both])) if both.any() else None


def token_ledger(reference: RunLog, candidate: RunLog) -> Ledger:
    """Both routes' reported tokens against the counted ones, the overhead learnt from the reference."""
    model = (reference.route.model if reference.route else None) or next(
        (m for m in log_table(reference).results["served_model"] if m), None
    )
    enc = encoding_name(model)
    counted: dict[str, float] = {}  # both logs hold the same prompts: each text is counted once
    ref, cand = _texts(reference, enc, counted), _texts(candidate, enc, counted)
    gap_p = _mean_gap(ref["prompt_reported"], ref["prompt_content"])
    gap_c = _mean_gap(ref["completion_reported"], ref["answer"])
    learnt = gap_p is not None
    over_p = gap_p if gap_p is not None else float(COOKBOOK_PROMPT_OVERHEAD)
    over_c = gap_c if gap_c is not None else 0.0

    def route(cols: dict[str, np.ndarray], log: RunLog) -> RouteLedger:
        return RouteLedger(
            sum_ratio(cols["prompt_reported"], cols["prompt_content"] + over_p, cols["task"]),
            sum_ratio(cols["completion_reported"], cols["answer"] + over_c, cols["task"]),
            _calls(log),
            reported_total(cols["cached"]),
            reported_total(cols["reasoning"]),
            int(cols["left_out"].sum()),
        )

    why = _not_counted_why((reference, candidate), enc, counted)
    return Ledger(enc, (over_p, over_c), learnt, route(ref, reference), route(cand, candidate), why)


def reported_total(values: np.ndarray) -> int | None:
    """A column's sum, None when no value is recorded (not 0)."""
    return int(np.nansum(values)) if np.isfinite(values).any() else None


def _calls(log: RunLog) -> Calls:
    counts = [n for n in log_table(log).results["n_attempts"] if n is not None]
    total = len(log_table(log).results["task_id"])
    return Calls(total, sum(counts) if counts else None, len(counts))
