"""Where a profile's calls go: its base URL, or the embedded simulator when none is configured."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from analyzer.errors import RouteError
from analyzer.route_profile import SIMULATOR_KEY, RouteProfile, check_keys_clean, key_problem, resolve_keys
from analyzer.runner.transport import KeyRing
from analyzer.simulator import Scenario, Simulator
from analyzer.url_lint import is_loopback, redact_url, require_valid_url


@dataclass(frozen=True)
class Served:
    """The base URL calls go to, and the simulator serving it when embedded."""

    base_url: str
    simulator: Simulator | None

    @property
    def shown_url(self) -> str:
        """The base URL as it may be written down (secrets in it redacted)."""
        return redact_url(self.base_url)

    @property
    def notice(self) -> str | None:
        """One line telling the user the simulator serves, or None."""
        if self.simulator is None:
            return None
        return (
            f"No base URL configured: using the built-in simulator at {self.base_url} "
            "(offline; set OPENAI_BASE_URL or --base-url for a real endpoint)."
        )


@contextlib.contextmanager
def serving(
    profile: RouteProfile, *, scenario: Scenario | None = None, preferred_port: int | None = None
) -> Iterator[Served]:
    """Yield where calls go; start (and finally stop) the simulator in-process when no base URL is set.

    The embedded simulator plays the sample tasks' scripted model (`app_scenario`) unless a scenario
    is given; other prompts get answers derived from their text.
    """
    if profile.base_url:
        require_valid_url(profile.base_url)
        yield Served(base_url=profile.base_url.strip(), simulator=None)
        return
    if scenario is None:
        from analyzer.simulator.app_tasks import app_scenario

        scenario = app_scenario()
    try:
        sim = Simulator(scenario, port=preferred_port or 0).start()
    except OSError:  # the port a resumed run used is taken: any free one will do
        sim = Simulator(scenario).start()
    try:
        yield Served(base_url=sim.base_url, simulator=sim)
    finally:
        sim.stop()


def key_ring(
    profile: RouteProfile,
    served: Served,
    *,
    api_key: str | None = None,
    api_keys: list[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> KeyRing:
    """The run's keys, read now: explicit keys, else the profile's variables.

    Against the simulator a missing key is fine (it gets the public simulator key). Against a
    remote endpoint a missing key is an error; a loopback server (Ollama, vLLM) may run without one.
    A key holding white space or control characters is refused before any request (the HTTP library
    would quote it in its error).
    """
    if api_keys:
        check_keys_clean([f"key {n} of the rotation" for n in range(1, len(api_keys) + 1)], api_keys)
        return KeyRing(api_keys)
    keys = resolve_keys(profile, os.environ if env is None else env, api_key)
    names = ["the session's key field"] if api_key is not None else profile.key_envs()
    check_keys_clean(names, keys)
    if served.simulator is not None:
        return KeyRing([k or SIMULATOR_KEY for k in keys])
    missing = [name for name, k in zip(profile.key_envs(), keys, strict=False) if key_problem(k) == "empty"]
    if missing and api_key is None and not is_loopback(urlsplit(served.base_url).hostname):
        raise RouteError(f"{missing[0]} is not set; export the key or name another variable with --key-env")
    return KeyRing(keys)
