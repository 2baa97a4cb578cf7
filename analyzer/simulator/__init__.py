"""The offline simulator: an OpenAI-compatible server on loopback that makes every feature work offline."""

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
