"""The Audit view's live audit: two base URLs the user types, each with a key variable under New run's
rules, the cost beside the button, the audit in the background (progress, Cancel, Continue after a
cancel or a failure, sending only what is not yet written), then its verdict and its evidence.

Everything here is `analyzer.audit.live` (the probe set, the cost sentence the CLI prints) and
`analyzer.jobs.audit_jobs` (the background job); the page only asks and shows.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analyzer.audit import audit_figures
from analyzer.audit.live import (
    SIMULATED_ROUTES,
    LiveAudit,
    LiveRoute,
    cost_sentence,
    left_cost_sentence,
    route_subject,
    same_keys,
    saved_route_subject,
)
from analyzer.audit.live_folder import Unfinished, routes_shown, unfinished_audits
from analyzer.audit.probes import probe_tasks
from analyzer.errors import RerunLensError
from analyzer.jobs.audit_jobs import AuditJob, audit_job, cancel_audit, start_audit
from analyzer.jobs.exposure import runs_refused
from analyzer.routes.profile import RouteProfile, build_profile
from analyzer.safety.keys import allowed_key_variables, check_key_variable
from app import data
from app.widgets import log_route
from app.widgets.audit_evidence import audit_evidence
from app.widgets.messages import escape

PREFIX = "audit.live."
JOB = PREFIX + "out"
"""The folder of the live audit this session started (its job is found by it)."""
POLL_S = 0.5


def live_audit_panel() -> None:
    """The form, the cost beside the start button, then the running or finished audit."""
    st.subheader("Live audit")
    st.caption(
        "Send a reference and a candidate route the same built-in probes (English, Chinese, tool calls), "
        "interleaved, at temperature 1, then test whether they serve the same thing. Both logs are "
        "written into the runs folder."
    )
    refused = runs_refused(st.get_option("server.address"))
    if refused is not None:
        st.error(escape(f"Live audits are off: {refused}."), icon=":material/lock:")
        return
    own = log_route.own_route()
    _unfinished(own)
    columns = st.columns(2)
    routes = [_route(label, own, col) for label, col in zip(("reference", "candidate"), columns, strict=True)]
    left, right = st.columns(2)
    model = left.text_input("Model (both routes)", value=own.model, key=PREFIX + "model").strip()
    samples = int(right.number_input("Samples per prompt", 2, 100, 10, key=PREFIX + "samples"))
    job = _job()
    if routes[0] is None or routes[1] is None:
        return
    confirmed = all(
        log_route.confirmed(profile, PREFIX + f"confirm.{route.label}", route_subject(route.label))
        for route, profile in (routes[0], routes[1])
    )
    live = LiveAudit(
        probe_tasks(), samples, routes[0][0], routes[1][0], model or own.model, 1.0, data.runs_dir()
    )
    left, right = st.columns([1, 2])
    running = job is not None and job.state == "running"
    right.caption(escape(cost_sentence(live)))
    if left.button(
        "Start the live audit", type="primary", disabled=running or not confirmed, key=PREFIX + "start"
    ):
        out = data.runs_dir() / f"audit-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S-%f')}"
        job = start_audit(dataclasses.replace(live, out=out), data.runs_dir())
        st.session_state[JOB] = str(job.out)
        st.rerun()  # the whole page again: the form shows the running audit, its button disabled
    if job is not None:
        _job_panel(job)


def _unfinished(own: RouteProfile) -> None:
    """The runs folder's unfinished live audits (a server restart forgets their jobs), each with what
    it kept and, once every route's host is confirmed as for a new audit, the cost left and Continue."""
    mine = st.session_state.get(JOB)  # this session's own audit has its Continue under the form
    found = [
        u
        for u in unfinished_audits(data.runs_dir(), probe_tasks())
        if str(u.out) != mine and not _running(u.out)
    ]
    if not found:
        return
    st.markdown("**Unfinished live audits in the runs folder**")
    for unfinished in found:
        with st.container(border=True):
            _unfinished_one(unfinished, own)


def _unfinished_one(unfinished: Unfinished, own: RouteProfile) -> None:
    name = unfinished.out.name
    st.markdown(escape(f"{name}: {unfinished.kept:,} of {unfinished.total:,} results written"))
    live = unfinished.audit
    if live is None:
        st.caption(escape(f"Cannot be continued here: {unfinished.why_not}"))
        return
    st.caption(escape(routes_shown(live)))
    confirmed = True
    for route in live.routes:
        try:
            profile = build_profile(
                use_env=False, overrides={"base_url": route.base_url, "key_env": route.key_env}
            )
            check_key_variable(profile.key_env, allowed_key_variables(own.key_envs()))
        except RerunLensError as exc:
            st.error(escape(exc.message), icon=":material/error:")
            return
        subject = saved_route_subject(route.label, live.out)
        confirmed &= log_route.confirmed(profile, PREFIX + f"resume.{name}.confirm.{route.label}", subject)
    try:
        same_keys(live, "page")
    except RerunLensError as exc:
        st.error(escape(exc.message), icon=":material/key_off:")
        return
    left, right = st.columns([1, 2])
    right.caption(escape(left_cost_sentence(live)))
    if left.button("Continue", disabled=not confirmed, key=PREFIX + f"resume.{name}"):
        job = start_audit(live, data.runs_dir())
        st.session_state[JOB] = str(job.out)
        st.rerun()


def _running(out: Path) -> bool:
    job = audit_job(out)
    return job is not None and job.state == "running"


def _route(label: str, own: RouteProfile, where: DeltaGenerator) -> tuple[LiveRoute, RouteProfile] | None:
    """One route's base URL and key variable, checked as New run checks them; None after its error."""
    with where:
        url = st.text_input(
            f"{label.capitalize()} base URL",
            key=PREFIX + f"{label}.url",
            placeholder="empty: the built-in simulator serves (offline)",
        ).strip()
        env = st.text_input(
            f"{label.capitalize()} key variable", value=own.key_env, key=PREFIX + f"{label}.env"
        )
        scenario = None
        if not url:
            played = st.selectbox("Simulated route", list(SIMULATED_ROUTES), key=PREFIX + f"{label}.sim")
            scenario = SIMULATED_ROUTES[played]
        try:
            profile = build_profile(
                use_env=False, overrides={"base_url": url, "key_env": env.strip() or None}
            )
            check_key_variable(profile.key_env, allowed_key_variables(own.key_envs()))
        except RerunLensError as exc:
            st.error(escape(exc.message), icon=":material/error:")
            return None
    return LiveRoute(label, profile.base_url or "", profile.key_env, scenario), profile


def _job() -> AuditJob | None:
    out = st.session_state.get(JOB)
    return audit_job(out) if out else None


def _job_panel(job: AuditJob) -> None:
    """Progress polled twice a second with Cancel; the verdict once both logs are in."""

    was_running = job.state == "running"

    @st.fragment(run_every=POLL_S if was_running else None)
    def progress() -> None:
        if job.state != "running":
            if was_running:  # finished while polled: the whole page shows its verdict
                st.rerun(scope="app")
            return
        st.progress(
            min(job.fraction, 1.0), text=f"Live audit running · {job.done:,} / {job.planned:,} requests"
        )
        st.button("Cancel", key=PREFIX + f"cancel.{job.job_id}", on_click=_cancel, args=(job.out,))

    progress()
    if job.state in ("failed", "cancelled"):
        st.warning(escape(f"Live audit {job.state}: {job.message or 'no reason recorded'}"))
        if job.live is not None and st.button("Continue this audit", key=PREFIX + f"continue.{job.job_id}"):
            start_audit(job.live, data.runs_dir())
            st.rerun()
    if job.state != "done" or job.result is None or job.logs is None or job.runs is None:
        return
    for sentence in audit_figures(job.result)["sentences"]:
        st.markdown(escape(sentence))
    written = " and ".join(str(Path(p)) for p in job.logs)
    st.caption(escape(f"Wrote {written}."))
    if job.message:
        st.caption(escape(job.message))
    audit_evidence(job.result, *job.runs, key=PREFIX + "evidence")


def _cancel(out: Path) -> None:
    cancel_audit(out)
