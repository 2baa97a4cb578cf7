"""The `judge` key's model: a chat model asked whether two answers say the same thing.

The judge's route is the user's own, never a log's: the environment's route (`OPENAI_BASE_URL`,
`OPENAI_API_KEY`) by default, or what `--judge-base-url`, `--judge-model` and `--judge-key-env`
name, the key variable checked as a re-run's is (`safety/keys.check_key_variable`). With no base URL
the built-in simulator judges (deterministically, `simulator/judge`). Every call: temperature 0, a
fixed seed, at most 60 tokens, through the pinned client (the key only to that origin, retries as
the route says); a failure is one `JudgeFailed` line with the key scrubbed. `limit` caps the calls of
one pass: past it the judge fails, and the tasks it did not reach keep their answers apart.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import weakref
from dataclasses import dataclass

import openai

from analyzer.metrics.judge import Decision, JudgeFailed
from analyzer.metrics.judge.prompt import JUDGE_MAX_TOKENS, JUDGE_SEED, judge_messages, read_verdict
from analyzer.routes.profile import RouteProfile, build_profile
from analyzer.runner.client import make_client
from analyzer.runner.embedded import key_ring, serving
from analyzer.safety.keys import allowed_key_variables, check_key_variable, read_keys
from analyzer.safety.scrub import one_line, scrub

__all__ = ["DEFAULT_JUDGE_MODEL", "JudgeRoute", "RouteJudge", "judge_profile"]

DEFAULT_JUDGE_MODEL = "gpt-4o-mini"


@dataclass(frozen=True)
class JudgeRoute:
    """What the user named for the judge (None: the environment's route)."""

    model: str | None = None
    base_url: str | None = None
    key_env: str | None = None


def judge_profile(route: JudgeRoute) -> RouteProfile:
    """The judge's route: the user's environment with the judge flags on top; a key variable the
    user's own route does not name is refused (one line), as for a re-run."""
    own = build_profile()
    if route.key_env is not None:
        check_key_variable(route.key_env, allowed_key_variables([own.key_env]))
    overrides = {"base_url": route.base_url, "key_env": route.key_env, "model": route.model}
    return build_profile(overrides=overrides)


class RouteJudge:
    """`decide(prompt, a, b)` over HTTP; `calls` counts the requests sent.

    One client (and, with no base URL, one simulator) serves every call of the judge's life: opened
    on the first call, closed by `close()` or when the judge is collected, so a pass of many calls
    pays for one connection, not one per call."""

    def __init__(self, profile: RouteProfile, limit: int | None = None) -> None:
        self.profile = profile
        self.model = profile.model or DEFAULT_JUDGE_MODEL
        where = profile.base_url.strip() if profile.base_url else "simulator"
        self.name = f"{self.model}@{hashlib.sha256(where.encode('utf-8')).hexdigest()[:12]}"
        """Names the model and the endpoint (by a hash of its URL): the cache key's model part."""
        self.limit = limit
        self.calls = 0
        self._opened: _Opened | None = None
        self._opening = threading.Lock()

    def _open(self) -> _Opened:
        with self._opening:
            if self._opened is None:
                keys = read_keys([self.profile.key_env])
                stack = contextlib.ExitStack()
                served = stack.enter_context(serving(self.profile))
                client, _transport = make_client(self.profile, served.base_url, key_ring(keys, served))
                stack.callback(client.close)
                self._opened = _Opened(client, served.shown_url, list(keys.keys), stack)
                weakref.finalize(self, stack.close)
            return self._opened

    def close(self) -> None:
        """Close the connection (and stop the simulator); a later call opens them again."""
        with self._opening:
            opened, self._opened = self._opened, None
        if opened is not None:
            opened.stack.close()

    def decide(self, prompt: str, a: str, b: str) -> Decision:
        """The judge's verdict on one pair (an unclear reply is `Decision(None, ...)`)."""
        if self.limit is not None and self.calls >= self.limit:
            raise JudgeFailed(f"the judge's limit of {self.limit:,} calls is reached")
        opened = self._open()
        self.calls += 1
        try:
            reply = opened.client.chat.completions.create(
                model=self.model,
                messages=judge_messages(prompt, a, b),  # type: ignore[arg-type]
                temperature=0,
                seed=JUDGE_SEED,
                max_tokens=JUDGE_MAX_TOKENS,
            )
        except openai.OpenAIError as exc:
            said = one_line(scrub(str(exc), opened.secrets))
            raise JudgeFailed(f"{opened.shown_url}/chat/completions: {said}") from None
        text = reply.choices[0].message.content if reply.choices else None
        return read_verdict(scrub(text or "", opened.secrets))


@dataclass(frozen=True)
class _Opened:
    client: openai.OpenAI
    shown_url: str
    secrets: list[str]
    stack: contextlib.ExitStack
