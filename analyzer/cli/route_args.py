"""Route flags to a route profile, and back to flags for a resume hint."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from analyzer.routes.profile import KEY_ROUTE_FIELDS, RouteProfile, build_profile, route_knobs
from analyzer.routes.url_lint import redact_url
from analyzer.simulator import Scenario, load_scenario


def route_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The route fields given as flags (None where a flag was not given)."""
    return {field: getattr(args, field, None) for field in route_knobs()}


def profile_from_args(args: argparse.Namespace, base: Mapping[str, Any] | None = None) -> RouteProfile:
    """Defaults < `base` < environment < `--profile` < flags."""
    return build_profile(file=args.profile, overrides=route_overrides(args), base=base)


def resume_profile(args: argparse.Namespace, recorded: Mapping[str, Any] | None) -> RouteProfile | None:
    """On --resume: the journal's route with what was given explicitly (flags, --profile) on top, and
    the base URL, key variable and their rotations always the user's own (environment, profile,
    flags), never the journal's: a journal must not choose where a key goes or which key.

    Other environment variables are not read (they may have changed since); a setting that differs
    from the journal's is refused when the plan is built. None when there is no journal.
    """
    if recorded is None:
        return None
    own = build_profile(file=args.profile, overrides=route_overrides(args))
    mine = {**route_overrides(args), **{f: getattr(own, f) for f in KEY_ROUTE_FIELDS}}
    mine["base_url"] = own.base_url or ""
    return build_profile(file=args.profile, overrides=mine, base=recorded, use_env=False)


def scenario_from_args(args: argparse.Namespace) -> Scenario | None:
    """The `--scenario` file, when given."""
    return load_scenario(args.scenario) if getattr(args, "scenario", None) else None


def flags_again(args: argparse.Namespace) -> list[tuple[str, object]]:
    """The route flags as given (a secret in the base URL redacted), as (flag, value) pairs for
    `shell_words.command_words`, to print a resume command."""
    out: list[tuple[str, object]] = [("--profile", args.profile)]
    for field, knob in route_knobs().items():
        value = getattr(args, field, None)
        if value is not None and field != "rounds":
            out.append((knob.flag, redact_url(str(value)) if field == "base_url" else str(value)))
    return [*out, ("--scenario", getattr(args, "scenario", None))]
