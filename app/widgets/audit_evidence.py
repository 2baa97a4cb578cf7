"""An audit's evidence, under its verdict sentences: the prompts that differ most with completions side
by side, reported against counted tokens as a chart and a table, tool-call validity per route. Shared
by the Audit view's two logs and its live audit; every row comes from `analyzer.audit`."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analyzer.audit import Audit, completions_side_by_side, token_rows, tool_call_rows
from analyzer.log.model import RunLog
from app import charts


def audit_evidence(result: Audit, reference: RunLog, candidate: RunLog, key: str) -> None:
    """The evidence of `result`, the audit of `reference` against `candidate`; `key` tells this
    section's chart from another's on the same page."""
    top = [p.task_id for p in result.identity.prompts[:5]]
    if top:
        st.subheader("Prompts that differ most")
        rows = completions_side_by_side(reference, candidate, top)
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.subheader("Tokens: reported against counted")
    tokens = pd.DataFrame(token_rows(result))
    st.plotly_chart(charts.reported_against_counted(tokens), key=f"{key}.tokens")
    st.dataframe(tokens, hide_index=True, width="stretch")
    st.subheader("Tool calls")
    st.dataframe(pd.DataFrame(tool_call_rows(result)), hide_index=True, width="stretch")
