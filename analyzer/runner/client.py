"""The pinned client: an openai SDK client whose every attempt goes through the recording transport."""

from __future__ import annotations

import functools
import ssl
import urllib.request
from urllib.parse import urlsplit

import httpx2
import openai

from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import is_loopback, redact_url
from analyzer.runner.transport import SDK_PLACEHOLDER_KEY, KeyRing, RecordingTransport
from analyzer.safety.url_secrets import secret_values

MAX_REDIRECTS = 3
"""Redirects followed per attempt; each is recorded, and the key never leaves the route's origin."""


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One verifying TLS context for every client: loading the CA bundle costs ~0.2 s each time."""
    return httpx2.create_ssl_context()


def _proxy_for(base_url: str) -> str | None:
    """The environment's proxy for a non-loopback URL (the transport ignores env proxies otherwise)."""
    parts = urlsplit(base_url)
    if is_loopback(parts.hostname) or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def make_client(
    profile: RouteProfile,
    base_url: str,
    keys: KeyRing,
    *,
    max_retries: int | None = None,
    timeout_s: float | None = None,
) -> tuple[openai.OpenAI, RecordingTransport]:
    """An SDK client pinned to one base URL, key ring, timeout and retry budget."""
    timeout = timeout_s if timeout_s is not None else profile.timeout_s
    inner = httpx2.HTTPTransport(
        verify=_ssl_context(),
        proxy=_proxy_for(base_url),
        limits=httpx2.Limits(max_connections=max(8, profile.concurrency * 2), max_keepalive_connections=None),
    )
    roots = profile.base_urls() if profile.base_url and base_url == profile.base_url else []
    if len(roots) > 1:
        keys.also_secret([part for root in roots for part in secret_values(root)])
    transport = RecordingTransport(
        inner, redact_url(base_url), keys, origin_url=base_url, rotation=roots if len(roots) > 1 else None
    )
    transport.deadline_s = timeout  # the whole attempt, not only each socket read
    http_client = httpx2.Client(  # redirects are followed, but the transport sends the key home only
        transport=transport,
        timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
    )
    client = openai.OpenAI(
        api_key=SDK_PLACEHOLDER_KEY,
        base_url=base_url,
        max_retries=profile.max_retries if max_retries is None else max_retries,
        timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
        http_client=http_client,
    )
    return client, transport
