"""The offline simulator: an OpenAI-compatible server on loopback that makes every feature work offline.

Keys. By default (`accept_any_key: true`, also when `run`, `rerun` and `check` start it in-process)
any non-empty key is accepted and a request without one gets 401; a user with no key at all is
served because the runner then sends the public key `sim-local-no-secret`. A scenario with
`accept_any_key: false` accepts only its listed `keys` and answers 401 to every other. Keys are
never logged or echoed; rate limits are counted per key.

Determinism. Every random draw hangs on the simulator's seed and the request's identity (the
runner's `x-rerunlens-seq` trace header, else the prompt's arrival count), so the same requests get
the same replies. Only the per-key token bucket (`rate_limit`) depends on the clock.

Modules: `server` (the HTTP server and its state), `scenario` (what a scenario file may say),
`engine` (the model: answers drawn per backend and prompt), `app_tasks` (the sample tasks' scripted
model), `agent` and `agent_world` (a tool-using agent and the world its tools act on).
"""

from analyzer.simulator.scenario import (
    AnswerRule,
    Backend,
    Choice,
    Faults,
    KeyConfig,
    RateLimit,
    Scenario,
    ScriptRule,
    load_scenario,
)
from analyzer.simulator.server import Simulator

__all__ = [
    "AnswerRule",
    "Backend",
    "Choice",
    "Faults",
    "KeyConfig",
    "RateLimit",
    "Scenario",
    "ScriptRule",
    "Simulator",
    "load_scenario",
]
