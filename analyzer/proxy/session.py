"""A proxy in front of a route profile: the key(s) read once, the simulator when no base URL is set."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.routes.profile import RouteProfile
from analyzer.runner.embedded import key_ring, serving
from analyzer.safety.keys import RunKeys, read_keys
from analyzer.safety.url_secrets import secret_values
from analyzer.simulator import Scenario

PINNED = ("base_url", "key_env", "key_fingerprint", "key_fingerprints", "key_rotation", "simulator")
"""What the proxy pins of a route; the model and sampling are whatever the client sends (recorded)."""


@dataclass(frozen=True)
class ProxyRequest:
    """What `rerunlens proxy` and `rerunlens wrap` stand up."""

    profile: RouteProfile
    journal: Path
    scenario: Scenario | None = None
    port: int = 0
    keep_bodies: bool = False
    label: str | None = None


@contextlib.contextmanager
def proxied(
    request: ProxyRequest, echo: Callable[[str], None] | None = None, keys: RunKeys | None = None
) -> Iterator[RecordingProxy]:
    """A started proxy on the request's route; stopped (journal closed) on the way out.

    Args:
        echo: called with one line when the built-in simulator serves (no base URL set).
        keys: the route's keys when already read (else read from the environment here).
    """
    profile = request.profile
    keys = keys if keys is not None else read_keys(profile.key_envs())
    with serving(profile, scenario=request.scenario) as served:
        if served.notice and echo is not None:
            echo(served.notice)
        ring = key_ring(keys, served)
        rotation = profile.base_urls()[1:] if served.base_url == profile.base_url else []
        ring.also_secret([part for url in rotation for part in secret_values(url)])
        route = profile.to_route(base_url=served.shown_url, fingerprints=[f for f in ring.fingerprints if f])
        config = ProxyConfig(
            upstream=served.base_url,
            keys=ring,
            journal=str(request.journal),
            route={k: v for k, v in route.model_dump(mode="json", exclude_none=True).items() if k in PINNED},
            port=request.port,
            timeout_s=profile.timeout_s,
            keep_bodies=request.keep_bodies,
            label=request.label,
            rotation=rotation,
        )
        with RecordingProxy(config) as proxy:
            yield proxy


def shell_lines(proxy: RecordingProxy) -> list[str]:
    """What another shell needs to use the proxy, as `export` lines (each value quoted for the shell)."""
    return [f"export {name}={shlex.quote(value)}" for name, value in proxy.client_env().items()]
