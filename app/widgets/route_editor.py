"""The route editor: base URL (linted live), key variable or a session key, model and parameters.

Its fields are generated from the route profile's own metadata (`route_knobs`): a new route field
appears here, on the command line and in its help at once. The key is shown only as a fingerprint;
a key typed for the session lives in this session's memory only.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from analyzer.errors import RerunLensError
from analyzer.jobs.exposure import runs_refused
from analyzer.log.model import RunLog
from analyzer.routes.profile import RouteProfile, build_profile, knob_help, knob_kind, route_knobs
from analyzer.routes.url_lint import lint_base_url, redact_url
from analyzer.runner.preflight import check_route
from analyzer.runner.rerun_changes import changes_sentence, rerun_changes
from analyzer.runner.rerun_route import parent_settings, route_differences
from analyzer.safety.keys import (
    RunKeys,
    allowed_key_variables,
    check_key_variable,
    key_fingerprint,
    key_problem,
    read_keys,
)
from app.widgets.messages import escape, safe

ROUTE = "route."
"""Session-state prefix of the route editor (shared by both views, so a route set once carries over)."""
SESSION_KEY = "route.session_key"
"""A key typed for this session only (memory, never disk, URL or page)."""
KEY_INPUT = "route.key_input"
INHERITED_FROM = "route.inherited_from"
"""The parent log whose model and sampling the editor last took."""
DIAGNOSIS = "route.diagnosis"
NUMBER_FIELDS = [f for f, knob in route_knobs().items() if knob.step is not None]
"""The parameters row: every route field whose knob has a number step, in the profile's order."""


@dataclass(frozen=True)
class RouteChoice:
    """The route the user set: the analyzer's profile, and the session key when one was typed."""

    profile: RouteProfile
    api_key: str | None

    def keys(self) -> RunKeys:
        """The key(s) a job on this route will send, read now (a dirty key is refused in one line)."""
        return read_keys(self.profile.key_envs(), session_key=self.api_key)

    @property
    def fingerprint(self) -> str | None:
        """Fingerprint of the key the job will use (never the key)."""
        return read_keys([self.profile.key_env], session_key=self.api_key, check=False).fingerprint


def _defaults() -> RouteProfile:
    """The environment's profile (OPENAI_BASE_URL, ALTK_*), or the reproducibility-first defaults."""
    try:
        return build_profile()
    except RerunLensError as exc:
        st.warning(escape(f"Ignoring the environment's route settings: {exc.message}"))
        return build_profile(use_env=False)


def _seed_widgets() -> RouteProfile:
    defaults = _defaults()
    values = defaults.model_dump()
    for field in ("base_url", "key_env", "model", *NUMBER_FIELDS):
        st.session_state.setdefault(ROUTE + field, values[field] if values[field] is not None else None)
    if st.session_state.get(ROUTE + "base_url") is None:
        st.session_state[ROUTE + "base_url"] = ""
    return defaults


def _take_key() -> None:
    """Move a typed key out of the widget into session memory, and clear the widget."""
    typed = st.session_state.get(KEY_INPUT) or ""
    if typed.strip():
        st.session_state[SESSION_KEY] = typed.strip()
    st.session_state[KEY_INPUT] = ""


def _forget_key() -> None:
    st.session_state.pop(SESSION_KEY, None)


@st.fragment
def _base_url_editor() -> None:
    """The base URL, linted live as the user types (only this part reruns while typing)."""
    st.text_input(
        route_knobs()["base_url"].label,
        key=ROUTE + "base_url",
        live="400ms",
        placeholder="empty: the built-in simulator serves (offline)",
        help=knob_help("base_url"),
        persist_state="session",
    )
    url = st.session_state.get(ROUTE + "base_url") or ""
    if not url.strip():
        st.info(
            "No base URL configured: the built-in simulator serves this route, offline on this machine. "
            "Enter a base URL to use a real OpenAI-compatible endpoint.",
            icon=":material/dns:",
        )
        return
    report = lint_base_url(url)
    st.text(f"Calls {redact_url(report.call_url)}")
    for finding in report.findings:
        text = safe(f"{finding.message} Fix: {finding.fix}")
        (st.error if finding.severity == "error" else st.warning)(text)
    if report.suggested:
        st.text(f"Suggested base URL: {redact_url(report.suggested)}")
    if report.ok:
        st.caption("Base URL looks right.")


def _key_editor(profile: RouteProfile | None) -> None:
    left, right = st.columns(2)
    left.text_input(
        route_knobs()["key_env"].label,
        key=ROUTE + "key_env",
        help=knob_help("key_env"),
        persist_state="session",
    )
    session_key = st.session_state.get(SESSION_KEY)
    if session_key:
        right.text_input(
            "Key for this session",
            value="",
            disabled=True,
            placeholder="a key is set for this session",
            key=ROUTE + "key_set",
        )
        right.button("Forget the session key", on_click=_forget_key, key=ROUTE + "forget")
    else:
        right.text_input(
            "Or a key for this session only",
            type="password",
            key=KEY_INPUT,
            on_change=_take_key,
            help="Kept in this browser session's memory only: never written to disk, the URL or a log.",
        )
    if session_key:
        st.caption(f"Key: typed for this session · fingerprint {key_fingerprint(session_key)}")
        return
    if profile is None:  # the route was refused (one line above): read no variable for it
        return
    env = profile.key_env
    key = read_keys([env], check=False).keys[0]
    if profile.uses_simulator and not key:
        st.caption(f"Key: {env or '(none)'} is not set · the simulator needs no key")
    elif not key:
        st.caption(f"Key: {env or '(none)'} is not set in the server's environment")
    else:
        problem = key_problem(key)
        note = f" · looks like a {problem} key" if problem and problem != "empty" else ""
        st.caption(f"Key: from {env} · fingerprint {key_fingerprint(key)}{note}")


def _number(field: str, where: Any) -> None:
    knob = route_knobs()[field]
    is_int = knob_kind(field) is int
    value = st.session_state.get(ROUTE + field)
    if value is not None:
        st.session_state[ROUTE + field] = int(value) if is_int else float(value)
    step = knob.step or 1
    where.number_input(
        knob.label,
        key=ROUTE + field,
        step=int(step) if is_int else float(step),
        min_value=0 if is_int else 0.0,
        help=knob_help(field),
        persist_state="session",
    )


def inherit(settings: dict[str, Any], source: str) -> None:
    """Set the editor's model and sampling settings to a parent log's, once per parent.

    Call before `route_editor`. A re-run should change the route only: a different model or
    temperature would be mixed into the before/after.
    """
    if st.session_state.get(INHERITED_FROM) == source:
        return
    _seed_widgets()
    _use(settings)
    st.session_state[INHERITED_FROM] = source


def inherited_notice() -> None:
    """On New run: say when the editor still holds a re-run's parent settings, with a way back.

    The editor's state is shared by both views so a route set once carries over; a parent's
    provider and sampling carried into a new run unannounced would be a silent change of route.
    """
    source = st.session_state.get(INHERITED_FROM)
    if not source:
        return
    st.info(
        escape(f"The route below holds the settings taken from the re-run of {Path(source).name}."),
        icon=":material/history:",
    )
    st.button("Start from this server's defaults", key=ROUTE + "reset", on_click=_reset)


def _reset() -> None:
    """Forget the editor's values (a session key stays: the user typed it) and any parent's settings."""
    for name in [k for k in st.session_state if str(k).startswith(ROUTE) and k != SESSION_KEY]:
        del st.session_state[name]


def _use(settings: dict[str, Any]) -> None:
    for field, value in settings.items():
        st.session_state[ROUTE + field] = value


def differences_from(log: RunLog, choice: RouteChoice | None) -> None:
    """Say what the re-run changes besides the route (the analyzer's sentence, as the CLI says it),
    with a way back to the parent's settings where they differ."""
    if choice is None:
        return
    changes = rerun_changes(log, choice.profile)
    if not changes:
        st.caption(escape(changes_sentence(changes)))
        return
    st.warning(escape(changes_sentence(changes)), icon=":material/tune:")
    settings = parent_settings(log)
    if route_differences(settings, choice.profile):
        st.button("Use the parent's settings", key=ROUTE + "use_parent", on_click=_use, args=(settings,))


def route_editor() -> RouteChoice | None:
    """Base URL (linted live), key variable and fingerprint or a session key, model and parameters.

    Returns the route the analyzer built from them, or None after showing its one-line error.
    """
    refused = runs_refused(st.get_option("server.address"))
    if refused is not None:
        st.error(escape(f"Runs are off: {refused}."), icon=":material/lock:")
        return None
    defaults = _seed_widgets()
    _base_url_editor()
    st.text_input(route_knobs()["model"].label, key=ROUTE + "model", persist_state="session")
    cols = [*st.columns(4), *st.columns(4)]
    for col, field in zip(cols, NUMBER_FIELDS, strict=False):
        _number(field, col)
    profile: RouteProfile | None = None
    try:
        profile = build_profile(use_env=False, overrides=_overrides())
        check_key_variable(profile.key_env, allowed_key_variables(defaults.key_envs()))
    except RerunLensError as exc:
        profile = None
        st.error(escape(_as_labels(exc.message)), icon=":material/error:")
    _key_editor(profile)
    if profile is None:
        return None
    return RouteChoice(profile, st.session_state.get(SESSION_KEY))


def _as_labels(message: str) -> str:
    """The analyzer names a bad setting as its command-line flag (`--top-p='0.0': ...`); name the field."""
    labels = {knob.flag.removeprefix("--"): knob.label for knob in route_knobs().values()}
    match = re.match(r"--([a-z-]+)=(.*?): (.*)$", message)
    if not match or match.group(1) not in labels:
        return message
    return f"{labels[match.group(1)]} {match.group(2)}: {match.group(3)}"


def _overrides() -> dict[str, Any]:
    values: dict[str, Any] = {
        field: st.session_state.get(ROUTE + field) for field in ("key_env", "model", *NUMBER_FIELDS)
    }
    values["base_url"] = (st.session_state.get(ROUTE + "base_url") or "").strip()
    values["key_env"] = (values["key_env"] or "").strip() or None
    values["model"] = (values["model"] or "").strip() or None
    return values


PAGE_MAX_ROUNDS = 100
"""Most rounds a run started from a page may have (the CLI's `--repeat` allows more)."""


def rounds_input(key: str, default: int, running: int | None = None) -> int:
    """How many times each task runs; while a job runs (`running`: its rounds), its rounds, fixed,
    so that a reload never shows another number beside the running job's."""
    if running is not None:
        st.number_input(
            route_knobs()["rounds"].label,
            value=int(running),
            disabled=True,
            key=f"{key}.running",
            help="The running job's rounds: they can change once it has finished or been cancelled.",
        )
        return int(running)
    # A widget not drawn in a run loses its value, and it is not drawn while a job runs: the user's
    # number is kept under a plain key too, so a finished or cancelled job gives it back.
    chosen = f"{key}.chosen"
    st.session_state.setdefault(key, st.session_state.get(chosen, int(default)))
    # No min or max on the widget: the browser then refuses a number out of range without a word and
    # the button kept the old count; the number is taken, and one line says what is used instead.
    typed = int(st.number_input(route_knobs()["rounds"].label, step=1, key=key, help=knob_help("rounds")))
    used = _in_range(typed)
    st.session_state[chosen] = used
    return used


def optional_rounds_input(
    key: str, placeholder: str, help_text: str, running: int | None = None, *, frozen: bool = False
) -> int | None:
    """Like `rounds_input`, but empty by default: None (the `placeholder`'s rounds, e.g. a planner's
    per task) until the user types one number for every task. While a job runs: its one number
    (`running`), or empty and disabled (`frozen`: it runs the placeholder's)."""
    if running is not None:
        return rounds_input(key, running, running)
    if frozen:
        label = route_knobs()["rounds"].label
        st.number_input(label, value=None, placeholder=placeholder, disabled=True, key=f"{key}.frozen")
        return None
    chosen = f"{key}.chosen"
    st.session_state.setdefault(key, st.session_state.get(chosen))
    typed = st.number_input(
        route_knobs()["rounds"].label, step=1, key=key, placeholder=placeholder, help=help_text
    )
    used = None if typed is None else _in_range(int(typed))
    st.session_state[chosen] = used
    return used


def _in_range(typed: int) -> int:
    """The rounds a page runs for a typed number: clamped to 1..PAGE_MAX_ROUNDS, saying so when it is."""
    used = min(max(typed, 1), PAGE_MAX_ROUNDS)
    if used != typed:
        st.error(
            f"Rounds {typed:,} is out of range (1 to {PAGE_MAX_ROUNDS} here; more with `--repeat` on the "
            f"command line): {used:,} will run.",
            icon=":material/error:",
        )
    return used


# --- preflight ----------------------------------------------------------------------------------


def _route_token(choice: RouteChoice) -> str:
    payload = json.dumps([choice.profile.model_dump(mode="json"), choice.fingerprint], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def check_button(choice: RouteChoice | None, where: str) -> None:
    """'Check route': one minimal completion through the route, and the analyzer's diagnosis."""
    if st.button(
        "Check route",
        key=f"{where}.check",
        disabled=choice is None,
        icon=":material/network_check:",
        help="Sends one tiny chat completion through this route and says what came back.",
    ):
        assert choice is not None
        with st.spinner("Checking the route…"):
            shown: dict[str, object]
            try:
                diagnosis = check_route(choice.profile, api_key=choice.api_key)
                shown = {
                    "ok": diagnosis.ok,
                    "headline": diagnosis.headline,
                    "fix": diagnosis.fix,
                    "lines": diagnosis.lines(),
                }
            except RerunLensError as exc:
                shown = {"ok": False, "headline": exc.message, "fix": None, "lines": []}
            except Exception as exc:  # noqa: BLE001 - a page shows one line, never a traceback
                shown = {"ok": False, "headline": f"check failed ({type(exc).__name__})", "fix": None}
        st.session_state[DIAGNOSIS] = {"route": _route_token(choice), **shown}
    _show_diagnosis(st.session_state.get(DIAGNOSIS), choice)


def _show_diagnosis(shown: dict[str, Any] | None, choice: RouteChoice | None) -> None:
    """The last 'Check route' outcome, when it was for the route now chosen."""
    if not shown or choice is None or shown.get("route") != _route_token(choice):
        return
    if shown["ok"]:
        st.success(safe(f"Route works: {shown['headline']}"), icon=":material/check_circle:")
    else:
        fix = f" Fix: {shown['fix']}" if shown.get("fix") else ""
        st.error(safe(f"Route check failed: {shown['headline']}.{fix}"), icon=":material/error:")
    if shown.get("lines"):
        st.code("\n".join(shown["lines"]), language=None, wrap_lines=True)  # never cut on the right
