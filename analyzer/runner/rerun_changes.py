"""What a re-run changes besides pinning the route, said once for the CLI and the Re-run page.

A re-run measures the route only when everything else stays as the parent had it. When it cannot
(another model, the built-in simulator instead of a provider, one prompt sent where the parent held a
conversation), `rerun_changes` names each change and `changes_sentence` says them in one sentence;
a log of another tool that records no provider is not re-run on the simulator unless asked
(`require_known_provider`), since nothing it measured would be kept.
"""

from __future__ import annotations

from analyzer.errors import RouteError
from analyzer.log.model import RunLog
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import redact_url
from analyzer.runner.rerun_route import parent_provider, parent_settings, route_differences

UNCHANGED = "Model and sampling as in the parent log: only the route is pinned."


def is_conversation(log: RunLog) -> bool:
    """True when a result's trajectory holds two or more user messages: the agent talked with a
    user (tau-bench's user simulator), which one prompt sent once does not replay."""
    for _rnd, result in log.results():
        users = [s for s in result.trajectory or [] if getattr(s, "role", None) == "user"]
        if len(users) >= 2:
            return True
    return False


def parent_tool(log: RunLog) -> str | None:
    """The tool that wrote an imported log (`tau-bench`), None for a log of ours."""
    return str(log.imported_from.get("format")) if log.imported_from else None


def unknown_provider(log: RunLog) -> bool:
    """Another tool's log that records neither a provider nor the simulator: the simulator only on
    purpose."""
    provider = parent_provider(log)
    return parent_tool(log) is not None and not provider.simulator and not provider.base_url


def rerun_changes(log: RunLog, profile: RouteProfile) -> list[str]:
    """Each thing the re-run on `profile` changes besides the route, in a few words (none: only
    the route is pinned)."""
    parent = parent_settings(log)
    provider = parent_provider(log)
    out = []
    differs = route_differences(parent, profile)
    if differs:
        out.append(f"the re-run's sampling differs from the parent's ({'; '.join(differs)})")
    if "model" not in parent:
        out.append(f"model {profile.model}, where the parent's model is not recorded")
    if profile.uses_simulator and not provider.simulator:
        where = f" ({redact_url(provider.base_url)})" if provider.base_url else ""
        out.append(
            f"the built-in simulator instead of the parent's provider{where}, which compares a "
            "provider with a simulator"
        )
    if is_conversation(log):
        out.append(
            "prompt only: each task's first message is sent once, not the conversation the agent held "
            "with its user"
        )
    return out


def changes_sentence(changes: list[str]) -> str:
    """The changes in one sentence, or `UNCHANGED`."""
    if not changes:
        return UNCHANGED
    return (
        f"This re-run changes more than the route: {'; '.join(changes)}. Its before/after mixes that "
        "with pinning the route."
    )


def require_known_provider(log: RunLog, profile: RouteProfile, allow_simulator: bool) -> None:
    """Refuse to re-run another tool's log that records no provider on the built-in simulator,
    unless asked for on purpose (`--simulator`).

    Raises:
        RouteError: one line: why, and what would work.
    """
    if not unknown_provider(log) or not profile.uses_simulator or allow_simulator:
        return
    changes = [c for c in rerun_changes(log, profile) if not c.startswith("the built-in simulator")]
    what = f" ({'; '.join(changes)})" if changes else ""
    raise RouteError(
        f"this {parent_tool(log)} log records no provider, so the re-run would go to the built-in "
        f"simulator{what}: "
        "nothing it measured would be kept; give --simulator to re-run it there on purpose, --through "
        "harness where the harness that made it is here, or --base-url and its key for its provider"
    )
