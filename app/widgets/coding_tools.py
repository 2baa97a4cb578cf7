"""The "Coding tools" panel: the open log's pinned route as Claude Code, Codex and CC Switch settings
(each with a copy button), and the doctor's findings on this machine's settings files.

Everything comes from analyzer.coding_tools; the panel only picks the key variable and shows.
"""

from __future__ import annotations

import os

import streamlit as st

from analyzer.coding_tools import TOOL_NAMES, TOOLS, DoctorInputs, DoctorReport, export_route, run_doctor
from analyzer.coding_tools.doctor_checks import is_variable_name
from analyzer.coding_tools.export import checked_base_url, export_command
from analyzer.coding_tools.from_log import benchmark_fingerprints, profile_from_log
from analyzer.errors import RerunLensError
from analyzer.log.model import RunLog
from analyzer.routes.profile import DEFAULT_KEY_ENV, RouteProfile
from app.widgets import lazy
from app.widgets.messages import one_line_error, safe

SECTION = "routes.coding"
KEY_ENV = "routes.coding.key_env"
CHECK_ENV = "routes.coding.check_env"


def render(log: RunLog) -> None:
    """The panel for one log, built once opened (its tabs, code blocks and doctor are the heaviest
    part of the page): exports for its pinned route, then the doctor."""
    st.subheader("Coding tools")
    box = lazy.section("This route as Claude Code, Codex and CC Switch settings, and the doctor", SECTION)
    if box is None:
        return
    with box:
        _panel(log)


def _panel(log: RunLog) -> None:
    st.caption(
        "Point Claude Code, Codex or CC Switch at the route this log was pinned to. "
        "RerunLens never writes a key: the settings hold a placeholder or the name of the variable "
        "to read it from."
    )
    profile = _profile(log)
    if profile is not None:
        _exports(profile)
    _doctor(log, profile)


def _profile(log: RunLog) -> RouteProfile | None:
    try:
        profile = profile_from_log(log)
        checked_base_url(profile)
    except RerunLensError as exc:
        st.info(safe(one_line_error(exc)), icon=":material/info:")
        return None
    return profile


def _exports(profile: RouteProfile) -> None:
    key_env = st.text_input(
        "Key variable for the coding tools",
        value=profile.key_env,
        key=KEY_ENV,
        help="The environment variable Codex reads the gateway key from. A key of the coding tools' "
        "own keeps their usage apart from the benchmark's.",
    ).strip()
    if not is_variable_name(key_env):
        st.error("The key variable must be a variable name such as CODEX_GATEWAY_KEY, not a key.")
        return
    own = profile.model_copy(update={"key_env": key_env})
    for tab, tool in zip(st.tabs([TOOL_NAMES[t] for t in TOOLS]), TOOLS, strict=True):
        with tab:
            try:
                export = export_route(own, tool, benchmark_key_env=profile.key_env)
            except RerunLensError as exc:
                st.error(safe(one_line_error(exc)))
                continue
            st.code(export.text, language=export.format)
            st.caption("Or merge it into the tool's own file, keeping the other settings there:")
            st.code(export_command(own, tool), language="bash")
            for note in export.notes:
                st.info(safe(note), icon=":material/info:")
            for warning in export.warnings:
                st.warning(safe(warning), icon=":material/warning:")


def _doctor(log: RunLog, profile: RouteProfile | None) -> None:
    st.markdown("**Doctor**: the coding tools' settings on this machine")
    check_env = st.checkbox("Also check the dashboard's environment variables", key=CHECK_ENV)
    inputs = DoctorInputs(
        env=dict(os.environ) if check_env else None,
        benchmark_key_env=profile.key_env if profile is not None else DEFAULT_KEY_ENV,
        benchmark_fingerprints=tuple(benchmark_fingerprints(log)),
    )
    try:
        report = run_doctor(inputs)
    except RerunLensError as exc:
        st.error(safe(one_line_error(exc)))
        return
    _findings(report)


def _findings(report: DoctorReport) -> None:
    st.caption(safe("Checked: " + "; ".join(report.checked)))
    if report.ok:
        st.success("No mistake found.", icon=":material/check_circle:")
        return
    for f in report.findings:
        key = f.key.replace("`", "'")
        text = f"{safe(f.file)} · `{key}`: {safe(f.message)} Fix: {safe(f.fix)}"
        if f.severity == "error":
            st.error(text)
        else:
            st.warning(text)
