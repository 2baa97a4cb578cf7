"""The route a run log was pinned to, as a profile a coding tool can be pointed at.

Taken from the log's own `route` (the profile the run used), else from the one route its results
recorded, else from the summary a plain script wrote. A log that used several base URLs or models
has no single route to export; a log served by the built-in simulator has no gateway at all.
"""

from __future__ import annotations

from typing import Any

from analyzer.errors import RouteError
from analyzer.log.model import Route, RunLog
from analyzer.routes.profile import DEFAULT_KEY_ENV, RouteProfile, build_profile


def _recorded(log: RunLog) -> Route | None:
    if log.route is not None and log.route.base_url:
        return log.route
    found = {(r.route.base_url, r.route.model): r.route for _rnd, r in log.results() if r.route}
    found = {k: v for k, v in found.items() if k[0]}
    if len(found) > 1:
        raise RouteError(
            f"the log used {len(found)} routes (base URL and model); re-run it on one pinned route "
            "or give the route with --profile or --base-url"
        )
    return next(iter(found.values()), log.route)


def profile_from_log(log: RunLog) -> RouteProfile:
    """The log's pinned route as a profile (base URL, key variable, model).

    Raises:
        RouteError: the log ran on the built-in simulator, records no base URL, or used several routes.
    """
    route = _recorded(log)
    if route is not None and route.simulator:
        raise RouteError(
            "this log ran on the built-in simulator: there is no gateway to point a coding tool at"
        )
    values: dict[str, Any] = {}
    if route is not None:
        values = {"base_url": route.base_url, "key_env": route.key_env, "model": route.model}
    elif log.summary is not None:
        values = {"base_url": log.summary.base_url, "model": log.summary.model}
    if not values.get("base_url"):
        raise RouteError("this log records no base URL; give the route with --profile or --base-url")
    values["key_env"] = values.get("key_env") or DEFAULT_KEY_ENV
    return build_profile(overrides=values, use_env=False)


def benchmark_fingerprints(log: RunLog) -> list[str]:
    """Every key fingerprint the log's calls used (the benchmark's keys), in first-seen order."""
    seen: list[str] = []
    routes = [log.route] if log.route is not None else []
    extra: list[str] = list(getattr(log.route, "key_fingerprints", None) or [])
    for _rnd, result in log.results():
        if result.route is not None:
            routes.append(result.route)
        for attempt in result.attempts or []:
            if attempt.key_fingerprint:
                extra.append(attempt.key_fingerprint)
    for fp in [r.key_fingerprint for r in routes] + list(extra):
        if fp and fp not in seen:
            seen.append(fp)
    return seen


__all__ = ["benchmark_fingerprints", "profile_from_log"]
