"""Executors: what running one task means. The default sends one chat completion.

A team's own agent plugs in as `module:function` (or `path/to/file.py:function`). It is called as
`function(task, client, route)` with the task (`TaskSpec`), the pinned `openai.OpenAI` client (every
HTTP attempt it makes is recorded) and the `RouteProfile`; it returns an `ExecutorResult`, a dict
with the same fields, or just the answer string.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from analyzer.errors import RerunLensError
from analyzer.log.model import MessageStep, TaskSpec, ToolCallStep
from analyzer.routes.profile import RouteProfile
from analyzer.runner.completion_shape import TOKEN_FIELDS, read_completion, usage_details

SYSTEM_PROMPT = (
    "You are an app-automation agent. Carry out the user's task and reply with the final answer only, "
    "no explanation."
)


@dataclass
class ExecutorResult:
    """What an executor returns for one task."""

    answer: str | None
    """The final answer text."""
    prompt_tokens: int | None = None
    """Prompt tokens spent (summed over every call the executor made)."""
    completion_tokens: int | None = None
    """Completion tokens spent."""
    total_tokens: int | None = None
    """Total tokens; computed from the two above when left out."""
    cached_tokens: int | None = None
    """Cached prompt tokens, where the usage details give them."""
    reasoning_tokens: int | None = None
    """Hidden reasoning tokens, where the usage details give them."""
    trajectory: list[dict[str, Any]] | None = None
    """Optional steps: `{"type": "tool_call", "name", "arguments"}` or `{"type": "message", "role", ...}`."""
    served_model: str | None = None
    """Model the provider reported (filled from the last response when left out)."""
    system_fingerprint: str | None = None
    """Backend fingerprint the provider reported (filled from the last response when left out)."""
    finish_reason: str | None = None
    """Why generation stopped."""


Executor = Callable[[TaskSpec, openai.OpenAI, RouteProfile], "ExecutorResult | dict[str, Any] | str"]


def default_executor(task: TaskSpec, client: openai.OpenAI, route: RouteProfile) -> ExecutorResult:
    """One chat completion: a short system prompt, then the task prompt.

    It sends exactly the JSON `client.chat.completions.create(...)` would send, through the SDK's own
    request path (base URL, retries, timeouts, error classes), but posts the body as is: the SDK's
    Python-side parameter transform costs 2-3 ms of CPU per call, the largest part of the runner's
    overhead when many tasks run at once. The reply is read as plain JSON and checked strictly
    (`completion_shape`): a 200 that is no completion is an error, never an empty answer.
    """
    body: dict[str, Any] = {
        "model": route.model,
        "messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": task.prompt}],
        "temperature": route.temperature,
        "top_p": route.top_p,
    }
    if route.seed is not None:
        body["seed"] = route.seed
    max_tokens = task.max_tokens if task.max_tokens is not None else route.max_tokens
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    data = client.post("/chat/completions", body=body, cast_to=object)
    return ExecutorResult(**read_completion(data))


def coerce_result(value: object, spec: str) -> ExecutorResult:
    """Accept an ExecutorResult, a dict of its fields or a plain answer string."""
    if isinstance(value, ExecutorResult):
        result = value
    elif isinstance(value, str):
        result = ExecutorResult(answer=value)
    elif isinstance(value, dict):
        usage = value.get("usage") or {}
        details = usage_details(usage)
        if not isinstance(usage, dict):
            usage = {
                k: getattr(usage, k, None) for k in ("prompt_tokens", "completion_tokens", "total_tokens")
            }
        fields = {k: v for k, v in value.items() if k in ExecutorResult.__dataclass_fields__}
        for k in TOKEN_FIELDS:
            fields.setdefault(k, usage.get(k))
        for k, count in details.items():
            fields.setdefault(k, count)
        if "answer" not in fields:
            raise RerunLensError(f"executor {spec} returned a dict without 'answer'")
        result = ExecutorResult(**fields)
    else:
        raise RerunLensError(
            f"executor {spec} returned {type(value).__name__}; expected ExecutorResult, dict or str"
        )
    if result.answer is not None and not isinstance(result.answer, str):
        result.answer = str(result.answer)
    if (
        result.total_tokens is None
        and result.prompt_tokens is not None
        and result.completion_tokens is not None
    ):
        result.total_tokens = result.prompt_tokens + result.completion_tokens
    if result.trajectory is not None:
        for step in result.trajectory:
            kind = step.get("type") if isinstance(step, dict) else None
            models: dict[str, type[ToolCallStep] | type[MessageStep]] = {
                "tool_call": ToolCallStep,
                "message": MessageStep,
            }
            model = models.get(str(kind))
            if model is None:
                raise RerunLensError(f"executor {spec}: trajectory step of unknown type {kind!r}")
            model.model_validate(step)
    return result


def load_executor(spec: str | None) -> tuple[Executor, str]:
    """Resolve `module:function` or `path/to/file.py:function`; None gives the default executor."""
    if not spec or spec == "default":
        return default_executor, "default"
    module_name, sep, func_name = spec.rpartition(":")
    if not sep or not module_name or not func_name:
        raise RerunLensError(f"executor '{spec}': expected module:function or path/to/file.py:function")
    try:
        if module_name.endswith(".py") or "/" in module_name:
            path = Path(module_name)
            if not path.is_file():
                raise RerunLensError(f"executor '{spec}': no such file {path}")
            mod_id = f"rerunlens_executor_{path.stem}"
            loader_spec = importlib.util.spec_from_file_location(mod_id, path)
            if loader_spec is None or loader_spec.loader is None:
                raise RerunLensError(f"executor '{spec}': cannot load {path}")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[mod_id] = module
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except RerunLensError:
        raise
    except Exception as err:  # an import error in the team's module, of any kind
        raise RerunLensError(
            f"executor '{spec}': cannot import {module_name}: {type(err).__name__}: {err}"
        ) from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise RerunLensError(f"executor '{spec}': {module_name} has no function {func_name}")
    return func, spec
