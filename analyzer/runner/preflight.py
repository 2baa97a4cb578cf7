"""Preflight: one minimal chat completion through the route, and a diagnosis a person can act on."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice

import analyzer.numbers as numbers
from analyzer.log.model import Attempt
from analyzer.routes.profile import RouteProfile
from analyzer.routes.url_lint import Finding, chat_url, lint_base_url, redact_url, url_problem
from analyzer.runner.client import make_client
from analyzer.runner.embedded import serving
from analyzer.runner.transport import KeyRing, recording
from analyzer.safety.keys import (
    SIMULATOR_KEY,
    dirty_key_message,
    key_fingerprint,
    key_is_dirty,
    key_problem,
    read_keys,
)
from analyzer.safety.scrub import one_line, scrub
from analyzer.safety.terminal_text import visible
from analyzer.safety.url_secrets import secret_values
from analyzer.simulator import Scenario

DiagnosisKind = Literal[
    "ok",
    "auth",
    "not_found",
    "model_not_found",
    "rate_limited",
    "timeout",
    "connection_refused",
    "unknown_host",
    "connection",
    "server_error",
    "bad_request",
    "bad_key",
    "bad_url",
    "redirect",
    "bad_response",
    "error",
]

CHECK_PROMPT = "Reply with OK."


@dataclass
class Diagnosis:
    """What one minimal completion through the route came to, and what to do about it."""

    ok: bool
    """True when the route answered."""
    kind: DiagnosisKind
    """What happened, as a fixed vocabulary."""
    headline: str
    """One line: what happened."""
    fix: str | None
    """One line: what to do, when something is wrong."""
    base_url: str
    """API root called."""
    call_url: str
    """Exact URL the SDK called."""
    simulator: bool
    """True when the embedded simulator answered."""
    key_env: str
    """Environment variable the key was read from."""
    key_fingerprint: str | None
    """Fingerprint of that key (never the key)."""
    key_problem: str | None = None
    """`empty`, `placeholder` or `whitespace` when the key is obviously unusable."""
    status_code: int | None = None
    """HTTP status of the attempt, when one arrived."""
    latency_ms: float | None = None
    """Wall time of the call."""
    served_model: str | None = None
    """Model the provider reported."""
    system_fingerprint: str | None = None
    """Backend fingerprint the provider reported."""
    retry_after_s: float | None = None
    """Retry-After on a 429."""
    details: list[str] = field(default_factory=list)
    """Further facts, one line each."""
    lint: list[Finding] = field(default_factory=list)
    """Base URL lint findings."""
    attempts: list[Attempt] = field(default_factory=list)
    """The attempt(s) made."""

    def lines(self) -> list[str]:
        """The diagnosis as lines for a terminal."""
        out = [("OK: " if self.ok else "FAILED: ") + self.headline]
        out.append(f"  called   {self.call_url}" + ("  (built-in simulator)" if self.simulator else ""))
        out.append(f"  key      {self.key_env} -> {self.key_fingerprint or '(empty)'}")
        out += [f"  note     {d}" for d in self.details]
        out += [f"  lint     {f.message} Fix: {f.fix}" for f in self.lint]
        if self.fix:
            out.append(f"  fix      {self.fix}")
        return [visible(line) for line in out]  # a served model or message never drives the terminal

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (attempt times as ISO strings)."""
        data = asdict(self)
        data["attempts"] = [a.model_dump(mode="json") for a in self.attempts]
        return data


def check_route(
    profile: RouteProfile,
    *,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
    scenario: Scenario | None = None,
) -> Diagnosis:
    """Send one chat completion asking for "OK" (max_tokens 8, no retries) and diagnose the reply."""
    source = os.environ if env is None else env
    lint = lint_base_url(profile.base_url).findings if profile.base_url else []
    key_env = "(given for this session)" if api_key is not None else profile.key_env
    problem_url = url_problem(profile.base_url) if profile.base_url else None
    if problem_url is not None:
        head = f"the base URL is not a valid URL ({problem_url})"
        fix = "Check the brackets around an IPv6 address, the port number and the scheme."
        return _refused(profile, "bad_url", head, fix, key_env, None, lint)
    key = read_keys([profile.key_env], session_key=api_key, env=source, check=False).keys[0]
    if key and key_is_dirty(key):  # never sent: the HTTP library would quote it in its error
        what = "the key given for this session" if api_key is not None else profile.key_env
        head = dirty_key_message(what).replace("the key in the key", "the key")
        fix = "Remove the line break, spaces or control characters in the key and export it again."
        return _refused(profile, "bad_key", head, fix, key_env, key_fingerprint(key), lint, "whitespace")
    with serving(profile, scenario=scenario) as served:
        problem = key_problem(key) if served.simulator is None else None
        if served.simulator is not None and not key:
            key = SIMULATOR_KEY
            key_env = f"{profile.key_env} is not set; the simulator's public key"
        keys = KeyRing([key], secret_values(served.base_url))
        client, _transport = make_client(profile, served.base_url, keys, max_retries=0)
        base = Diagnosis(
            ok=False,
            kind="error",
            headline="",
            fix=None,
            base_url=served.shown_url,
            call_url=redact_url(chat_url(served.base_url)),
            simulator=served.simulator is not None,
            key_env=key_env,
            key_fingerprint=key_fingerprint(key),
            key_problem=problem,
            lint=lint,
        )
        if served.notice:
            base.details.append(served.notice)
        t0 = time.perf_counter()
        with recording() as rec:
            try:
                completion = client.chat.completions.create(
                    model=profile.model,
                    messages=[{"role": "user", "content": CHECK_PROMPT}],
                    max_tokens=8,
                    temperature=0,
                )
                error: Exception | None = None
            except (openai.OpenAIError, ValueError) as exc:  # ValueError: a 200 that is not JSON
                error = exc
        client.close()
    base.latency_ms = round((time.perf_counter() - t0) * 1000, 1)
    base.attempts = rec.attempts
    if rec.attempts:
        base.status_code = rec.attempts[-1].status_code
        base.retry_after_s = rec.attempts[-1].retry_after_s
    if _redirected(base) or _not_a_completion(base, error, completion if error is None else None):
        return base
    if error is None:
        base.ok, base.kind = True, "ok"
        base.served_model, base.system_fingerprint = completion.model, completion.system_fingerprint
        reply = (completion.choices[0].message.content or "") if completion.choices else ""
        base.headline = f"{completion.model} answered {reply.strip()[:20]!r} in {base.latency_ms:.0f} ms"
        if completion.system_fingerprint:
            base.details.append(f"system_fingerprint {completion.system_fingerprint}")
        return base
    _diagnose(base, error, profile, [key])
    return base


def _redirected(d: Diagnosis) -> bool:
    """Report a redirect (a pinned route must not have one) and where it led; True when there was one."""
    hop = next((a for a in d.attempts if a.outcome == "redirect"), None)
    if hop is None:
        return False
    target = str(getattr(hop, "redirect_to", None) or "(unknown)")
    home = urlsplit(d.base_url).netloc or d.base_url
    there = urlsplit(target).netloc
    elsewhere = bool(there) and there != home
    d.ok, d.kind, d.status_code = False, "redirect", hop.status_code
    d.headline = f"{hop.status_code}: {home} redirects the call to {target}" + (
        "; the key was not sent there" if elsewhere else ""
    )
    suggestion = target[: -len("/chat/completions")] if target.endswith("/chat/completions") else None
    if suggestion and elsewhere:
        d.fix = (
            f"If {there} is this provider's API, use --base-url {suggestion}; a pinned route never redirects."
        )
    elif suggestion:
        d.fix = f"Use --base-url {suggestion} (the endpoint moved; a pinned route never redirects)."
    else:
        d.fix = "Use the API root the endpoint redirects to as the base URL; a pinned route never redirects."
    final = d.attempts[-1]
    d.details.append(
        f"after {numbers.counted(len(d.attempts) - 1, 'redirect')} "
        f"the last answer was HTTP {final.status_code}"
    )
    return True


def _not_a_completion(d: Diagnosis, error: Exception | None, completion: object) -> bool:
    """Report a reply that is not a chat completion (HTML, broken JSON, no choices); True when it is not."""
    if isinstance(error, openai.OpenAIError):
        return False
    if error is not None:
        what = "malformed JSON"
    elif isinstance(completion, str):
        what = "an HTML page" if completion.lstrip().startswith("<") else "plain text"
    elif not isinstance(completion, ChatCompletion):
        what = f"a JSON {type(completion).__name__}"
    elif not isinstance(completion.choices, list) or not all(
        isinstance(c, Choice) and isinstance(c.message, ChatCompletionMessage) for c in completion.choices
    ):
        what = "JSON without a completion's choices"
    else:
        return False
    host = urlsplit(d.base_url).netloc or d.base_url
    d.ok, d.kind = False, "bad_response"
    d.headline = f"{d.status_code}: {host} answered with {what}, which is not a chat completion"
    suggested = lint_base_url(d.base_url).suggested
    d.fix = (
        f"Try --base-url {suggested} (the API root, not a web page or proxy front page)."
        if suggested and suggested != d.base_url
        else "Check that the base URL is the API root (often ending in /v1), not a web page or front page."
    )
    return True


def _refused(
    profile: RouteProfile,
    kind: DiagnosisKind,
    headline: str,
    fix: str,
    key_env: str,
    fingerprint: str | None,
    lint: list[Finding],
    problem: str | None = None,
) -> Diagnosis:
    """A diagnosis made before any request: the route cannot be called as configured."""
    shown = redact_url(profile.base_url) if profile.base_url else "(built-in simulator)"
    return Diagnosis(
        ok=False,
        kind=kind,
        headline=headline,
        fix=fix,
        base_url=shown,
        call_url="(not called)",
        simulator=profile.uses_simulator,
        key_env=key_env,
        key_fingerprint=fingerprint,
        key_problem=problem,
        lint=lint,
    )


def _diagnose(d: Diagnosis, error: Exception, profile: RouteProfile, secrets: list[str]) -> None:
    message = one_line(scrub(str(error), secrets), 200)
    host = urlsplit(d.base_url).netloc or d.base_url
    suggested = next((f for f in lint_base_url(d.base_url).findings if f.severity == "error"), None)
    if isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        d.kind = "auth"
        d.headline = f"{error.status_code}: {host} refused the key read from {d.key_env}"
        if d.key_problem == "empty":
            d.fix = f"{d.key_env} is empty: export the key there (or pick the variable with --key-env)."
        elif d.key_problem == "placeholder":
            d.fix = f"{d.key_env} holds a placeholder, not a key: replace it with a real key."
        elif d.key_problem == "whitespace":
            d.fix = f"{d.key_env} has spaces or a line break around the key: strip them."
        elif error.status_code == 403:
            d.fix = "The key is valid but lacks access to this model or project: check its permissions."
        else:
            d.fix = f"The key is not valid for {host}: check it belongs to this provider and is not revoked."
        d.details.append(f"provider said: {message}")
    elif isinstance(error, openai.NotFoundError):
        body = error.body if isinstance(error.body, dict) else {}
        if (
            body.get("code") == "model_not_found"
            or "model" in message.lower()
            and "does not exist" in message
        ):
            d.kind = "model_not_found"
            d.headline = f"404: {host} does not serve the model '{profile.model}'"
            d.fix = "Pick a model this endpoint lists (GET /models), with --model or ALTK_MODEL."
        else:
            d.kind = "not_found"
            d.headline = f"404: nothing at {d.call_url}"
            d.fix = (
                f"{suggested.fix}"
                if suggested
                else "Check the base URL: the SDK appends /chat/completions to it."
            )
            if not suggested:
                fixed = lint_base_url(d.base_url).suggested
                if fixed:
                    d.fix = f"Try --base-url {fixed} (the SDK appends /chat/completions to the base URL)."
        d.details.append(f"provider said: {message}")
    elif isinstance(error, openai.RateLimitError):
        d.kind = "rate_limited"
        wait = f" Retry-After {d.retry_after_s:g} s." if d.retry_after_s is not None else ""
        d.headline = f"429: {host} is rate limiting this key.{wait}"
        d.fix = "Wait and retry, lower --concurrency, or check the key's quota and billing."
    elif isinstance(error, openai.APITimeoutError):
        d.kind = "timeout"
        d.headline = f"no reply from {host} within {profile.timeout_s:g} s"
        d.fix = "Raise --timeout, or check that the server is up and not overloaded."
    elif isinstance(error, openai.APIConnectionError):
        cause = _root_cause(error)
        text = f"{type(cause).__name__}: {cause}".lower()
        if "refused" in text or "errno 111" in text:
            d.kind = "connection_refused"
            d.headline = f"connection refused: nothing listens at {host}"
            d.fix = "Start the server, or fix the host and port in the base URL."
        elif any(
            s in text for s in ("name or service", "nodename", "getaddrinfo", "name resolution", "no address")
        ):
            d.kind = "unknown_host"
            d.headline = f"unknown host: {urlsplit(d.base_url).hostname} does not resolve"
            d.fix = "Check the spelling of the host in the base URL (and your DNS or VPN)."
        else:
            d.kind = "connection"
            d.headline = f"cannot connect to {host}: {one_line(scrub(str(cause), secrets), 120)}"
            d.fix = suggested.fix if suggested else "Check the base URL, proxy settings and TLS."
    elif isinstance(error, openai.InternalServerError):
        d.kind = "server_error"
        d.headline = f"{error.status_code}: {host} had a server error"
        d.fix = "Retry later; if it persists the provider is having trouble."
    elif isinstance(error, openai.APIStatusError):
        d.kind = "bad_request"
        d.headline = f"{error.status_code}: {host} rejected the request"
        d.fix = "Check the model name and parameters this provider supports."
        d.details.append(f"provider said: {message}")
    else:
        d.kind = "error"
        d.headline = f"{type(error).__name__}: {message}"
        d.fix = suggested.fix if suggested else None


def _root_cause(error: BaseException) -> BaseException:
    seen = error
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    return seen
