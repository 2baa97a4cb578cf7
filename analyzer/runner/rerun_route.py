"""What a re-run takes from its parent's route, and what it changes besides pinning the route.

A re-run measures the route only when everything else stays as the parent had it: the same provider
(its base URL and key variable), the same model and sampling, and, when the built-in simulator made
the parent, the same simulator scenario. Whatever it changes anyway (a seed the parent did not send,
another scenario) is named beside the verdict, since a seed can cut model noise by itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from analyzer.errors import RouteError
from analyzer.log.model import RunLog
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import has_redaction, redact_url
from analyzer.safety.keys import allowed_key_variables, check_key_variable
from analyzer.safety.trusted_hosts import is_lookalike, is_trusted, origin_of, remember
from analyzer.simulator import Scenario

SAMPLING = ("model", "temperature", "top_p", "max_tokens")
"""Settings a re-run takes from its parent unless given: changing them would confound the comparison."""


@dataclass(frozen=True)
class ParentProvider:
    """Where the parent's calls went."""

    base_url: str | None
    """Its base URL as recorded (None when unknown; may hold a redaction marker)."""
    key_env: str | None
    """The variable its key came from, when recorded."""
    simulator: bool
    """True when the built-in simulator served it."""

    @property
    def real(self) -> bool:
        """True when a provider (not the simulator) served the parent."""
        return not self.simulator and self.base_url is not None

    def profile_base(self) -> dict[str, Any]:
        """Profile values a re-run inherits: the parent's base URL (unless its secret was not saved)
        and key variable, for a parent that ran against a provider."""
        if not self.real:
            return {}
        found: dict[str, Any] = {}
        if self.base_url and not has_redaction(self.base_url):
            found["base_url"] = self.base_url
        if self.key_env:
            found["key_env"] = self.key_env
        return found


def _most_common(log: RunLog, field: str) -> Any:
    values = [getattr(r.route, field) for _rnd, r in log.results() if r.route is not None]
    values = [v for v in values if v is not None]
    return Counter(values).most_common(1)[0][0] if values else None


def parent_provider(log: RunLog) -> ParentProvider:
    """The parent's provider: from its route, else its results' routes, else its summary (format 1)."""
    route = log.route
    base_url = route.base_url if route is not None else None
    base_url = base_url or _most_common(log, "base_url")
    if base_url is None and log.summary is not None:
        base_url = log.summary.base_url
    simulator = bool(route is not None and route.simulator) or recorded_scenario(log) is not None
    return ParentProvider(base_url, route.key_env if route is not None else None, simulator)


def parent_settings(log: RunLog) -> dict[str, Any]:
    """The parent's model, temperature, top_p and max_tokens (those it recorded and a profile accepts).

    Taken from the log's route, else from the routes its results recorded (the most common value).
    """
    found: dict[str, Any] = {}
    if log.route is not None:
        found = {f: getattr(log.route, f) for f in SAMPLING if getattr(log.route, f) is not None}
    for f in SAMPLING:
        if f not in found and (value := _most_common(log, f)) is not None:
            found[f] = value
    if "model" not in found and log.summary is not None and log.summary.model:
        found["model"] = log.summary.model
    accepted: dict[str, Any] = {}
    for f, v in found.items():
        try:
            RouteProfile(**{f: v})
        except ValueError:
            continue
        accepted[f] = v
    return accepted


def route_differences(parent: dict[str, Any], profile: RouteProfile) -> list[str]:
    """`temperature 0.7 -> 0.0`, one per inherited setting where the re-run differs from the parent."""
    return [
        f"{f} {parent[f]!r} -> {getattr(profile, f)!r}"
        for f in SAMPLING
        if f in parent and parent[f] != getattr(profile, f)
    ]


def require_same_provider(log: RunLog, profile: RouteProfile, allow_simulator: bool) -> None:
    """Refuse to compare a provider's log with a simulator's re-run unless asked for on purpose.

    Raises:
        RouteError: the parent ran against a provider and the re-run would go to the simulator.
    """
    provider = parent_provider(log)
    if provider.real and profile.uses_simulator and not allow_simulator:
        raise RouteError(
            f"the parent ran against {redact_url(provider.base_url or '')} and this re-run would go to "
            "the built-in simulator, which would compare a provider with a simulator; give --base-url "
            "(and its key) for the same provider, or --simulator to re-run on the simulator on purpose"
        )


def recorded_scenario(log: RunLog) -> dict[str, Any] | None:
    """The `simulator_scenario` a simulator-made log carries (written by `run_plan`), as data."""
    return log.simulator_scenario


def parent_scenario(log: RunLog) -> Scenario | None:
    """The simulator scenario the parent was made with, when the log recorded it.

    Raises:
        RerunLensError: the recorded scenario is not a valid scenario (one line).
    """
    recorded = recorded_scenario(log)
    if recorded is None:
        return None
    try:
        return Scenario.model_validate(recorded)
    except ValidationError as err:
        raise RouteError(
            f"the parent's simulator_scenario is not a valid scenario ({err.errors()[0]['msg']})"
        ) from None


def pinned_besides_route(log: RunLog, profile: RouteProfile, scenario: Scenario | None) -> list[str]:
    """What the re-run changes besides the route: `seed` (sent where the parent sent none or another),
    `scenario` (another simulator scenario than the parent's)."""
    changed: list[str] = []
    parent_seed = log.route.seed if log.route is not None else _most_common(log, "seed")
    if profile.seed is not None and parent_seed != profile.seed:
        changed.append("seed")
    made_with = parent_scenario(log)
    if profile.uses_simulator and made_with is not None and scenario is not None and scenario != made_with:
        changed.append("scenario")
    return changed


def describe_route(profile: RouteProfile) -> str:
    """The re-run's route in one line."""
    where = redact_url(profile.base_url) if profile.base_url else "the built-in simulator"
    return (
        f"Re-run route: {where}, key {profile.key_env}, model {profile.model}, "
        f"temperature {profile.temperature:g}, top_p {profile.top_p:g}, seed {profile.seed}, "
        f"max_tokens {profile.max_tokens}, max_retries {profile.max_retries}, "
        f"concurrency {profile.concurrency}"
    )


@dataclass(frozen=True)
class Consent:
    """How the user confirms sending a key to a host a log's route chose (never the log itself)."""

    yes: bool = False
    """Confirmed in advance (`--yes`)."""
    ask: Callable[[str], bool] | None = None
    """Asks the user a question and returns the answer (an interactive terminal); None: cannot ask."""
    store: Path | None = None
    """The trusted-hosts file (default: under the user's config folder)."""
    env: Mapping[str, str] | None = None
    """Where `RERUNLENS_KEY_VARIABLES` is read (default: the process environment)."""


LOG_ROUTE = "this log's route"
"""Who chose the route a re-run asks about: the log, not the user."""


@dataclass(frozen=True)
class RouteQuestion:
    """A host and key variable a log's route would send to, which the user has not confirmed."""

    origin: str
    """Scheme, host and port the key would go to."""
    key_env: str
    """The variable whose value would be sent."""
    subject: str = LOG_ROUTE
    """What chose the route, as the question names it."""

    def text(self) -> str:
        """One line naming all three, the way the CLI and the dashboard ask."""
        text = (
            f"{self.subject} sends the key in {self.key_env} to {self.origin}, which is not the host "
            "of your own route"
        )
        if is_lookalike(self.origin):
            text += " (warning: its name holds non-ASCII letters, shown as xn--: it may imitate another host)"
        return text


def route_question(
    profile: RouteProfile, own: RouteProfile, consent: Consent = Consent(), subject: str = LOG_ROUTE
) -> RouteQuestion | None:
    """What the user must confirm before `profile` (a route taken from a log) is used, if anything.

    `own` is the user's own route (environment, profile file and flags, without the log); `subject`
    names where `profile` comes from in the question (a log's route, a live audit's route). Nothing is
    asked when the calls go to the embedded simulator, to the host of the user's own route, or to a host the
    user confirmed before for this variable.

    Raises:
        RouteError: a key variable the user's own route does not name (never sent, whatever is confirmed).
    """
    if profile.uses_simulator or not profile.base_url:
        return None  # the embedded simulator, on loopback: the key never leaves this process
    allowed = allowed_key_variables(own.key_envs(), consent.env)
    for name in profile.key_envs():
        check_key_variable(name, allowed)
    origin = origin_of(profile.base_url)
    if own.base_url and origin_of(own.base_url) == origin:
        return None
    for name in profile.key_envs():
        if not is_trusted(origin, name, consent.store):
            return RouteQuestion(origin, name, subject)
    return None


def confirm_log_route(profile: RouteProfile, own: RouteProfile, consent: Consent = Consent()) -> None:
    """Refuse a route taken from a log unless its key goes where the user chose; the one check every
    re-run, resample or harness re-run of a log's route calls before it reads a key.

    Asks through `consent.ask` (or takes `consent.yes`) when the host is not the user's own, and
    remembers the answer per host and variable.

    Raises:
        RouteError: a key variable the user does not name, or a host the user did not confirm.
    """
    while (question := route_question(profile, own, consent)) is not None:
        agreed = consent.yes or (consent.ask is not None and consent.ask(question.text()))
        if not agreed:
            raise RouteError(
                f"{question.text()}; confirm with --yes (or answer yes when asked) to send it there, or "
                "give --base-url and --key-env for your own provider"
            )
        remember(question.origin, question.key_env, consent.store)
