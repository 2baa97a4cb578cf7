"""A report to share: one self-contained HTML file (plotly's script inlined, no server, works offline).

For each log: the headline figures (with their intervals where the analysis provides them), the
route verdict and warnings, charts, the flagged tasks, the answer clusters of the inconsistent tasks,
retries and route drift; for several logs, a side-by-side table first. Every text that comes from a
log (labels, task ids, answers, URLs) is HTML-escaped, in tables and in charts alike.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

import analyzer.numbers as numbers
from analyzer.analysis import Analysis
from analyzer.log.field_labels import field_label
from analyzer.metrics.answer_keys import key_described
from analyzer.metrics.cost import CostFigures, cost_phrase, usd
from analyzer.metrics.route_drift import drift_sentence
from analyzer.report.cause_html import cause_section
from analyzer.report.said_once import said_once
from analyzer.verdicts.compare import compare

MAX_TASKS_WITH_CLUSTERS = 100
"""Inconsistent tasks whose clusters are listed (the least consistent first); the rest are counted."""
MAX_ANSWER_CHARS = 300
NONE = "—"
STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1200px;
padding:0 1rem;color:#1f2328;line-height:1.45}
h1{margin-bottom:.2rem}h2{margin-top:2.5rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
h3{margin-top:1.8rem}.meta{color:#59636e;font-size:.9rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.88rem;width:100%}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top;
overflow-wrap:break-word}
th{background:#f6f8fa;white-space:nowrap}td:first-child{white-space:nowrap}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.figs{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:.6rem;margin:.8rem 0}
.fig{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .7rem}
.fig .v{font-size:1.35rem;font-weight:600}.fig .l{color:#59636e;font-size:.8rem}
.fig .ci{color:#59636e;font-size:.8rem}
.ok{background:#dafbe1;padding:.5rem .8rem;border-radius:6px}
.warn{background:#fff8c5;padding:.5rem .8rem;border-radius:6px}
.scroll{overflow-x:auto}
"""


@dataclass(frozen=True)
class ReportEntry:
    """One log in the report: its label, where it came from, and the analyzer's results."""

    label: str
    source: str
    analysis: Analysis


def esc(value: object) -> str:
    """Any value as HTML text (a missing number as —)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NONE
    return html.escape(str(value), quote=True)


def render_report_html(entries: Sequence[ReportEntry], *, title: str = "RerunLens report") -> str:
    """The whole report as one HTML document (no external URL is referenced)."""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{esc(title)}</title><style>{STYLE}</style>",
        f"<script>{get_plotlyjs()}</script></head><body>",
        f"<h1>{esc(title)}</h1>",
        f"<p class='meta'>{numbers.counted(len(entries), 'log')} · written {stamp} by rerunlens · "
        "answer gap = share of tasks "
        "(with two or more answers) whose answers differ between rounds, in percentage points (pp).</p>",
    ]
    if len(entries) > 1:
        parts.append(_comparison(entries))
    for n, entry in enumerate(entries):
        parts.append(_log_section(entry, n))
    parts.append("</body></html>")
    return "\n".join(parts)


# --- sections -------------------------------------------------------------------------------------


def _comparison(entries: Sequence[ReportEntry]) -> str:
    result = compare([(e.label, e.analysis) for e in entries])
    table = result.table
    rows = [
        [
            esc(r.label),
            _pp(r.answer_gap_pp),
            _pp(r.outcome_gap_pp),
            _pct(r.pass_hat_n),
            _int(r.tokens_total),
            _int(r.extra_attempts),
            numbers.yes_no(r.route_pinned),
            _int(r.flagged),
        ]
        for r in table.itertuples(index=False)
    ]
    head = ["log", "answer gap", "outcome gap", "Pass^n", "tokens", "retries", "route pinned", "flagged"]
    flips = result.flips[result.flips["flipped"].astype(bool)] if "flipped" in result.flips else result.flips
    note = f"<p>{numbers.counted(len(flips), 'task')} flip between consistent and not across these logs"
    note += (": " + esc(", ".join(flips["task_id"].astype(str).head(40))) + "</p>") if len(flips) else ".</p>"
    return "<h2>Side by side</h2>" + _table(head, rows, numeric={1, 2, 3, 4, 5, 7}) + note


def _log_section(entry: ReportEntry, n: int) -> str:
    a = entry.analysis
    report = a.report()
    h = a.headline
    parts = [
        f"<h2 id='log-{n}'>{esc(entry.label)}</h2>",
        f"<p class='meta'>{esc(entry.source)} · run id {esc(a.log.run_id)} · answer key "
        f"{esc(key_described(h.answer_key, h.semantic_threshold, h.judge_model))} · "
        f"{h.tasks:,} tasks x {h.rounds:,} rounds · "
        f"{h.results:,} results</p>",
        _figures(report),
        f"<p class='{'ok' if h.route.held else 'warn'}'><b>Route:</b> {esc(h.route.verdict)}</p>",
    ]
    mismatches = [f"Stored summary disagrees: {m.message}" for m in h.summary_mismatches]
    warnings = said_once([*mismatches, *h.warnings])
    if warnings:
        parts.append("<div class='warn'><b>Warnings</b><ul>")
        parts += [f"<li>{esc(w)}</li>" for w in warnings]
        parts.append("</ul></div>")
    parts.append(_charts(a, n))
    parts += [cause_section(h.attribution, esc), _flagged(a), _clusters(a), _retries(report), _drift(a)]
    return "\n".join(parts)


def _figures(report: dict[str, Any]) -> str:
    outcome = report.get("outcome") or {}
    n = outcome.get("n")
    figures = [
        ("Answer gap", _pp(report.get("answer_gap_pp")), _interval(report, "answer_gap", "pp")),
        (
            "Answer consistency",
            _pct(report.get("answer_consistency_rate")),
            _interval(report, "answer_consistency", "%"),
        ),
        (
            "Outcome gap",
            _pp(outcome.get("outcome_gap_pp")) if outcome else "no grading",
            _interval(report, "outcome_gap", "pp"),
        ),
        ("Mean@n", _pct(outcome.get("mean_at_n")), _interval(report, "mean_at_n", "%")),
        (
            f"Pass^{n}" if n else "Pass^n",
            _pct((outcome.get("pass_hat_k") or {}).get(str(n))),
            _interval(report, "pass_hat_k", "%"),
        ),
        *_score_figure(report.get("score")),
        ("Tokens, total", _int((report.get("tokens") or {}).get("total")), ""),
        *_cost_figure(report.get("cost")),
        ("Retries", _int((report.get("retries") or {}).get("extra_attempts")), ""),
        ("Errored results", _int(report.get("errors")), ""),
        ("No answer", _int(report.get("no_answer")), ""),
        ("Flagged tasks", _int(len(report.get("flagged") or [])), ""),
    ]
    cells = [
        f"<div class='fig'><div class='l'>{esc(label)}</div><div class='v'>{numbers.recorded(value)}</div>"
        + (f"<div class='ci'>{ci}</div>" if ci else "")
        + "</div>"
        for label, value, ci in figures
    ]
    return "<div class='figs'>" + "".join(cells) + "</div>"


def _cost_figure(cost: Any) -> list[tuple[str, str, str]]:
    """The cost and where it comes from, in the words every view uses (`metrics.cost`)."""
    if not isinstance(cost, dict):
        return []
    figures = CostFigures.model_validate(cost)
    return [("Cost", esc(usd(figures.total_usd)), esc(cost_phrase(figures)))]


def _score_figure(score: Any) -> list[tuple[str, str, str]]:
    """`Mean reward` (or score) with its interval, when the results carry scores."""
    if not isinstance(score, dict):
        return []
    return [(f"Mean {score['name']}", f"{score['mean']:.3f}", numbers.ci(score["mean_ci"], digits=3))]


def _interval(report: dict[str, Any], name: str, unit: str) -> str:
    """`95 % CI a–b` when the analysis carries one for this figure (`<name>_ci` anywhere)."""
    found = _find_ci(report, name)
    if found is None:
        return ""
    low, high, level = found
    if unit == "%" and max(abs(low), abs(high)) <= 1.0:
        low, high = 100 * low, 100 * high
    return esc(f"{level} CI {low:.1f}{numbers.RANGE}{high:.1f}")


def _find_ci(report: dict[str, Any], name: str) -> tuple[float, float, str] | None:
    for scope in (report, report.get("outcome") or {}):
        for key, value in scope.items():
            if key.startswith(name) and key.endswith("_ci") and value is not None:
                return _bounds(value)
    return None


def _bounds(value: Any) -> tuple[float, float, str] | None:
    """[low, high] or {"low"/"lo", "high"/"hi", "level"?} as numbers and a level label."""
    level = "95 %"
    if isinstance(value, dict):
        low = value.get("low", value.get("lo", value.get("lower")))
        high = value.get("high", value.get("hi", value.get("upper")))
        if isinstance(value.get("level"), (int, float)):
            lv = float(value["level"])
            level = f"{lv * 100 if lv <= 1 else lv:g} %"
    elif isinstance(value, (list, tuple)) and len(value) >= 2:
        low, high = value[0], value[1]
    else:
        return None
    if not isinstance(low, (int, float)) or not isinstance(high, (int, float)):
        return None
    return float(low), float(high), level


def _flagged(a: Analysis) -> str:
    tasks = a.tasks[a.tasks["flagged"].astype(bool)]
    if tasks.empty:
        return "<h3>Flagged tasks</h3><p>None: every task gave one answer each round, on one route.</p>"
    rows = [
        [
            esc(r.task_id),
            esc(r.flag_reasons),
            _int(r.n_clusters),
            _pct(r.majority_share),
            _int(r.n_errors),
            _int(r.retries),
            esc(r.drift or NONE),
        ]
        for r in tasks.itertuples(index=False)
    ]
    head = ["task", "why flagged", "clusters", "majority", "errors", "retries", "route drift"]
    return f"<h3>Flagged tasks ({len(tasks)})</h3>" + _table(head, rows, numeric={2, 3, 4, 5})


def _clusters(a: Analysis) -> str:
    """The answer clusters of the inconsistent tasks, least consistent first."""
    tasks = a.tasks[a.tasks["consistent"].eq(False).fillna(False).astype(bool)]
    if tasks.empty:
        return "<h3>Answer clusters</h3><p>No inconsistent task.</p>"
    order = tasks.sort_values("majority_share", kind="stable")["task_id"].astype(str).tolist()
    shown = order[:MAX_TASKS_WITH_CLUSTERS]
    clusters = a.clusters.assign(task_id=a.clusters["task_id"].astype(str))
    parts = [f"<h3>Answer clusters of the {numbers.counted(len(order), 'inconsistent task')}</h3>"]
    if len(order) > len(shown):
        parts.append(f"<p class='meta'>The {len(shown)} least consistent are listed.</p>")
    head = ["cluster", "answers", "share", "representative answer", "rounds"]
    for task_id in shown:
        rows = [
            [
                _int(c.cluster),
                _int(c.size),
                _pct(c.share),
                esc(_shorten(c.representative)),
                esc(c.rounds),
            ]
            for c in clusters[clusters["task_id"] == task_id].itertuples(index=False)
        ]
        parts.append(f"<h4>{esc(task_id)}</h4>" + _table(head, rows, numeric={0, 1, 2}))
    return "\n".join(parts)


def _retries(report: dict[str, Any]) -> str:
    retries = report.get("retries") or {}
    rows = [[esc(k), _int(v)] for k, v in (retries.get("by_outcome") or {}).items()]
    rows += [[f"HTTP {esc(k)}", _int(v)] for k, v in (retries.get("by_status") or {}).items()]
    per = ", ".join(f"{_int(v)} with {esc(k)}" for k, v in (retries.get("retries_per_result") or {}).items())
    text = (
        f"<p>{_int(retries.get('attempts_total'))} HTTP attempts; {_int(retries.get('extra_attempts'))} "
        f"retries over {_int(retries.get('results_with_retry'))} results (results by retries: "
        f"{per or NONE}); "
        f"Retry-After seen {_int(retries.get('retry_after_seen'))} times.</p>"
    )
    if retries.get("attempts_total") is None:  # nothing recorded is not zero
        text = "<p>This log records no HTTP attempts: attempts and retries not recorded.</p>"
    return "<h3>Retries</h3>" + text + (_table(["attempts by", "count"], rows, numeric={1}) if rows else "")


def _drift(a: Analysis) -> str:
    route = a.headline.route
    routes = a.routes
    cols = list(routes.columns)
    rows = [[esc(_fmt_cell(v)) for v in r] for r in routes.itertuples(index=False)]
    fields = ", ".join(field_label(f) for f in route.drifted_fields) or "none"
    text = (
        f"<p>{numbers.counted(route.tuples, 'route tuple')}; fields that changed: {esc(fields)}. "
        f"{esc(drift_sentence(a.tasks['drifted']))}</p>"
    )
    if route.pinned is None:  # nothing recorded cannot be said to have not changed
        text = f"<p>{esc(route.verdict.split('. ')[0])}. {esc(drift_sentence(a.tasks['drifted']))}</p>"
    table = f"<div class='scroll'>{_table([field_label(c) for c in cols], rows)}</div>" if rows else ""
    return "<h3>Route drift</h3>" + text + table


def _charts(a: Analysis, n: int) -> str:
    figs = [_pass_k(a), _cluster_counts(a)]
    html_figs = [
        f.to_html(
            full_html=False, include_plotlyjs=False, div_id=f"fig-{n}-{i}", config={"displaylogo": False}
        )
        for i, f in enumerate(figs)
        if f is not None
    ]
    return "\n".join(html_figs)


def _pass_k(a: Analysis) -> go.Figure | None:
    outcome = a.headline.outcome
    if outcome is None:
        return None
    ks = list(outcome.pass_hat_k)
    fig = go.Figure()
    fig.add_scatter(x=ks, y=[100 * outcome.pass_hat_k[k] for k in ks], name="Pass^k (all k succeed)")
    fig.add_scatter(x=ks, y=[100 * outcome.pass_at_k[k] for k in ks], name="Pass@k (any succeeds)")
    fig.update_traces(mode="lines+markers", hovertemplate="k %{x}: %{y:.1f} %<extra></extra>")
    fig.update_xaxes(title_text="k (rounds)", dtick=1, tickformat="d")
    fig.update_yaxes(title_text="tasks (%)", range=[0, 102], ticksuffix=" %", tickformat=".0f")
    return _layout(fig, "Success as rounds are added")


def _cluster_counts(a: Analysis) -> go.Figure | None:
    counts = a.tasks["n_clusters"].dropna().astype(int).value_counts().sort_index()
    if counts.empty:
        return None
    fig = go.Figure(
        go.Bar(
            x=[str(k) for k in counts.index],
            y=counts.to_numpy(),
            text=[f"{v:,}" for v in counts],
            textposition="outside",
            textangle=0,
            hovertemplate="%{x} distinct answers: %{y:,} tasks<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="distinct answers per task", type="category")
    fig.update_yaxes(title_text="tasks (count)", tickformat=",d", rangemode="tozero")
    return _layout(fig, "How many distinct answers each task gave")


def _layout(fig: go.Figure, title: str) -> go.Figure:
    fig.update_layout(
        title={"text": esc(title), "x": 0},
        height=340,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        separators=".,",
        template="plotly_white",
    )
    return fig


# --- cells ------------------------------------------------------------------------------------------


def _table(head: list[str], rows: list[list[str]], numeric: set[int] | None = None) -> str:
    """A table from already-escaped cells (`head` is escaped here)."""
    numeric = numeric or set()
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join(
        "<tr>"
        + "".join(f"<td class='n'>{c}</td>" if i in numeric else f"<td>{c}</td>" for i, c in enumerate(r))
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _pp(value: object) -> str:
    return NONE if _missing(value) else numbers.pp(float(value))  # type: ignore[arg-type]


def _pct(value: object) -> str:
    return NONE if _missing(value) else numbers.pct(float(value))  # type: ignore[arg-type]


def _int(value: object) -> str:
    return NONE if _missing(value) else numbers.count(value)  # type: ignore[arg-type]


def _fmt_cell(value: object) -> object:
    if _missing(value):
        return NONE
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _shorten(text: object) -> str:
    s = "(no answer)" if _missing(text) else str(text)
    return s if len(s) <= MAX_ANSWER_CHARS else s[: MAX_ANSWER_CHARS - 1] + "…"
