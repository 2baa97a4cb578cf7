"""Base URL lint for coding-tool settings: analyzer.routes.url_lint's errors, minus what only the SDK needs.

url_lint judges a root for the OpenAI SDK. Two of its findings need care here: `home_page` fires on
every URL of a listed host, even the documented API root on that host (https://openrouter.ai/api/v1),
so it is dropped when the URL is that very root; `missing_version` is the caller's to judge (Claude
Code's root has no version segment on purpose). A host with non-ASCII letters (a possible look-alike)
is an error here: an export refuses it and names its `xn--` form.
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

from analyzer.routes.url_lint import HOME_PAGES, Finding, lint_base_url


def lint_findings(url: str, *, want_version: bool) -> list[Finding]:
    """url_lint's findings for `url`, the spurious `home_page` removed, `missing_version` on request."""
    host = (urlsplit(url.strip()).hostname or "").lower()
    found: list[Finding] = []
    for finding in lint_base_url(url).findings:
        if finding.code == "home_page" and HOME_PAGES.get(host) == url.strip().rstrip("/"):
            continue
        if finding.code == "missing_version" and not want_version:
            continue
        if finding.code == "non_ascii_host":  # never written into a tool's settings as it looks
            finding = replace(finding, severity="error")
        found.append(finding)
    return found


def lint_errors(url: str) -> list[Finding]:
    """Only the findings that make calls fail (severity `error`), version segment not required."""
    return [f for f in lint_findings(url, want_version=False) if f.severity == "error"]


__all__ = ["lint_errors", "lint_findings"]
