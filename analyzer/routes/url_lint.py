"""Base URL lint: the mistakes people make when pasting an API root, each with a fix.

The SDK appends `/chat/completions` to the base URL, so a wrong root turns into a 404 or a call to a
web page. `lint_base_url` lists what looks wrong, proposes a corrected URL and shows the exact URL
the SDK will call.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx2

from analyzer.errors import RouteError
from analyzer.safety.trusted_hosts import dns_host
from analyzer.safety.url_secrets import (
    REDACTED,
    has_redaction,
    looks_like_secret,
    redact_url,
    secret_places,
    strip_query,
)

Severity = Literal["error", "warning"]

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}
HOME_PAGES = {
    "openai.com": "https://api.openai.com/v1",
    "www.openai.com": "https://api.openai.com/v1",
    "platform.openai.com": "https://api.openai.com/v1",
    "chat.openai.com": "https://api.openai.com/v1",
    "chatgpt.com": "https://api.openai.com/v1",
    "mistral.ai": "https://api.mistral.ai/v1",
    "www.mistral.ai": "https://api.mistral.ai/v1",
    "groq.com": "https://api.groq.com/openai/v1",
    "console.groq.com": "https://api.groq.com/openai/v1",
    "together.ai": "https://api.together.xyz/v1",
    "www.together.ai": "https://api.together.xyz/v1",
    "openrouter.ai": "https://openrouter.ai/api/v1",
    "deepseek.com": "https://api.deepseek.com/v1",
    "www.deepseek.com": "https://api.deepseek.com/v1",
}
"""Web sites people paste instead of the API root, and the root they meant."""
ENDPOINT_SUFFIXES = ("/chat/completions", "/completions", "/responses", "/models")
VERSION_ROOTS = {"api.openai.com": "/v1", "api.mistral.ai": "/v1", "api.together.xyz": "/v1"}


@dataclass(frozen=True)
class Finding:
    """One problem with a base URL."""

    code: str
    """Stable identifier, e.g. `query_string`."""
    severity: Severity
    """`error` when calls will fail, `warning` when they may."""
    message: str
    """What is wrong, one line."""
    fix: str
    """What to do about it, one line."""


@dataclass(frozen=True)
class LintReport:
    """The findings for one base URL, a corrected URL and the URL the SDK will call."""

    base_url: str
    """The URL as given."""
    findings: list[Finding] = field(default_factory=list)
    """Problems found, most serious first."""
    suggested: str | None = None
    """The corrected base URL, when it differs from the given one."""
    call_url: str = ""
    """Exact URL of a chat completion with the URL as given."""

    @property
    def ok(self) -> bool:
        """True when nothing at all was found."""
        return not self.findings

    @property
    def has_errors(self) -> bool:
        """True when at least one finding will make calls fail."""
        return any(f.severity == "error" for f in self.findings)


def chat_url(base_url: str) -> str:
    """The exact URL the SDK calls for a chat completion, merged the way the SDK merges it.

    The SDK appends `chat/completions` to the raw path (query string included), so a pasted query
    string ends up glued to the endpoint: `...?utm_source=xchat/completions`.
    """
    try:
        base = httpx2.URL(base_url.strip())
    except (httpx2.InvalidURL, TypeError, ValueError):
        return base_url.strip().rstrip("/") + "/chat/completions"
    path, sep, query = base.raw_path.partition(b"?")
    raw = base.raw_path if path.endswith(b"/") else path + b"/" + sep + query
    return str(base.copy_with(raw_path=raw + b"chat/completions"))


def is_loopback(host: str | None) -> bool:
    """True for localhost and loopback addresses."""
    if not host:
        return False
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lint_base_url(url: str) -> LintReport:
    """Check a base URL and propose a fix for each finding."""
    findings: list[Finding] = []
    fixed = url
    if url != url.strip() or any(c.isspace() for c in url.strip()):
        findings.append(
            Finding(
                "whitespace",
                "error",
                "The URL has stray white space.",
                "Remove spaces, tabs and line breaks.",
            )
        )
        fixed = "".join(url.split())
    if not fixed:
        return LintReport(
            url, [Finding("empty", "error", "The base URL is empty.", "Leave it unset to use the simulator.")]
        )
    if "://" not in fixed:
        findings.append(
            Finding("missing_scheme", "error", "The URL has no scheme (https://).", f"Use https://{fixed}")
        )
        fixed = "https://" + fixed
    problem = url_problem(fixed)
    if problem is not None:
        findings.append(
            Finding(
                "invalid_url",
                "error",
                f"The base URL is not a valid URL ({problem}).",
                "Check the brackets around an IPv6 address, the port number and the scheme.",
            )
        )
        return LintReport(url, _sorted(findings), None, "")
    parts = urlsplit(fixed)
    scheme, host, path = parts.scheme.lower(), (parts.hostname or ""), parts.path
    if scheme not in ("http", "https"):
        findings.append(
            Finding("bad_scheme", "error", f"Scheme '{scheme}' is not http or https.", "Use an https:// URL.")
        )
    if not host:
        findings.append(Finding("no_host", "error", "The URL has no host name.", "Give the API's host name."))
    findings += _carried_findings(fixed)
    if scheme == "http" and host and not is_loopback(host):
        findings.append(
            Finding(
                "plain_http",
                "error",
                f"Plain http:// to {host} sends the key unencrypted.",
                "Use https://, or a loopback host for a local server.",
            )
        )
        fixed_scheme = "https"
    else:
        fixed_scheme = scheme or "https"
    findings += _lookalike_findings(host)
    new_path = _without_endpoint(path, findings)
    host_l = host.lower()
    if host_l in HOME_PAGES:
        root = HOME_PAGES[host_l]
        findings.append(
            Finding("home_page", "error", f"{host} is a web site, not the API root.", f"Use {root}")
        )
        return _report(url, findings, root)
    new_path = _with_version(fixed, host_l, new_path, findings)
    suggestion = urlunsplit((fixed_scheme, parts.netloc, new_path.rstrip("/") or "", "", ""))
    return _report(url, findings, suggestion)


def _without_endpoint(path: str, findings: list[Finding]) -> str:
    """The path without an endpoint the SDK appends itself (`/chat/completions`), noting it."""
    for suffix in ENDPOINT_SUFFIXES:
        if path.rstrip("/").endswith(suffix):
            findings.append(
                Finding(
                    "endpoint_path",
                    "error",
                    f"The URL ends in '{suffix}'; the SDK appends it again.",
                    f"End the base URL before '{suffix}'.",
                )
            )
            return path.rstrip("/")[: -len(suffix)]
    return path


def _with_version(url: str, host: str, path: str, findings: list[Finding]) -> str:
    """The path with the version segment most servers want, noting when it was missing."""
    segments = [s for s in path.split("/") if s]
    if not host or any(_is_version(s) for s in segments):
        return path
    want = VERSION_ROOTS.get(host, "/v1")
    findings.append(
        Finding(
            "missing_version",
            "warning" if host not in VERSION_ROOTS else "error",
            f"The path has no version segment; the SDK will call {chat_url(url)}.",
            f"Most OpenAI-compatible servers want '{want}' at the end of the base URL.",
        )
    )
    return path.rstrip("/") + want


def _carried_findings(url: str) -> list[Finding]:
    """What the URL carries besides its API root: a query string, a fragment, something key-shaped."""
    parts = urlsplit(url)
    findings: list[Finding] = []
    if parts.query:
        tracking = [
            k for k, _ in parse_qsl(parts.query, keep_blank_values=True) if k.lower().startswith("utm_")
        ]
        what = "tracking parameters (utm_...) copied from a web page" if tracking else "a query string"
        findings.append(
            Finding(
                "query_string",
                "error",
                f"The URL carries {what}; the SDK would send it on every call.",
                "Drop everything from '?' on.",
            )
        )
    if parts.fragment:
        findings.append(
            Finding("fragment", "error", "The URL has a '#' fragment.", "Drop everything from '#' on.")
        )
    secret_in = secret_places(url)
    if secret_in:
        findings.append(
            Finding(
                "secret_in_url",
                "warning",
                f"The URL carries what looks like a key (in its {' and '.join(secret_in)}); every proxy and "
                "server log on the way sees it, and logs only ever show it masked.",
                "Take the key out of the URL and export it in the key variable (--key-env).",
            )
        )
    return findings


def _lookalike_findings(host: str) -> list[Finding]:
    """A host written with non-ASCII letters, shown in its DNS (`xn--`) form: it may imitate another."""
    if host.isascii():
        return []
    try:
        dns = dns_host(host)
    except RouteError as err:
        return [Finding("non_ascii_host", "error", err.message, "Use the host's plain ASCII name.")]
    return [
        Finding(
            "non_ascii_host",
            "warning",
            f"The host {ascii(host)} holds non-ASCII letters: its DNS name is {dns}, which may imitate "
            "another host.",
            f"Write the host as {dns} if you mean that one, else the plain ASCII host you meant.",
        )
    ]


def _is_version(segment: str) -> bool:
    return re.fullmatch(r"v\d+(\.\d+)?(alpha\d*|beta\d*)?", segment.lower()) is not None


def _sorted(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: f.severity != "error")


def _report(url: str, findings: list[Finding], suggestion: str) -> LintReport:
    ordered = _sorted(findings)
    return LintReport(
        base_url=url,
        findings=ordered,
        suggested=suggestion if suggestion != url else None,
        call_url=chat_url(url.strip()),
    )


def url_problem(url: str) -> str | None:
    """Why a URL cannot be parsed at all (e.g. `Invalid IPv6 URL`, a bad port), else None."""
    try:
        parts = urlsplit(url.strip())
        _ = parts.hostname, parts.port
        httpx2.URL(url.strip())
    except (ValueError, TypeError, httpx2.InvalidURL) as err:
        return str(err).splitlines()[0] if str(err) else type(err).__name__
    return None


def require_valid_url(url: str, where: str = "the base URL") -> None:
    """Refuse a base URL that does not parse, in one line that does not repeat the URL (it may hold a secret).

    Raises:
        RouteError: naming `where` and the parse problem.
    """
    problem = url_problem(url)
    if problem is not None:
        raise RouteError(f"{where} is not a valid URL ({problem}); check brackets, port and scheme")


__all__ = [
    "REDACTED",
    "Finding",
    "LintReport",
    "chat_url",
    "has_redaction",
    "is_loopback",
    "lint_base_url",
    "looks_like_secret",
    "redact_url",
    "secret_places",
    "require_valid_url",
    "strip_query",
    "url_problem",
]
