"""Audit: is one open log's route serving what the other's serves? The verdicts in sentences first,
then the evidence: the prompts that differ most with completions side by side, reported against
counted tokens, tool-call validity per route. Everything shown comes from `analyzer.audit`."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.audit import Audit, audit_figures, audit_logs
from analyzer.audit.audit import pair_to_audit
from analyzer.audit.journal_ledger import journal_ledger, journal_of
from analyzer.audit.journal_report import journal_sentence, journal_token_rows
from analyzer.errors import RerunLensError
from app import data
from app.widgets.audit_evidence import audit_evidence
from app.widgets.live_audit import live_audit_panel
from app.widgets.messages import escape

REFERENCE = "audit.reference"
CANDIDATE = "audit.candidate"


@st.cache_resource(show_spinner="Auditing…", max_entries=8)
def _audit(ref_token: str, cand_token: str, _ref: data.Group, _cand: data.Group) -> Audit | str:
    del ref_token, cand_token  # cache key only
    try:
        return audit_logs(_ref.loaded.log, _cand.loaded.log)
    except RerunLensError as err:
        return err.message


def render(selection: data.Selection | None = None) -> None:
    """Two open logs audited (verdicts, then evidence), then a live audit to start."""
    sel = selection or data.current()
    st.title("Audit")
    _two_logs(sel)
    st.divider()
    live_audit_panel()


def _two_logs(sel: data.Selection) -> None:
    """Pick the reference and the candidate log, then the verdicts and their evidence."""
    if len(sel.groups) < 2:
        st.info("Open two logs of the same prompts (a reference route and a candidate route) to audit.")
        _journal_ledgers(sel.groups)
        return
    labels = [g.label for g in sel.groups]
    first, second = pair_to_audit([g.loaded.log for g in sel.groups])
    left, right = st.columns(2)
    ref_label = left.selectbox("Reference route", labels, index=first, key=REFERENCE)
    cand_label = right.selectbox("Candidate route", labels, index=second, key=CANDIDATE)
    ref = sel.groups[labels.index(ref_label)]
    cand = sel.groups[labels.index(cand_label)]
    if ref_label == cand_label:
        st.info("Pick two different logs.")
        _journal_ledgers([ref])
        return
    result = _audit(f"{ref.source}:{ref.label}", f"{cand.source}:{cand.label}", ref, cand)
    if isinstance(result, str):
        st.error(escape(result))
        _journal_ledgers([ref, cand])
        return
    for sentence in audit_figures(result)["sentences"]:
        st.markdown(escape(sentence))
    audit_evidence(result, ref.loaded.log, cand.loaded.log, key="audit.logs")
    _journal_ledgers([ref, cand])


def _journal_ledgers(groups: list[data.Group]) -> None:
    """For each picked log that is a proxy journal or a wrapped run's log: the proxy's token verdict
    (the sentence `rerunlens audit JOURNAL` prints), then reported against counted as a chart."""
    for group in groups:
        try:
            journal = journal_of(group.source, group.loaded.log)
            ledger = journal_ledger(journal) if journal is not None else None
        except RerunLensError as err:
            st.error(escape(err.message))
            continue
        if ledger is None:
            continue
        st.subheader(escape(f"Tokens through the recording proxy: {group.label}"))
        st.markdown(escape(journal_sentence(ledger)))
        rows = pd.DataFrame(journal_token_rows(ledger))
        st.bar_chart(rows, x="tokens", y=["reported", "counted"], stack=False, x_label="", y_label="tokens")
        st.dataframe(rows, hide_index=True, width="stretch")


if __name__ == "__main__":
    render()
