"""Wrapped harness runs on the dashboard: the Watch page following a proxy journal, and the Re-run
page's "through Inspect/promptfoo" choice with the exact commands. Lays out what `analyzer.proxy`
returns; runs nothing itself."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analyzer.errors import RerunLensError
from analyzer.log.model import RunLog
from analyzer.proxy.harness_rerun import PROMPT_ONLY, harness_command, harness_of, rerun_through_command
from analyzer.proxy.watch import ProxyProgress, watch_proxy
from app import fmt
from app.widgets import figures
from app.widgets.messages import escape

POLL_S = 1.0
THROUGH = "rerun.through"


def follow(journal: str) -> None:
    """A wrapped run's requests, 429s, retries and tokens, live; per sample once it is joined."""

    @st.fragment(run_every=POLL_S)
    def live() -> None:
        try:
            state = watch_proxy(journal)
        except RerunLensError as exc:
            st.error(escape(exc.message), icon=":material/error:")
            return
        _show(state)

    live()


def _show(state: ProxyProgress) -> None:
    status = "stopped" if state.finished else "running"
    st.caption(escape(f"{state.label or state.journal.name} · proxy {status} · {state.journal}"))
    figures.row(
        [
            ("Requests", fmt.count(state.requests), "HTTP attempts the proxy forwarded."),
            ("Calls", fmt.count(state.calls), "Client calls: an attempt and its retries."),
            ("429s", fmt.count(state.rate_limited)),
            ("Retries", fmt.count(state.retries)),
            ("Tokens", fmt.count(state.tokens)),
        ]
    )
    if state.per_sample is not None:
        st.markdown("**Per sample** (the harness's log, joined)")
        st.dataframe(state.per_sample, hide_index=True, key="watch.proxy.samples", placeholder=fmt.NONE)
    st.markdown("**Per distinct request** (its messages' hash)")
    st.dataframe(state.per_request, hide_index=True, key="watch.proxy.requests", placeholder=fmt.NONE)


def through_choice(log: RunLog, parent: Path, ids: list[str], rounds: int) -> bool:
    """For a log a harness made: re-run through it, or prompt only. True when the harness is chosen
    (the page then shows the commands instead of its prompt re-run button)."""
    made_by = harness_of(log)
    if made_by is None:
        return False
    name = {"inspect-ai": "Inspect", "promptfoo": "promptfoo"}.get(made_by[0], made_by[0])
    options = [f"through {name} (the agent itself)", PROMPT_ONLY]
    picked = st.radio(
        "How to re-run", options, key=THROUGH, help="A prompt re-run sends each task's prompt once."
    )
    if picked == PROMPT_ONLY:
        st.caption(escape(f"This log was made by {name}: a prompt re-run is {PROMPT_ONLY}."))
        return False
    st.markdown("Run this in a terminal (the route options as for `rerunlens run`):")
    st.code(rerun_through_command(parent, ids, rounds), language="bash")
    try:
        command = harness_command(
            log, ids, rounds, parent.with_name(parent.name.split(".")[0] + ".rerun.harness")
        )
    except RerunLensError as exc:
        st.warning(escape(exc.message), icon=":material/warning:")
        return True
    st.markdown(f"It runs {escape(name)} under `rerunlens wrap` on the pinned route:")
    st.code(command.shown(), language="bash")
    return True
