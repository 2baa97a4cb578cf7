"""The proxy forwards only the endpoints it serves, to exactly the route's root, and the key nowhere else.

A real upstream on 127.0.0.1 (the hostile endpoint) records the path and Authorization of every
request it gets. Hostile paths are sent as raw bytes (http.client sends the target as given; httpx
would normalise the dot segments itself before the proxy saw them).
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Received, Reply, completion

from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing

PREFIX = "/team-a/openai/v1"
HOSTILE_PATHS = [
    ("GET", "/v1/models/../../admin/api_keys"),
    ("GET", "/v1/models/%2e%2e/%2e%2e/admin/api_keys"),
    ("GET", "/v1/models/..%2f..%2fadmin%2fapi_keys"),
    ("GET", "/v1/models/%2E%2E%5C..%5Cadmin"),
    ("GET", "/v1/models/..\\..\\admin"),
    ("GET", "/v1/models/."),
    ("GET", "/v1/models/gpt-4o/../../../../team-b/secrets"),
    ("POST", "/v1/chat/completions/../../../../team-b/secrets"),
    ("POST", "/v1/../../../../team-b/secrets"),
    ("POST", "/v1//chat/completions"),
    ("POST", "/v1/./chat/completions"),
    ("POST", "//team-b/v1/chat/completions"),
    ("GET", "/v1/models/a/b"),
    ("GET", "http://127.0.0.1:1/v1/models"),
]


def proxy_on(base_url: str, journal: Path) -> RecordingProxy:
    """A proxy in front of `base_url` holding the fake key."""
    return RecordingProxy(ProxyConfig(upstream=base_url, keys=KeyRing([FAKE_KEY]), journal=str(journal)))


def raw_request(proxy: RecordingProxy, method: str, target: str, body: bytes = b"") -> tuple[int, bytes]:
    """One request with the local token, the target sent byte for byte as given."""
    conn = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=10)
    try:
        conn.putrequest(method, target, skip_host=False, skip_accept_encoding=True)
        conn.putheader("Authorization", f"Bearer {proxy.token}")
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def authorization(got: Received) -> str | None:
    """The Authorization header a request arrived with (any case)."""
    return next((v for k, v in got.headers.items() if k.lower() == "authorization"), None)


def _models(_got: Received) -> Reply:
    return Reply(200, {"content-type": "application/json"}, b'{"object": "list", "data": []}')


def test_no_hostile_path_reaches_the_upstream_and_plain_ones_keep_the_prefix(tmp_path: Path) -> None:
    with HostileEndpoint(_models) as ep, proxy_on(ep.origin + PREFIX, tmp_path / "j.jsonl") as proxy:
        refused = {target: raw_request(proxy, method, target)[0] for method, target in HOSTILE_PATHS}
        assert ep.received == []  # nothing left the proxy for any of them
        plain = [
            raw_request(proxy, "GET", "/v1/models")[0],
            raw_request(proxy, "GET", "/v1/models/ft:gpt-4o-mini:org:x:1")[0],
            raw_request(proxy, "POST", "/v1/chat/completions", b'{"model": "m", "messages": []}')[0],
        ]
    assert set(refused.values()) == {404}, refused
    assert plain == [200, 200, 200]
    assert [r.path for r in ep.received] == [
        f"{PREFIX}/models",
        f"{PREFIX}/models/ft:gpt-4o-mini:org:x:1",
        f"{PREFIX}/chat/completions",
    ]
    assert {authorization(r) for r in ep.received} == {f"Bearer {FAKE_KEY}"}


def test_a_redirect_out_of_the_route_root_on_the_same_host_carries_no_key(tmp_path: Path) -> None:
    def script(got: Received) -> Reply:
        if got.path.startswith(PREFIX):
            return Reply(307, {"location": "/team-b/secrets"})
        return completion()

    with HostileEndpoint(script) as ep, proxy_on(ep.origin + PREFIX, tmp_path / "j.jsonl") as proxy:
        status, _ = raw_request(proxy, "POST", "/v1/chat/completions", b'{"model": "m", "messages": []}')
    assert status == 200
    first, second = ep.received
    assert authorization(first) == f"Bearer {FAKE_KEY}"
    assert second.path == "/team-b/secrets" and FAKE_KEY not in second.text()


def test_a_refused_path_is_one_line_that_holds_no_key(tmp_path: Path) -> None:
    with HostileEndpoint(_models) as ep, proxy_on(ep.origin + PREFIX, tmp_path / "j.jsonl") as proxy:
        status, body = raw_request(proxy, "GET", f"/v1/models/../{FAKE_KEY}")
    message = json.loads(body)["error"]["message"]
    assert status == 404 and "\n" not in message and FAKE_KEY not in message
