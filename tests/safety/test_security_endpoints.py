"""Hostile endpoints: a real local server that redirects, echoes the key or answers garbage.

Each test runs the real runner or `check` against `HostileEndpoint` on 127.0.0.1 and asserts what a
user would notice: where the key went, what the log says, what `check` prints.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Received, Reply, completion
from plan_kit import run_tasks

from analyzer.analysis import analyze
from analyzer.cli import main
from analyzer.log.loader import load_path
from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.runner.preflight import check_route
from analyzer.safety.keys import key_fingerprint

TASKS = [TaskSpec(task_id="t1", prompt="Say OK."), TaskSpec(task_id="t2", prompt="Say OK.")]


def _key_forms() -> list[str]:
    """The key as a hostile endpoint might echo it, each of which must never be written down."""
    raw = FAKE_KEY.encode()
    return [
        FAKE_KEY,
        FAKE_KEY.lower(),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode(),
        base64.b64encode(b"Bearer " + raw).decode(),
        raw.hex(),
        raw.hex().upper(),
    ]


def _telltales() -> list[str]:
    """What must not appear anywhere: each form above, and the key's own part of `b64("Bearer " + key)`.

    "Bearer " is 7 bytes, so the key's bits start at bit 56: characters 10 (ceil(56 / 6)) up to
    floor(8 * (7 + len) / 6) encode nothing but the key.
    """
    wrapped = base64.b64encode(b"Bearer " + FAKE_KEY.encode()).decode()
    return [*_key_forms(), wrapped[10 : 8 * (7 + len(FAKE_KEY)) // 6]]


def _no_key(text: str) -> None:
    for form in _telltales():
        assert form.lower() not in text.lower(), f"key form {form[:12]}... leaked"


def _files_clean(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            _no_key(path.read_text(errors="replace"))


def _redirect_to(target: HostileEndpoint, status: int = 307) -> Callable[[Received], Reply]:
    return lambda got: Reply(status, {"location": f"{target.origin}{got.path}"})


# 1. a redirect never carries the key to another host ---------------------------------------------


def test_a_redirect_to_another_host_never_delivers_the_key_and_unpins_the_route(tmp_path: Path) -> None:
    with (
        HostileEndpoint(lambda got: completion("OK")) as other,
        HostileEndpoint(_redirect_to(other)) as route,
    ):
        profile = RouteProfile(base_url=route.base_url, max_retries=0)
        out = run_tasks(TASKS, profile, tmp_path / "r.json", rounds=2, api_key=FAKE_KEY)
    assert len(route.received) == 4 and len(other.received) == 4
    assert all(r.headers.get("Authorization") == f"Bearer {FAKE_KEY}" for r in route.received)
    assert all("authorization" not in {k.lower() for k in r.headers} for r in other.received)
    _no_key(other.seen())
    log = load_path(out.path).log
    first = log.runs[0][0].attempts
    assert [a.outcome for a in first] == ["redirect", "ok"]
    assert first[0].status_code == 307 and first[0].redirect_to == f"{other.origin}/v1/chat/completions"
    assert first[1].base_url == other.origin and first[1].key_fingerprint is None
    analysis = analyze(log)
    head = analysis.headline
    assert head.route.pinned is False and "base_url" in head.route.drifted_fields
    keys_by_url = analysis.routes.groupby("base_url", dropna=False)["key_fingerprint"].agg(list).to_dict()
    assert keys_by_url[route.base_url] == [key_fingerprint(FAKE_KEY)]  # the result's route and its call
    assert pd.isna(keys_by_url[other.origin]).all()  # no key went there, so the route table shows none
    assert log.runs[0][0].route.key_fingerprint == key_fingerprint(FAKE_KEY)
    assert head.retries.by_outcome == {"redirect": 4, "ok": 4}
    assert [a.retry for a in first] == [0, 0]  # following a redirect is not a retry
    assert head.retries.extra_attempts == 0 and head.retries.results_with_retry == 0
    assert head.route.verdict.startswith("Route not pinned")
    _files_clean(tmp_path)


def _agent_with_own_headers(task: TaskSpec, client: Any, route: RouteProfile) -> str:
    """A team's executor that adds its own credential headers (as an Azure-style agent would)."""
    headers = {"api-key": FAKE_KEY, "x-trace": f"caller={base64.b64encode(FAKE_KEY.encode()).decode()}"}
    reply = client.chat.completions.create(
        model=route.model, messages=[{"role": "user", "content": task.prompt}], extra_headers=headers
    )
    return str(reply.choices[0].message.content)


def test_an_executors_own_credential_headers_stay_home_too(tmp_path: Path) -> None:
    with (
        HostileEndpoint(lambda got: completion("OK")) as other,
        HostileEndpoint(_redirect_to(other)) as route,
    ):
        profile = RouteProfile(base_url=route.base_url, max_retries=0)
        run_tasks(
            TASKS[:1],
            profile,
            tmp_path / "r.json",
            rounds=1,
            api_key=FAKE_KEY,
            executor=_agent_with_own_headers,
        )
    (home,) = route.received
    assert home.headers.get("api-key") == FAKE_KEY and "x-trace" in home.headers
    (away,) = other.received
    assert {"api-key", "x-trace", "authorization"}.isdisjoint(k.lower() for k in away.headers)
    _no_key(other.seen())


def test_a_same_host_redirect_keeps_the_key_and_is_recorded() -> None:
    def script(got: Received) -> Reply:
        if got.path == "/old/chat/completions":
            return Reply(308, {"location": "/v1/chat/completions"})
        return completion("OK")

    with HostileEndpoint(script) as route:
        d = check_route(RouteProfile(base_url=f"{route.origin}/old"), api_key=FAKE_KEY)
    assert [r.headers.get("Authorization") for r in route.received] == [f"Bearer {FAKE_KEY}"] * 2
    assert not d.ok and d.kind == "redirect" and d.status_code == 308
    assert "the key was not sent there" not in d.headline
    assert d.fix == f"Use --base-url {route.origin}/v1 (the endpoint moved; a pinned route never redirects)."


def test_check_reports_a_cross_host_redirect_with_the_fix(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    refuse = Reply(401, {}, b'{"error": {"message": "no key"}}')
    with HostileEndpoint(lambda got: refuse) as other, HostileEndpoint(_redirect_to(other, 302)) as route:
        code = main(["check", "--base-url", route.base_url])
    out = capsys.readouterr()
    assert code == 1
    host = f"127.0.0.1:{route.port}"
    assert f"FAILED: 302: {host} redirects the call to {other.origin}/v1/chat/completions" in out.out
    assert "the key was not sent there" in out.out
    assert f"use --base-url {other.origin}/v1; a pinned route never redirects" in out.out
    assert "refused the key" not in out.out  # the other host's 401 is not blamed on the key
    _no_key(other.seen() + out.out + out.err)


# 3. a key echoed back, in any form, is never written down ----------------------------------------


@pytest.mark.parametrize("form", range(len(_key_forms())))
def test_a_200_echoing_the_key_writes_it_nowhere(form: int, tmp_path: Path) -> None:
    echoed = _key_forms()[form]
    reply = completion(f"The answer. Your key: {echoed}", model=f"m-{echoed}", fingerprint=f"fp_{echoed}")
    with HostileEndpoint(lambda got: reply) as route:
        profile = RouteProfile(base_url=route.base_url, max_retries=0)
        out = run_tasks(TASKS, profile, tmp_path / "r.json", rounds=1, api_key=FAKE_KEY)
        d = check_route(profile, api_key=FAKE_KEY)
    result = load_path(out.path).log.runs[0][0]
    assert result.status == "ok" and "[redacted]" in str(result.answer)
    assert "[redacted]" in str(result.served_model) and "[redacted]" in str(result.system_fingerprint)
    assert d.ok and "[redacted]" in str(d.served_model)
    _no_key(json.dumps(d.to_dict()) + "\n".join(d.lines()))
    _files_clean(tmp_path)


def test_a_key_written_with_unicode_escapes_is_scrubbed_too(tmp_path: Path) -> None:
    escaped = "".join(f"\\u{ord(c):04x}" for c in FAKE_KEY)
    body = completion("X").body.decode().replace('"content": "X"', f'"content": "{escaped}"')
    with HostileEndpoint(
        lambda got: Reply(200, {"content-type": "application/json"}, body.encode())
    ) as route:
        out = run_tasks(
            TASKS[:1], RouteProfile(base_url=route.base_url), tmp_path / "r.json", rounds=1, api_key=FAKE_KEY
        )
    assert load_path(out.path).log.runs[0][0].answer == "[redacted]"
    _files_clean(tmp_path)


@pytest.mark.parametrize("form", range(len(_key_forms())))
def test_an_error_body_echoing_the_key_reaches_no_output(
    form: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    body = json.dumps({"error": {"message": f"invalid key {_key_forms()[form]}"}}).encode()
    with HostileEndpoint(lambda got: Reply(400, {"x-echo": _key_forms()[form]}, body)) as route:
        tasks = tmp_path / "tasks.json"
        tasks.write_text(json.dumps([t.model_dump(exclude_none=True) for t in TASKS]))
        args = ["--base-url", route.base_url, "--max-retries", "0"]
        run_code = main(
            ["run", "--tasks", str(tasks), "--out", str(tmp_path / "r.json"), "--repeat", "1", *args]
        )
        check_code = main(["check", *args])
    out = capsys.readouterr()
    assert run_code == 1 and check_code == 1
    assert "invalid key " in out.out and "[redacted]" in out.out
    _no_key(out.out + out.err)
    _files_clean(tmp_path)


# 8. check against an endpoint answering 200 with something that is not a completion ---------------


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"<html><body>Welcome to nginx!</body></html>", b"", b"[1, 2", b'{"choices": "none"}'],
)
def test_check_against_a_200_that_is_not_a_completion_is_one_line(
    body: bytes, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    ctype = "text/html" if body.startswith(b"<") else "application/json"
    with HostileEndpoint(lambda got: Reply(200, {"content-type": ctype}, body)) as route:
        code = main(["check", "--base-url", route.base_url])
    out = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in out.out + out.err
    first = out.out.splitlines()[0]
    assert first.startswith("FAILED: 200: ") and "is not a chat completion" in first
    assert "fix      " in out.out


# 12. Retry-After as an HTTP date --------------------------------------------------------------


def test_a_retry_after_http_date_is_recorded_in_seconds() -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    with HostileEndpoint(
        lambda got: Reply(429, {"retry-after": when}, b'{"error": {"message": "slow"}}')
    ) as route:
        d = check_route(RouteProfile(base_url=route.base_url), api_key=FAKE_KEY)
    assert d.kind == "rate_limited" and d.retry_after_s is not None
    assert 20 <= d.retry_after_s <= 31
    assert d.attempts[0].retry_after_s == d.retry_after_s
    assert "Retry-After" in d.headline


# 11. a key in the base URL's path or fragment is never written down ------------------------------


def test_a_key_in_the_base_urls_path_is_sent_but_never_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "another-key-0123456789")
    with HostileEndpoint(lambda got: completion("OK")) as route:
        base = f"{route.origin}/key/{FAKE_KEY}/v1"
        tasks = tmp_path / "tasks.json"
        tasks.write_text(json.dumps([t.model_dump(exclude_none=True) for t in TASKS]))
        out = tmp_path / "r.json"
        run_code = main(
            ["run", "--tasks", str(tasks), "--out", str(out), "--repeat", "1", "--base-url", base]
        )
        check_code = main(["check", "--base-url", base])
    printed = capsys.readouterr()
    assert run_code == 0 and check_code == 0
    assert all(r.path == f"/key/{FAKE_KEY}/v1/chat/completions" for r in route.received)  # the proxy got it
    log = load_path(out).log
    assert log.route is not None and log.route.base_url == f"{route.origin}/key/REDACTED/v1"
    assert "The URL carries what looks like a key (in its path)" in printed.out
    _no_key(printed.out + printed.err)
    _files_clean(tmp_path)
