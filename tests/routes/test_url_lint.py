"""Base URL lint: each mistake is found, has a fix, and the call URL is the one the SDK builds."""

from __future__ import annotations

import openai
import pytest
from fake_keys import FAKE_KEY

from analyzer.routes.url_lint import chat_url, lint_base_url


def codes(url: str) -> list[str]:
    return [f.code for f in lint_base_url(url).findings]


def test_clean_url_has_no_findings() -> None:
    report = lint_base_url("https://api.openai.com/v1")
    assert report.ok and report.suggested is None
    assert report.call_url == "https://api.openai.com/v1/chat/completions"


@pytest.mark.parametrize(
    ("url", "code", "suggested"),
    [
        ("https://api.openai.com/v1?utm_source=newsletter", "query_string", "https://api.openai.com/v1"),
        ("https://api.openai.com/v1#docs", "fragment", "https://api.openai.com/v1"),
        ("https://platform.openai.com/docs", "home_page", "https://api.openai.com/v1"),
        ("api.openai.com/v1", "missing_scheme", "https://api.openai.com/v1"),
        ("http://llm.example.com/v1", "plain_http", "https://llm.example.com/v1"),
        (" https://api.openai.com/v1\n", "whitespace", "https://api.openai.com/v1"),
        ("https://api.openai.com", "missing_version", "https://api.openai.com/v1"),
        ("https://api.openai.com/v1/chat/completions", "endpoint_path", "https://api.openai.com/v1"),
    ],
)
def test_each_mistake_is_found_with_a_fix(url: str, code: str, suggested: str) -> None:
    report = lint_base_url(url)
    finding = next(f for f in report.findings if f.code == code)
    assert finding.fix and finding.message
    assert report.suggested == suggested


def test_loopback_http_is_fine() -> None:
    assert "plain_http" not in codes("http://127.0.0.1:8000/v1")
    assert "plain_http" not in codes("http://localhost:11434/v1")


def test_utm_parameters_are_named_as_tracking() -> None:
    finding = lint_base_url("https://api.openai.com/v1?utm_source=x").findings[0]
    assert "utm_" in finding.message


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1",
        "https://api.openai.com/v1/",
        "https://openai.com/?utm_source=x",
        "http://127.0.0.1:8000/v1#frag",
        "https://example.com/openai",
    ],
)
def test_call_url_is_what_the_sdk_calls(url: str) -> None:
    client = openai.OpenAI(api_key="lint-test", base_url=url)
    assert chat_url(url) == str(client._prepare_url("chat/completions"))


def test_redact_url_hides_secrets_in_query_and_userinfo() -> None:
    from analyzer.routes.url_lint import redact_url

    assert redact_url("https://api.openai.com/v1") == "https://api.openai.com/v1"
    shown = redact_url("https://proxy.example.com/v1?key=sk-abc123456&utm_source=x")
    assert "sk-abc" not in shown and shown.startswith("https://proxy.example.com/v1?key=")
    assert "hunter2" not in redact_url("https://me:hunter2@proxy.example.com/v1")


def test_scrub_removes_keys_from_provider_messages() -> None:
    from analyzer.safety.scrub import scrub

    key = FAKE_KEY
    text = f"Incorrect API key provided: {key}. Also sk-proj-****************cdef was masked."
    clean = scrub(text, [key])
    assert "DO-NOT-LEAK" not in clean and "sk-proj" not in clean


@pytest.mark.parametrize(
    "url",
    [
        "http://u:pw@h/v1",
        "http://token@h/v1",
        "https://proxy.example.com/v1?key=sk-abc123456&x",
        "http://u:secret@127.0.0.1:9/v1",
        "https://api.openai.com/v1",
    ],
)
def test_redact_url_is_idempotent_and_stays_parseable(url: str) -> None:
    from analyzer.routes.url_lint import redact_url, url_problem

    once = redact_url(url)
    assert redact_url(once) == once
    assert url_problem(once) is None
    for secret in (":pw@", "secret", "sk-abc", "token"):
        assert secret not in once


@pytest.mark.parametrize("url", ["http://[::1:9/v1", "http://127.0.0.1:port/v1", "https://[zz]/v1"])
def test_an_unparseable_url_is_a_finding_not_a_traceback(url: str) -> None:
    from analyzer.errors import RouteError
    from analyzer.routes.url_lint import require_valid_url

    report = lint_base_url(url)
    assert report.has_errors and report.findings[0].code == "invalid_url"
    assert "not a valid URL" in report.findings[0].message
    with pytest.raises(RouteError, match="not a valid URL"):
        require_valid_url(url)
