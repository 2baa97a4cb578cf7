"""The HTML report's route-or-model section: counts by the shared rule, the rule, each task's test.

Plain HTML (no script, nothing fetched), every text escaped: the report stays one offline page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from analyzer.metrics.attribution import Attribution, attribution_caption
from analyzer.metrics.route_factors import side_counts

_LIST_AT_MOST = 200


def cause_section(items: Sequence[Attribution], esc: Callable[[object], str]) -> str:
    """`<h3>Route or model</h3>`, the counts (`verdict_counts`), their rule and interval, the table."""
    if not items:
        return "<h3>Route or model, from the log</h3><p>No inconsistent task.</p>"
    counts = side_counts(items)
    shown = " · ".join(f"<b>{n}</b> {esc(c)}" for c, n in counts.items())
    head = ["task", "cause", "factor", "p", "q", "passes", "evidence"]
    rows = []
    for a in items[:_LIST_AT_MOST]:
        cells = [
            a.task_id,
            a.cause,
            a.factor or "—",
            "—" if a.p_value is None else f"{a.p_value:.3g}",
            "—" if a.q_value is None else f"{a.q_value:.3g}",
            "yes" if a.passes else "no",
            a.evidence,
        ]
        rows.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    more = (
        f"<p class='meta'>... and {len(items) - _LIST_AT_MOST} more (analyze --json lists all)</p>"
        if len(items) > _LIST_AT_MOST
        else ""
    )
    table = (
        "<div class='scroll'><table><thead><tr>"
        + "".join(f"<th>{esc(h)}</th>" for h in head)
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
    )
    return (
        "<h3>Route or model, from the log</h3>"
        f"<p>{shown}</p><p class='meta'>{esc(attribution_caption(items))}</p>{table}{more}"
    )
