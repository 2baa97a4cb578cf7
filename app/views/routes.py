"""Routes: which routes the calls took, where they changed, base URL lint, and who is to blame."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.log.field_labels import field_label
from analyzer.metrics.route_drift import drift_sentence, drifted_figure
from analyzer.metrics.route_factors import side_counts
from analyzer.report.route_tables import drift_by_field, route_tuples
from analyzer.routes.url_lint import lint_base_url
from app import data, fmt
from app.widgets import cause_table, coding_tools, figures, lazy, static_table
from app.widgets.messages import escape, text_box

CAUSES = "routes.causes"
PINNED_HELP = (
    "One key, base URL and set of parameters for every call: what you can pin. The provider's backend "
    "(served model, fingerprint) is not part of it; a change there is named in the verdict above."
)
DRIFTED_HELP = "Tasks whose own runs did not all use one route or one provider backend."


def render(selection: data.Selection | None = None) -> None:
    """The route verdict, the route tuples, drifted tasks, lint findings and the blame split."""
    sel = selection or data.current()
    st.title("Routes")
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar to see the routes its calls took.")
        return
    fmt.group_caption(group, sel.key)
    analysis = group.analysis
    route = analysis.headline.route
    count = drifted_figure(analysis.tasks["drifted"])

    if route.held:
        st.success(escape(route.verdict), icon=":material/check_circle:")
    else:
        st.warning(escape(route.verdict), icon=":material/alt_route:")
    figures.row(
        [
            (
                "Your route pinned",
                {True: "yes", False: "no", None: "not recorded"}[route.pinned],
                PINNED_HELP,
            ),
            ("Route tuples", fmt.count(route.tuples)),
            ("Drifted tasks", count.figure, f"{DRIFTED_HELP} {count.note}".strip()),
            ("Fields that changed", fmt.count(len(route.drifted_fields))),
        ]
    )
    if route.drifted_fields:
        st.text("Changed during the run: " + ", ".join(field_label(f) for f in route.drifted_fields))

    st.subheader("Route tuples")
    tuples = route_tuples(analysis.routes)
    st.caption("Every distinct route a result or attempt was sent with, most used first.")
    if tuples.shared:
        st.text("The same in all of them: " + " · ".join(f"{k} {v}" for k, v in tuples.shared.items()))
    static_table.render(tuples.rows, key="routes.tuples")

    st.subheader("Where it changed")
    drifted = drift_by_field(analysis)
    st.text(drift_sentence(analysis.tasks["drifted"]))
    if not drifted.empty:
        st.caption("Each drifted task and the values it saw of each field that changed (empty: one value).")
        static_table.render(drifted, key="routes.drifted")

    st.subheader("Base URL lint")
    _lint(analysis.routes)

    st.subheader("Inconsistent tasks: route or model?")
    st.caption(
        "From the log alone, per task: each route factor (key, effective base URL, parameters, backend, "
        "retry state) tested against the answers by an exact permutation test (p, Bonferroni within the "
        "task), then Benjamini-Hochberg across tasks (q). `route`: a factor passes at q <= 0.05 and "
        "explains the answers; `both`: it passes and answers also vary within it; `model`: answers vary "
        "within one route and no factor explains them though the rounds could have shown one; "
        "`inconclusive`: too few rounds (with the rounds a pinned re-run needs); `unmeasured`: no route "
        "recorded."
    )
    items = analysis.headline.attribution
    if not items:
        st.text("No inconsistent task.")
    else:
        counts = side_counts(items)
        st.text(" · ".join(f"{n} {c}" for c, n in counts.items()))
        box = lazy.section(
            f"The cause of each of the {len(items):,} inconsistent tasks, with its evidence", CAUSES
        )
        if box is not None:
            with box:
                cause_table.render(items, key="routes.cause")
    coding_tools.render(group.loaded.log)


def _lint(routes: pd.DataFrame) -> None:
    urls = [u for u in pd.unique(routes["base_url"].dropna()) if str(u)] if "base_url" in routes else []
    if not urls:
        st.text("This log records no base URL.")
        return
    for url in urls:
        report = lint_base_url(str(url))
        text_box(f"{url}\n→ calls {report.call_url}")
        if report.ok:
            st.text("No problem found.")
        for finding in report.findings:
            text = f"{finding.message} Fix: {finding.fix}"
            if finding.severity == "error":
                st.error(escape(text))
            else:
                st.warning(escape(text))
        if report.suggested:
            st.text(f"Suggested base URL: {report.suggested}")


if __name__ == "__main__":
    render()
