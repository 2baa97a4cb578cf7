"""Where a profile's calls go: its base URL, or the embedded simulator when none is configured."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from analyzer.errors import RouteError
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import is_loopback, redact_url, require_valid_url
from analyzer.runner.transport import KeyRing
from analyzer.safety.keys import RunKeys
from analyzer.safety.url_secrets import secret_values
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.app_tasks import app_scenario


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
        scenario = app_scenario()
    try:
        sim = Simulator(scenario, port=preferred_port or 0).start()
    except OSError:  # the port a resumed run used is taken: any free one will do
        sim = Simulator(scenario).start()
    try:
        yield Served(base_url=sim.base_url, simulator=sim)
    finally:
        sim.stop()


def key_ring(keys: RunKeys, served: Served) -> KeyRing:
    """The ring of keys the run sends, for where its calls go.

    Against the simulator a missing key is fine (it gets the public simulator key). Against a
    remote endpoint a missing key variable is an error; a loopback server (Ollama, vLLM) may run
    without one. A rotation or a session key is sent as given.
    """
    also = secret_values(served.base_url)  # scrubbed wherever a server echoes its URL back
    if served.simulator is not None and keys.source != "rotation":
        return KeyRing(list(keys.for_simulator().keys), also)
    missing = keys.missing() if keys.source.startswith("env:") else []
    if missing and not is_loopback(urlsplit(served.base_url).hostname):
        raise RouteError(f"{missing[0]} is not set; export the key or name another variable with --key-env")
    return KeyRing(list(keys.keys), also)
