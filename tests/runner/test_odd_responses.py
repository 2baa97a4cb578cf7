"""A 200 that is no chat completion is an error result with one line naming what was wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint, Reply, completion
from plan_kit import run_tasks

from analyzer.log.loader import load_path
from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.runner.completion_shape import OddResponse, read_completion

GOOD: dict[str, Any] = json.loads(completion("Paris").body)


def _with(**changes: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is ...:
            del data[key]
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (_with(choices=...), "the response has no `choices`: not a chat completion"),
        (_with(choices=[]), "`choices` is empty: the provider returned no answer"),
        (_with(choices="none"), "`choices` is 'none', not a list"),
        (
            {"error": {"message": "model overloaded", "type": "server_error"}},
            "the response is an error object with status 200: model overloaded",
        ),
        (_with(error={"message": "quota"}), "the response is an error object with status 200: quota"),
        (_with(usage=True), "`usage` is true, not an object of token counts"),
        (_with(usage={"prompt_tokens": True}), "`usage.prompt_tokens` is true, not a token count"),
        (_with(usage={"total_tokens": "12"}), "`usage.total_tokens` is '12', not a token count"),
        (_with(usage={"completion_tokens": -1}), "`usage.completion_tokens` is -1, not a token count"),
        (_with(choices=[{"index": 0}]), "`choices[0].message` is missing or not an object"),
        ([1, 2], "the response is a list: not a chat completion"),
        ("<html>nginx</html>", "the response is text, not JSON: not a chat completion"),
    ],
)
def test_each_odd_response_is_one_line(data: Any, line: str) -> None:
    with pytest.raises(OddResponse) as raised:
        read_completion(data)
    assert str(raised.value) == line


def test_a_good_completion_reads_as_before() -> None:
    got = read_completion(GOOD)
    assert got["answer"] == "Paris" and got["finish_reason"] == "stop"
    assert (got["prompt_tokens"], got["completion_tokens"], got["total_tokens"]) == (5, 1, 6)
    assert got["served_model"] == "gpt-4o-mini" and got["system_fingerprint"] == "fp_1"
    assert read_completion(_with(usage=...))["answer"] == "Paris"  # no usage: tokens unknown, not 0


def usage_true(task: TaskSpec, client: object, route: object) -> dict[str, object]:
    return {"answer": "x", "usage": {"prompt_tokens": True, "completion_tokens": 2}}


def test_an_agent_reporting_usage_true_is_an_error_not_one_token(tmp_path: Path) -> None:
    tasks = [TaskSpec(task_id="t1", prompt="Say OK.")]
    out = run_tasks(tasks, RouteProfile(), tmp_path / "r.json", rounds=1, executor=usage_true)
    (result,) = load_path(out.path).log.runs[0]
    assert result.status == "error" and result.error is not None
    assert result.error.type == "InvalidExecutorResult" and result.total_tokens is None
    assert "prompt_tokens=True" in (result.error.message or "")


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (b'{"id": "x", "object": "chat.completion", "model": "m"}', "no `choices`"),
        (json.dumps(_with(choices=[])).encode(), "`choices` is empty"),
        (b'{"error": {"message": "upstream failed"}}', "error object with status 200: upstream failed"),
        (json.dumps(_with(usage=True)).encode(), "`usage` is true"),
    ],
)
def test_a_run_records_an_odd_200_as_an_error(body: bytes, line: str, tmp_path: Path) -> None:
    tasks = [TaskSpec(task_id="t1", prompt="Say OK.")]
    with HostileEndpoint(lambda got: Reply(200, {"content-type": "application/json"}, body)) as route:
        profile = RouteProfile(base_url=route.base_url, max_retries=0)
        out = run_tasks(tasks, profile, tmp_path / "r.json", rounds=1, api_key=FAKE_KEY)
    (result,) = load_path(out.path).log.runs[0]
    assert result.status == "error" and result.answer is None and result.total_tokens is None
    assert result.error is not None and result.error.type == "OddResponse"
    assert line in (result.error.message or "") and "\n" not in (result.error.message or "")
    assert result.error.http_status == 200


def test_a_run_against_a_good_endpoint_still_answers(tmp_path: Path) -> None:
    tasks = [TaskSpec(task_id="t1", prompt="Say OK.")]
    with HostileEndpoint(lambda got: completion("OK")) as route:
        profile = RouteProfile(base_url=route.base_url, max_retries=0)
        out = run_tasks(tasks, profile, tmp_path / "r.json", rounds=1, api_key=FAKE_KEY)
    (result,) = load_path(out.path).log.runs[0]
    assert (result.status, result.answer, result.total_tokens) == ("ok", "OK", 6)
