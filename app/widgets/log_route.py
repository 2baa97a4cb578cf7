"""A route taken from a log sends a key only where the user clicked to send it.

A shared log names a base URL and a key variable; before a re-run or a resample of it uses them,
the page shows the host and the variable and needs a click, remembered per host
(`analyzer.runner.rerun_route.confirm_log_route`, the same rule as the command line's `--yes`).
"""

from __future__ import annotations

import streamlit as st

from analyzer.errors import RerunLensError
from analyzer.routes.profile import RouteProfile, build_profile
from analyzer.runner.rerun_route import LOG_ROUTE, route_question
from analyzer.safety.trusted_hosts import remember
from app.widgets.messages import escape


def own_route() -> RouteProfile:
    """The server's own route (its environment), against which a log's route is judged."""
    try:
        return build_profile()
    except RerunLensError:
        return build_profile(use_env=False)


def confirmed(profile: RouteProfile, key: str, subject: str = LOG_ROUTE) -> bool:
    """True when `profile` sends its key only where this user's route does or where they clicked to.

    Otherwise shows the host and the variable with a button that confirms them, and returns False;
    `subject` names where the route comes from in the question (a log's route by default).
    """
    try:
        question = route_question(profile, own_route(), subject=subject)
    except RerunLensError as exc:
        st.error(escape(exc.message), icon=":material/key_off:")
        return False
    if question is None:
        return True
    st.warning(escape(f"{question.text()[0].upper()}{question.text()[1:]}."), icon=":material/key:")
    if st.button(escape(f"Send {question.key_env} to {question.origin}"), key=key):
        try:
            remember(question.origin, question.key_env)
        except RerunLensError as exc:
            st.error(escape(exc.message), icon=":material/error:")
            return False
        st.rerun()
    return False
