"""Re-run: the flagged (or inconsistent, or hand-picked) tasks of the focused log, one pinned route,
the planner's rounds per task (the plan `rerunlens rerun` runs), one button, and the verdict.

If the tasks turn consistent once the route is pinned, the route was the likely cause; if they stay
inconsistent, the model is. The job runs in the background (analyzer.jobs.manager), so a reload or a second
tab finds it again instead of starting another.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import streamlit as st

from analyzer.errors import RerunLensError
from analyzer.jobs.manager import JobStatus
from analyzer.jobs.uploads import store_log_upload
from analyzer.log.model import RunLog
from analyzer.metrics.answer_keys import AnswerKey
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import redact_url
from analyzer.runner.parent_route import (
    parent_route_path,
    parent_route_plan,
    parent_route_profile,
)
from analyzer.runner.pinned_rerun import (
    RerunRequest,
    Selection,
    default_rerun_path,
    pinned_profile,
    rerun_plan,
)
from analyzer.runner.rerun_changes import parent_tool, unknown_provider
from analyzer.runner.rerun_route import (
    Consent,
    parent_provider,
    parent_settings,
)
from analyzer.verdicts.before_after import (
    RULE,
    VERDICT_TEXT,
    Verdict,
    tasks_with,
    verdict_phrase,
)
from analyzer.verdicts.default_rerun import DEFAULT_SELECTION, DefaultRerun, default_rerun, selected_ids
from analyzer.verdicts.rerun_sentences import Topic, VerdictLine, verdict_sentences
from app import data, fmt, log_folders
from app.widgets import figures, harness_runs, job_panel, log_route, route_editor, task_files
from app.widgets.messages import escape, one_line_error

PICK_COLUMNS = {
    "rerun": st.column_config.CheckboxColumn("re-run", help="Untick a task to leave it out."),
    "task_id": st.column_config.TextColumn("task"),
    "reasons": st.column_config.TextColumn("why flagged"),
    "n_clusters": st.column_config.NumberColumn("clusters"),
    "majority_share": st.column_config.ProgressColumn(
        "majority", min_value=0.0, max_value=1.0, format="percent"
    ),
    "n_errors": st.column_config.NumberColumn("errors"),
    "retries": st.column_config.NumberColumn("retries"),
    "drift": st.column_config.TextColumn(
        "route drift",
        width="medium",
        help="The route fields that changed within the task (Routes lists the values).",
    ),
}
AFTER_COLUMNS = {
    "task_id": st.column_config.TextColumn("task"),
    "verdict_text": st.column_config.TextColumn("verdict", width="medium"),
    "clusters": st.column_config.TextColumn("clusters", help="Distinct answers, before → after."),
    "consistent": st.column_config.TextColumn("consistent", help="One answer every round, before → after."),
    "tokens": st.column_config.TextColumn("tokens per result", help="Mean tokens, before → after."),
    "retries": st.column_config.TextColumn("retries", help="HTTP retries, before → after."),
    "reason": st.column_config.TextColumn("why", width="large", help="The evidence behind the verdict."),
}
"""The before/after table: one `before → after` column per figure, so the whole row fits the page."""
VERDICT_ICONS: dict[Topic, str] = {
    "changes": ":material/tune:",
    "chance": ":material/casino:",
    "route": ":material/alt_route:",
    "both": ":material/alt_route:",
    "inconclusive": ":material/help:",
    "model": ":material/psychology:",
    "nothing": ":material/info:",
}
"""The icon of each verdict sentence, by what it is about."""
COMPARE_VIEW = "views/compare.py"
PICKED_PARAM = "rerun"
"""The URL parameter naming tasks to tick by hand (a link's promise of exactly those tasks)."""
PRESET = "rerun.preset"
SELECTIONS = {
    "flagged": "Flagged tasks (inconsistent, drifted or errored)",
    "inconsistent": "Inconsistent tasks",
    "pick": "Pick by hand",
}
"""The Re-run page's choices, as `rerunlens rerun --only`; the default is the CLI's."""
PLAN_COLUMNS = {
    "task_id": st.column_config.TextColumn("task"),
    "rounds": st.column_config.NumberColumn(
        "pinned rounds", help="The rounds this task runs on the pinned route."
    ),
    "parent_route_rounds": st.column_config.NumberColumn(
        "parent's route", help="Rounds on the parent's own key and base URL rotation beside the pinned ones."
    ),
    "decides": st.column_config.TextColumn(
        "decides", help="Whether these rounds decide the task if they agree."
    ),
    "needs": st.column_config.TextColumn("what it needs", width="large"),
}
"""The plan beside the button: per task, the rounds it runs and what they can decide."""
PLANNER_ROUNDS = "planner's"
"""The Rounds field's placeholder while it is empty."""
ROUNDS_HELP = (
    "Empty: each task runs the planner's fewest rounds that decide it, as `rerunlens rerun` does. A number: "
    "every task runs that many, as `rerunlens rerun --repeat N`."
)
EMPTY = {
    "inconsistent": "No task is inconsistent under the {key} answer key: every task gave one answer each "
    "round. Nothing to re-run (the flagged choice also lists drifted or errored tasks).",
    "flagged": "No task is flagged under the {key} answer key: every task gave one answer each round, on "
    "one route, without errors. Nothing to re-run.",
    "pick": "This log has no tasks.",
}
VERDICT_ORDER: tuple[Verdict, ...] = (
    "route",
    "both",
    "model",
    "inconclusive",
    "regressed",
    "unmeasured",
    "stable",
)
"""The table's order of verdicts; each row's phrase is `before_after.verdict_phrase`."""


def render(selection: data.Selection | None = None) -> None:
    """Tasks to re-run, the route, the button with its progress, and the before/after verdict."""
    sel = selection or data.current()
    st.title("Re-run")
    st.caption(
        "Re-run the unstable tasks of a log on one pinned route, then ask of each task whether its answers "
        "follow a route factor (keys, base URLs, parameters, backends, retries) beyond chance."
    )
    group = sel.focus
    if group is None:
        st.info("Pick a run log in the sidebar: its flagged tasks appear here, ready to re-run.")
        return
    fmt.group_caption(group, sel.key)
    parent = _parent_path(group)
    if parent is None:
        _offer_copy(group)
        return
    job = _find_job(parent)
    running = job is not None and job.active

    st.subheader("Tasks to re-run")
    tasks_file, defined = _task_definitions(group, parent)
    picked, ids = _pick_tasks(group, sel.key, defined, running=job.task_ids if job and running else None)
    if harness_runs.through_choice(group.loaded.log, parent, ids, len(group.loaded.log.runs)):
        return

    st.subheader("Route")
    inherited = parent_settings(group.loaded.log)
    provider = parent_provider(group.loaded.log)
    route_editor.inherit({**provider.profile_base(), **inherited}, str(parent))  # the same provider
    choice = route_editor.route_editor()
    route_editor.check_button(choice, "rerun")

    st.subheader("Run")
    choice, allow_simulator, blocked = _simulator_switch(group.loaded.log, choice, disabled=running)
    route_editor.differences_from(group.loaded.log, choice)
    request = RerunRequest(  # the page's own analysis: the parent is not analysed again for the re-run
        group.loaded.log,
        picked,
        str(parent),
        tasks_file,
        sel.key,
        allow_simulator=allow_simulator,
        analysis=group.analysis,
        leave_out=st.session_state.get("rerun.selection", DEFAULT_SELECTION) != "pick",  # as the CLI's named
    )
    job = _run_button(request, ids, choice, job, sendable=defined is not None and not blocked) or job
    if job is None:
        st.caption("No re-run of this log yet.")
        return
    job = job_panel.job_panel(job, noun="re-run", api_key=choice.api_key if choice else None)
    if job.state == "done":
        job_panel.open_when_finished(job)
        _before_after(job, sel.key)


def _simulator_switch(
    log: RunLog, choice: route_editor.RouteChoice | None, *, disabled: bool
) -> tuple[route_editor.RouteChoice | None, bool, bool]:
    """For a provider's log only: "Re-run on the built-in simulator instead" (off by default).

    Returns the route to use (switched on: the same route without its base URL), allow_simulator,
    and blocked: True while the route would reach the simulator with the switch off, since the
    before/after would then compare a provider with a simulator.
    """
    provider = parent_provider(log)
    if not (provider.real or unknown_provider(log)) or choice is None:
        return choice, False, False
    where = (
        redact_url(provider.base_url) if provider.base_url else f"{parent_tool(log)}, no provider recorded"
    )
    on = st.toggle(
        "Re-run on the built-in simulator instead",
        value=False,
        key="rerun.allow_simulator",
        disabled=disabled,
        help=f"This log came from {where}. On the simulator the before/after compares that provider with "
        "a simulator: it tests the page and the flow, not the provider's route.",
    )
    if on:
        st.caption(
            escape(
                f"The re-run goes to the built-in simulator, not {where}; its log is labelled (simulated)."
            )
        )
        return replace(choice, profile=choice.profile.model_copy(update={"base_url": None})), True, False
    if choice.profile.uses_simulator:
        st.warning(
            escape(
                f"This log came from {where}, but the route above has no base URL, so the re-run would go "
                "to the built-in simulator. Give the same provider's base URL and key, or switch on the "
                "simulator on purpose."
            ),
            icon=":material/alt_route:",
        )
        return choice, False, True
    return choice, False, False


def _run_button(
    request: RerunRequest,
    ids: list[str],
    choice: route_editor.RouteChoice | None,
    job: JobStatus | None,
    *,
    sendable: bool,
) -> JobStatus | None:
    """The default re-run's plan (`verdicts.default_rerun`, the one `rerunlens rerun` runs and
    `rerun --dry-run` prints): rounds per task, what cannot be decided and why, and its requests and
    tokens beside the one button; one number of rounds for all when typed. While a re-run runs, the
    button names it and is disabled.

    `ids` are the tasks the request selects; `sendable` is False while a log without task
    definitions still lacks the task file with its prompts.
    """
    running = job is not None and job.active
    # a running job ran one number for all when its results are tasks x rounds, else the planner's
    one_number = job is not None and running and job.total == len(job.task_ids) * job.rounds
    with st.columns([1, 2])[0]:
        fixed = job.rounds if job is not None and one_number else None
        rounds = route_editor.optional_rounds_input(
            "rerun.rounds", PLANNER_ROUNDS, ROUNDS_HELP, fixed, frozen=running and not one_number
        )
    leave_out = request.leaves_out()
    offered = default_rerun(request.parent_analysis, ids, rounds, leave_out=leave_out)
    beside, allowed = _parent_route_choice(request, offered, choice, disabled=running)
    if beside is not None:
        planned = default_rerun(request.parent_analysis, ids, rounds, True, leave_out=leave_out)
    else:
        planned = offered
    _plan_table(planned)
    label = f"Re-run {len(planned.tasks)} tasks x {planned.rounds_text()} rounds on this route"
    if not planned.tasks:  # every task left out: the plan above says why and what would run them
        label = "Nothing to re-run on this route"
    if job is not None and running:
        each = str(job.rounds) if one_number else f"up to {job.rounds}"
        label = f"Re-running {len(job.task_ids)} tasks x {each} rounds on this route…"
    ready = choice is not None and bool(planned.tasks) and sendable and not running and allowed
    ready = ready and choice is not None and log_route.confirmed(choice.profile, "rerun.confirm_host")
    ready = ready and (beside is None or log_route.confirmed(beside, "rerun.confirm_parent_host"))
    for sentence in planned.cost_sentences():  # the cost right above the button, its label in full
        st.caption(escape(sentence))
    if st.button(label, type="primary", disabled=not ready, key="rerun.start", icon=":material/replay:"):
        return _start(replace(request, with_parent_route=beside is not None), planned, choice, beside)
    return None


def _plan_table(planned: DefaultRerun) -> None:
    """The plan's sentences and, per task, its pinned rounds and what they can decide; a task left out
    reads "not run", with why and what would run it."""
    for sentence in planned.plan_sentences():
        st.caption(escape(sentence))
    if not planned.tasks and not planned.left_out:
        return
    decides = {True: "yes", False: "no", None: fmt.NONE}
    left = planned.left_out
    table = pd.DataFrame(
        {
            "task_id": [t.task_id for t in planned.tasks] + [t.task_id for t in left],
            "rounds": pd.array([t.rounds for t in planned.tasks] + [None] * len(left), dtype="Int64"),
            "parent_route_rounds": pd.array(
                [t.parent_route_rounds for t in planned.tasks] + [None] * len(left), dtype="Int64"
            ),
            "decides": [decides[t.decides] for t in planned.tasks] + ["not run"] * len(left),
            "needs": [t.needs for t in planned.tasks] + [f"{t.why}; {t.runs_it}" for t in left],
        }
    )
    if not planned.parent_route_rounds():  # no rounds on the parent's route: room for what each needs
        table = table.drop(columns="parent_route_rounds")
    st.dataframe(
        table,
        column_config=PLAN_COLUMNS,
        hide_index=True,
        height=min(38 + 35 * len(table), 320),
        placeholder=fmt.NONE,
        key="rerun.plan",
    )


def _parent_route_choice(
    request: RerunRequest, offered: DefaultRerun, choice: route_editor.RouteChoice | None, *, disabled: bool
) -> tuple[RouteProfile | None, bool]:
    """`rerun --with-parent-route` as a checkbox, when the plan proposes rounds on the parent's own
    route: the route those rounds take (None: not asked for) and False when refused (said why on the
    page). Their cost stands beside the button with the pinned rounds'."""
    if not offered.proposes_parent_route() or choice is None:
        return None, True
    on = st.checkbox(
        "Also run the planner's proposals on the parent's own route",
        key="rerun.with_parent_route",
        disabled=disabled,
        help="Rounds on the key and base URL rotation the parent's log recorded, beside the pinned ones: "
        "they decide tasks no pinned rounds can. Each key variable must be one your route names (or "
        "RERUNLENS_KEY_VARIABLES lists). The same as `rerunlens rerun --with-parent-route`.",
    )
    if not on:
        return None, True
    try:
        pinned = pinned_profile(choice.profile)
        return parent_route_profile(request.parent, pinned, log_route.own_route()), True
    except RerunLensError as exc:
        st.error(escape(exc.message), icon=":material/key_off:")
        return None, False


def _parent_path(group: data.Group) -> Path | None:
    """The log's file in the runs folder; None for an upload (a re-run must name its parent file)."""
    if group.source.endswith(data.UPLOAD_SUFFIX):
        return None
    path = log_folders.log_path(data.runs_dir(), group.source)
    return path if path.is_file() else None


def _offer_copy(group: data.Group) -> None:
    """An uploaded log has no file a re-run could name as its parent: offer to keep a copy in the folder."""
    st.info(
        "This log was uploaded, so a re-run has no file to name as its parent. Keep a copy in your runs "
        f"folder ({escape(data.runs_dir())}) to re-run its tasks; the copy opens in its place.",
        icon=":material/upload_file:",
    )
    uploads = data.opened_uploads()
    sources = data.upload_sources([u.name for u in uploads])
    upload = next((u for u, source in zip(uploads, sources, strict=True) if source == group.source), None)
    if upload is None:
        return
    if st.button("Copy it into the runs folder", key="rerun.copy_upload", icon=":material/save:"):
        try:
            path = store_log_upload(
                data.runs_dir(), upload.name, upload.getvalue(), lambda line: st.warning(escape(line))
            )
        except Exception as exc:  # noqa: BLE001 - one line on the page, never a traceback
            st.error(escape(f"Could not copy {upload.name}: {one_line_error(exc)}"))
            return
        job_panel.open_log(path, focus=True)


def _find_job(parent: Path) -> JobStatus | None:
    """The running re-run of this log, else its newest one: what a reload or a second tab shows."""
    mgr = job_panel.manager()
    active = mgr.active("rerun", parent=parent)
    return active[0] if active else mgr.latest("rerun", parent=parent)


def _task_definitions(group: data.Group, parent: Path) -> tuple[Path | None, set[str] | None]:
    """Where the prompts come from: the log itself (format 2 with `tasks`), or a task file.

    A task file named like the log (`X.tasks.json` beside `X.json` or `X.altk_runs.json`) is picked
    at first. Returns the task file (None when the log carries its tasks) and the ids that have a
    definition (None when none can be sent yet).
    """
    log = group.loaded.log
    if log.tasks:
        return None, {str(t.task_id) for t in log.tasks}
    kind = "a format-1 log" if log.version == 1 else "a format-2 log without a `tasks` list"
    beside = sibling_task_file(parent)
    st.info(
        f"This log records answers but not the prompts that produced them ({kind}), so its tasks cannot "
        "be sent again on their own. Give the task file the run used: its prompts are matched to the log "
        "by task_id. A task file saved beside the log as "
        f"`{escape(_task_file_stem(parent))}.tasks.json` is picked for you"
        + (" (found: it is picked below)." if beside else "."),
        icon=":material/description:",
    )
    path, specs = task_files.task_file_picker(
        "rerun", label="Prompts", default_sample=False, preferred=beside
    )
    if path is None:
        return None, None
    return path, {str(t.task_id) for t in specs}


def _task_file_stem(parent: Path) -> str:
    return parent.name.removesuffix(".json").removesuffix(".altk_runs")


def sibling_task_file(parent: Path) -> Path | None:
    """`X.tasks.json` beside the log `X.json` / `X.altk_runs.json`, when it exists."""
    path = parent.with_name(_task_file_stem(parent) + ".tasks.json")
    return path if path.is_file() else None


def _pick_tasks(
    group: data.Group, key: AnswerKey, defined: set[str] | None, *, running: list[str] | None
) -> tuple[Selection, list[str]]:
    """Flagged (the CLI's default), inconsistent, or a hand pick, as `rerunlens rerun --only`; a
    checkbox each. While a re-run runs (`running`: its task ids), its tasks, ticked and fixed: after a
    reload the page's default pick could name other tasks than the job runs.

    Returns the request's selection (`inconsistent` or `flagged` while every such task is ticked,
    else the ticked ids) and the ticked ids.
    """
    disabled = running is not None
    preset = _linked_tasks(group.analysis.tasks)
    mode = st.radio(
        "Which tasks",
        list(SELECTIONS),
        index=list(SELECTIONS).index(DEFAULT_SELECTION),
        format_func=SELECTIONS.__getitem__,
        key="rerun.selection",
        horizontal=True,
        disabled=disabled,
        help="The same choice as `rerunlens rerun --only inconsistent | flagged | TASK_ID …`.",
    )
    tasks = group.analysis.tasks
    if running is not None:
        rows = tasks[tasks["task_id"].astype(str).isin(running)]
        st.caption(
            f"The running re-run's {fmt.counted(len(rows), 'task')}: the choice is open again once it has "
            "finished or been cancelled."
        )
        return running, _ticked(group, rows, "running", key, disabled=True)
    ids = tasks["task_id"].astype(str)
    inconsistent = ids.isin(selected_ids(tasks, "inconsistent"))
    chosen = {
        "inconsistent": tasks[inconsistent],
        "flagged": tasks[ids.isin(selected_ids(tasks, "flagged"))],
        "pick": tasks.assign(_o=~inconsistent).sort_values("_o", kind="stable"),
    }[mode]
    if chosen.empty:
        st.success(EMPTY[mode].format(key=key), icon=":material/check_circle:")
        return mode, []
    rows = _with_prompts(chosen, defined)
    st.caption(_pick_caption(group, mode, key, rows))
    if rows.empty:
        return mode, []
    ids = _ticked(group, rows, mode, key, disabled=disabled, preset=preset if mode == "pick" else None)
    whole = mode != "pick" and len(rows) == len(chosen) and len(ids) == len(chosen)
    return (mode if whole else ids), ids


def _with_prompts(chosen: pd.DataFrame, defined: set[str] | None) -> pd.DataFrame:
    """The chosen tasks that have a prompt to send (a warning names the others)."""
    if defined is None:
        return chosen
    missing = [t for t in chosen["task_id"].astype(str) if t not in defined]
    if missing:
        shown = ", ".join(missing[:8]) + (" …" if len(missing) > 8 else "")
        st.warning(
            escape(
                f"{len(missing)} of {len(chosen)} tasks have no prompt in the task file and are left out: "
                f"{shown}"
            )
        )
    return chosen[chosen["task_id"].astype(str).isin(defined)]


def _pick_caption(group: data.Group, mode: str, key: AnswerKey, rows: pd.DataFrame) -> str:
    if mode == "pick":
        return (
            f"All {len(rows)} tasks, the inconsistent ones first, under the {key} answer key. Tick the ones "
            "to re-run."
        )
    what = "inconsistent" if mode == "inconsistent" else "flagged"
    return (
        f"{len(rows)} {what} tasks under the {key} answer key ({_reason_counts(group, rows)}). All are "
        "ticked; untick any to leave them out."
    )


def _linked_tasks(tasks: pd.DataFrame) -> list[str]:
    """The tasks a link named (`?rerun=ID&rerun=ID`, e.g. Overview's "Re-run the 2 inconclusive
    tasks"): when the URL brings new ones, the pick is by hand with exactly those ticked."""
    raw = st.query_params.get_all(PICKED_PARAM)
    if raw and raw != st.session_state.get(f"_url.{PICKED_PARAM}"):
        st.session_state[f"_url.{PICKED_PARAM}"] = raw
        known = set(tasks["task_id"].astype(str))
        st.session_state[PRESET] = [t for t in dict.fromkeys(raw) if t in known]
        st.session_state["rerun.selection"] = "pick"
    return list(st.session_state.get(PRESET) or [])


def _ticked(
    group: data.Group,
    rows: pd.DataFrame,
    mode: str,
    key: AnswerKey,
    *,
    disabled: bool,
    preset: list[str] | None = None,
) -> list[str]:
    """The task table with a checkbox column (by hand: the `preset` tasks ticked); the ticked ids."""
    ids = rows["task_id"].astype(str)
    table = pd.DataFrame(
        {
            "rerun": ids.isin(preset or []) if mode == "pick" else True,
            "task_id": rows["task_id"].astype(str),
            "reasons": rows["flag_reasons"].astype("string").fillna(fmt.NONE).replace("", fmt.NONE),
            **{c: rows[c] for c in ("n_clusters", "majority_share", "n_errors", "retries")},
            "drift": rows["drift_fields"].astype("string").fillna(fmt.NONE).replace("", fmt.NONE),
        }
    )
    picked = st.data_editor(
        table,
        column_config=PICK_COLUMNS,
        disabled=True if disabled else [c for c in PICK_COLUMNS if c != "rerun"],
        hide_index=True,
        key=f"rerun.pick.{group.source}.{key}.{mode}.{len(table)}.{'/'.join(preset or [])}",
        height=min(38 + 35 * len(table), 420),
        placeholder=fmt.NONE,  # retries a log does not record: a dash, as every table shows them
    )
    return picked.loc[picked["rerun"].astype(bool), "task_id"].astype(str).tolist()


def _reason_counts(group: data.Group, shown: pd.DataFrame) -> str:
    """How many of the shown tasks carry each flag reason (the analyzer's list per task)."""
    ids = set(shown["task_id"].astype(str))
    reasons = [r for f in group.analysis.headline.flagged if str(f.task_id) in ids for r in f.reasons]
    counts = pd.Series(reasons, dtype="string").value_counts()
    return ", ".join(f"{n} {reason}" for reason, n in counts.items()) or "no reasons recorded"


def _start(
    request: RerunRequest,
    planned: DefaultRerun,
    choice: route_editor.RouteChoice | None,
    beside: RouteProfile | None,
) -> JobStatus | None:
    """Start the re-run shown (or find the same one already running), with the rounds on the parent's
    own route `beside` it when asked for; one-line error on failure. Its rounds are the plan's: the
    one number typed, else `rerun_plan`'s default, the CLI's."""
    assert choice is not None
    mgr = job_panel.manager()
    try:
        out = mgr.new_out(default_rerun_path(request.source or "log").name.removesuffix(".altk_runs.json"))
        plan = rerun_plan(request, choice.profile, out, rounds=planned.chosen_rounds, keys=choice.keys())
        own = log_route.own_route()
        more = parent_route_plan(request.parent_analysis, plan, beside, own, Consent()) if beside else None
        job = mgr.start_rerun(request, plan, more)
    except Exception as exc:  # noqa: BLE001 - one line on the page, never a traceback
        st.error(escape(f"Could not start the re-run: {one_line_error(exc)}"))
        return None
    job_panel.watch(job.job_id)
    return job


def _before_after(job: JobStatus, key: AnswerKey) -> None:
    """Per task before and after the pinned re-run, and the verdict in plain words."""
    try:
        stamp = data.files_stamp(job.parent, job.out, str(parent_route_path(job.out or "")))
        threshold = data.semantic_threshold() if key == "semantic" else None
        frame = data.rerun_before_after(job.parent or "", job.out, tuple(job.task_ids), key, stamp, threshold)
    except Exception as exc:  # noqa: BLE001 - one line on the page, never a traceback
        st.error(escape(f"Cannot compare before and after: {one_line_error(exc)}"))
        return
    st.subheader("Before and after")
    new_log = job_panel.relative_to_runs(job.out) or Path(job.out).name
    where = "is open beside it in the sidebar" if job_panel.is_open(job.out) else "can be opened above"
    st.caption(
        f"New log {escape(new_log)} names its parent ({escape(Path(job.parent or '').name)}) "
        f"and {where} · answer key **{key}**"
    )
    verdicts = frame["verdict"].value_counts()
    route = tasks_with(frame, "route")
    both = tasks_with(frame, "both")
    model = tasks_with(frame, "model", "regressed")
    figures.row(
        [
            ("Route (beyond chance)", fmt.count(len(route)), VERDICT_TEXT["route"]),
            ("Both", fmt.count(len(both)), VERDICT_TEXT["both"]),
            ("Model", fmt.count(len(model)), VERDICT_TEXT["model"]),
            ("Inconclusive", fmt.count(verdicts.get("inconclusive", 0)), VERDICT_TEXT["inconclusive"]),
            ("Consistent before and after", fmt.count(verdicts.get("stable", 0))),
            ("Too few answers", fmt.count(verdicts.get("unmeasured", 0)), VERDICT_TEXT["unmeasured"]),
        ]
    )
    _verdict_box(verdict_sentences(frame, job.pinned or ["route"], job.changes or []))
    st.caption(escape(RULE))
    order = {v: i for i, v in enumerate(VERDICT_ORDER)}
    factors = frame["factor"] if "factor" in frame else pd.Series([None] * len(frame))
    shown = pd.DataFrame(
        {
            "task_id": frame["task_id"].astype(str),
            "verdict_text": [verdict_phrase(v, f) for v, f in zip(frame["verdict"], factors, strict=True)],
            "clusters": _pairs(frame["clusters_before"], frame["clusters_after"], "{:.0f}"),
            "consistent": _pairs(frame["consistent_before"], frame["consistent_after"], "yes/no"),
            "tokens": _pairs(frame["tokens_mean_before"], frame["tokens_mean_after"], "{:,.0f}"),
            "retries": _pairs(frame["retries_before"], frame["retries_after"], "{:.0f}"),
            "reason": frame["reason"].astype("string").fillna(fmt.NONE) if "reason" in frame else fmt.NONE,
            "_order": frame["verdict"].map(order),
        }
    ).sort_values("_order", kind="stable")
    st.dataframe(
        shown[list(AFTER_COLUMNS)],
        column_config=AFTER_COLUMNS,
        hide_index=True,
        height=min(38 + 35 * len(shown), 740),
        placeholder=fmt.NONE,
        key=f"rerun.after.{job.job_id}",
    )
    fmt.page_link(COMPARE_VIEW, "Compare the two logs side by side →")


def _pairs(before: pd.Series, after: pd.Series, pattern: str) -> list[str]:
    """`before → after` per row; a missing figure shows as —."""
    return [f"{_one(b, pattern)} → {_one(a, pattern)}" for b, a in zip(before, after, strict=True)]


def _one(value: object, pattern: str) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return fmt.NONE
    if pattern == "yes/no":
        return "yes" if bool(value) else "no"
    return pattern.format(float(value))  # type: ignore[arg-type]


def _verdict_box(lines: list[VerdictLine]) -> None:
    """The verdict's sentences (`rerun_sentences.verdict_sentences`), each in a box of its kind."""
    for line in lines:
        show = {"success": st.success, "warning": st.warning, "info": st.info}[line.kind]
        show(escape(line.text), icon=VERDICT_ICONS[line.topic])


if __name__ == "__main__":
    render()
