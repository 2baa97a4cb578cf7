"""Rounds on the parent's own route beside the pinned ones (`rerun --with-parent-route`).

A task whose parent split too few rounds for any number of pinned rounds to decide (a 5-round parent's
3/2 split under two keys) can be decided by rounds more on the parent's route itself (its key and base
URL rotation) beside a few pinned ones: those are not subject to the parent's selection
(`verdicts.planner.parent_rounds_to_reach`). They need the parent's other keys, so the route is the
one the parent's log recorded, under the same rules as any route a log names: every key variable must
be one the user's own route names (or `RERUNLENS_KEY_VARIABLES` lists), checked even on the simulator,
and every host the user's own or confirmed (`rerun_route.confirm_log_route`); a log never holds a key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from analyzer.analysis import Analysis
from analyzer.errors import RouteError
from analyzer.log.model import RunLog
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import has_redaction
from analyzer.runner.plan import Provenance, RunPlan, new_plan
from analyzer.runner.rerun_route import Consent, confirm_log_route
from analyzer.safety.keys import allowed_key_variables, check_key_variable
from analyzer.verdicts.before_after import rerun_plan_of
from analyzer.verdicts.planner import RerunPlan


def proposed_rounds(plan: RerunPlan) -> dict[str, int]:
    """Task id -> the rounds the planner proposes on the parent's own route (tasks with a proposal)."""
    return plan.parent_route_rounds()


def parent_route_profile(
    log: RunLog, pinned: RouteProfile, own: RouteProfile, env: Mapping[str, str] | None = None
) -> RouteProfile:
    """The re-run's profile (model and sampling as pinned) on the key and base URL rotation the
    parent's log recorded.

    Raises:
        RouteError: the log recorded no rotation, a base URL whose secret was not saved, or a key
            variable the user's own route does not name.
    """
    route = log.route
    keys = [str(k) for k in getattr(route, "key_rotation", None) or []]
    urls = [str(u) for u in getattr(route, "base_url_rotation", None) or []]
    if route is None or (len(keys) < 2 and len(urls) < 2):
        raise RouteError(
            "--with-parent-route: the parent's log records no key or base URL rotation, so its route is "
            "one route: the pinned re-run already runs it"
        )
    if any(has_redaction(u) for u in [route.base_url or "", *urls]):
        raise RouteError(
            "--with-parent-route: the parent's base URL holds a secret that was not saved; give the "
            "rotation in your own profile and re-run without --with-parent-route"
        )
    allowed = allowed_key_variables(own.key_envs(), env)
    for name in keys or [route.key_env or pinned.key_env]:
        check_key_variable(name, allowed)
    update = {
        "key_env": keys[0] if keys else (route.key_env or pinned.key_env),
        "key_rotation": keys[1:],
        "base_url": None if pinned.uses_simulator else (urls[0] if urls else route.base_url),
        "base_url_rotation": [] if pinned.uses_simulator else urls[1:],
    }
    return pinned.model_copy(update=update)


def parent_route_path(out: str | Path) -> Path:
    """`runs/A.rerun.altk_runs.json` -> `runs/A.rerun.parent-route.altk_runs.json`."""
    p = Path(out)
    stem = p.name.removesuffix(".json").removesuffix(".altk_runs")
    return p.with_name(f"{stem}.parent-route.altk_runs.json")


def parent_route_plan(
    parent: Analysis, pinned: RunPlan, profile: RouteProfile, own: RouteProfile, consent: Consent
) -> RunPlan | None:
    """The run of the proposed rounds (the plan of a re-run of `pinned`'s tasks from the `parent`'s
    analysis) on `profile` (`parent_route_profile`) for the tasks that have a proposal, beside the
    pinned plan (same scenario, its log named after the pinned one); None when no task has one.

    Raises:
        RouteError: a host the user did not confirm (`confirm_log_route`).
    """
    wanted = proposed_rounds(rerun_plan_of(parent, [str(t.task_id) for t in pinned.tasks]))
    tasks = [t for t in pinned.tasks if str(t.task_id) in wanted]
    if not tasks:
        return None
    confirm_log_route(profile, own, consent)
    label = f"{pinned.provenance.label or 're-run'}: the parent's own route beside the pinned one"
    run = new_plan(
        tasks,
        profile,
        parent_route_path(pinned.out),
        rounds=max(wanted[str(t.task_id)] for t in tasks),
        provenance=Provenance(
            label=label, parent_run_id=pinned.provenance.parent_run_id, extra=pinned.provenance.extra
        ),
        executor=pinned.executor,
        simulation=pinned.simulation,
    )
    return replace(run, task_rounds={str(t.task_id): wanted[str(t.task_id)] for t in tasks})
