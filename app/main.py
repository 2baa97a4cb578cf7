"""RerunLens dashboard entry: only routes. `streamlit run app/main.py [-- --runs-dir DIR]`."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:  # so `app` and `analyzer` import from any working directory
    sys.path.insert(0, str(HERE.parent))

import streamlit as st  # noqa: E402

from analyzer.jobs.exposure import request_refused, serving_refused  # noqa: E402
from app import sidebar  # noqa: E402
from app.widgets.messages import escape  # noqa: E402

VIEWS = HERE / "views"


def refuse_unsafe_requests() -> None:
    """Stop before any page when the server listens beyond loopback without the switch, or when the
    request comes under a foreign Host name (DNS rebinding) or from another site's Origin."""
    address = st.get_option("server.address")
    refused = serving_refused(address) or request_refused(dict(st.context.headers or {}), address)
    if refused is not None:
        st.error(escape(f"Refused: {refused}."), icon=":material/lock:")
        st.stop()


# An emoji icon is drawn inline; a `:material/...:` one makes every page load fetch it from Google.
st.set_page_config(page_title="RerunLens", page_icon="🔁", layout="wide")
refuse_unsafe_requests()
page = st.navigation(
    {
        "Logs": [
            st.Page(VIEWS / "overview.py", title="Overview", icon=":material/dashboard:", default=True),
            st.Page(VIEWS / "runs.py", title="Runs", icon=":material/table_rows:", url_path="runs"),
            st.Page(VIEWS / "tasks.py", title="Tasks", icon=":material/checklist:", url_path="tasks"),
            st.Page(VIEWS / "tokens.py", title="Tokens", icon=":material/toll:", url_path="tokens"),
            st.Page(VIEWS / "retries.py", title="Retries", icon=":material/replay:", url_path="retries"),
            st.Page(VIEWS / "routes.py", title="Routes", icon=":material/alt_route:", url_path="routes"),
        ],
        "Experiments": [
            st.Page(
                VIEWS / "compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"
            ),
            st.Page(VIEWS / "rerun.py", title="Re-run", icon=":material/restart_alt:", url_path="rerun"),
            st.Page(VIEWS / "new_run.py", title="New run", icon=":material/play_arrow:", url_path="new-run"),
            st.Page(VIEWS / "watch.py", title="Watch a run", icon=":material/visibility:", url_path="watch"),
            st.Page(VIEWS / "history.py", title="History", icon=":material/timeline:", url_path="history"),
            st.Page(VIEWS / "audit.py", title="Audit", icon=":material/verified:", url_path="audit"),
        ],
    }
)
sidebar.render()
page.run()
