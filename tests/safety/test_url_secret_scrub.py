"""A secret in the base URL's user info, path or query is scrubbed wherever the server echoes it:
a 404 body quoting the path never puts the token into the log's error message, into `check`'s
output or into a job's message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_endpoint import HostileEndpoint, Received, Reply

from analyzer.cli import main
from analyzer.safety.url_secrets import secret_values

PATH_TOKEN = "-".join(["sk", "gwPathTOKEN", "9f8e7d6c5b4a3928"])  # assembled: no key-shaped literal
QUERY_TOKEN = "".join(["qT", "0k3n", "ZZ", "1234567890abcdefXYZ"])
PASSWORD = "".join(["pw", "S3cret", "value"])
TASKS = Path("tests/fixtures/tasks/three_tasks.json")


def _echo(got: Received) -> Reply:
    """A 404 quoting the request path and query back, as many gateways do."""
    body = {"error": {"message": f"no route for {got.path} (token {got.path.split('?')[-1]})", "type": "nf"}}
    return Reply(404, {"content-type": "application/json", "x-echo": got.path}, json.dumps(body).encode())


def _base(ep: HostileEndpoint) -> str:
    return f"http://user:{PASSWORD}@127.0.0.1:{ep.port}/key/{PATH_TOKEN}/v1?token={QUERY_TOKEN}"


def test_the_url_secrets_are_named_for_the_scrubber() -> None:
    found = secret_values(f"https://u:{PASSWORD}@gw.example.com/key/{PATH_TOKEN}/v1?token={QUERY_TOKEN}&v=1")
    assert {PASSWORD, PATH_TOKEN, QUERY_TOKEN} <= set(found) and "v1" not in found and "1" not in found


def test_an_echoed_path_token_never_reaches_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k-echo-test-0123456789")
    out = tmp_path / "r.altk_runs.json"
    with HostileEndpoint(_echo) as ep:
        args = ["run", "--tasks", str(TASKS), "--out", str(out), "--repeat", "1", "--max-retries", "0"]
        main([*args, "--base-url", _base(ep), "--quiet"])
        assert any(PATH_TOKEN in r.path for r in ep.received)  # the server did see (and echo) it
    text = out.read_text() + capsys.readouterr().err
    assert "no route for" in text  # the echo is kept, its secrets masked
    for secret in (PATH_TOKEN, QUERY_TOKEN, PASSWORD):
        assert secret not in text


def test_check_output_never_shows_an_echoed_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k-echo-test-0123456789")
    with HostileEndpoint(_echo) as ep:
        main(["check", "--base-url", _base(ep), "--json"])
    printed = capsys.readouterr()
    text = printed.out + printed.err
    assert text.strip()
    for secret in (PATH_TOKEN, QUERY_TOKEN, PASSWORD):
        assert secret not in text
