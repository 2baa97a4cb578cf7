"""The semantic and judge keys' flags (`--semantic-threshold`, `--embeddings`, `--judge-*`) as the
options the analysis runs with. Loaded by the parser: the analyzer is imported only when a key needs it."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from analyzer.metrics.judge import JudgePlan
    from analyzer.metrics.semantic import SemanticOptions


def add_judge_flags(p: argparse.ArgumentParser, yes: bool = True) -> None:
    """`--judge-model`, `--judge-base-url`, `--judge-key-env`, `--judge-limit` (and `--yes`, unless
    the command has its own)."""
    g = p.add_argument_group(
        "the judge key (--key judge)",
        "a chat model says whether two answers to a task's prompt say the same thing; by default "
        "the model of your own route (OPENAI_BASE_URL / ALTK_MODEL; the built-in simulator's "
        "judge when no base URL is set). The most calls and tokens are shown before any call.",
    )
    g.add_argument("--judge-model", metavar="NAME", help="the judge's model (default: your route's)")
    g.add_argument("--judge-base-url", metavar="URL", help="the judge's base URL (default: your route's)")
    g.add_argument(
        "--judge-key-env",
        metavar="VAR",
        help="the variable holding the judge's key (one your own route names, or listed in "
        "RERUNLENS_KEY_VARIABLES; default: your route's)",
    )
    g.add_argument("--judge-limit", type=int, metavar="N", help="ask the judge at most N times in this pass")
    if yes:
        g.add_argument("--yes", action="store_true", help="ask the judge without a limit")


def semantic_options(args: argparse.Namespace) -> SemanticOptions | None:
    """The options `--key semantic` or `--key judge` runs with; None under another key."""
    from analyzer.metrics.semantic import DEFAULT_SEMANTIC_THRESHOLD, SemanticOptions

    key = getattr(args, "key", None)
    if key not in ("semantic", "judge"):
        return None
    threshold = args.semantic_threshold if args.semantic_threshold is not None else DEFAULT_SEMANTIC_THRESHOLD
    if key == "judge":
        return _judge_options(args, threshold)
    if args.embeddings != "route":
        return SemanticOptions(threshold=threshold)
    from analyzer.routes.profile import build_profile  # the runner only when the route embeds
    from analyzer.runner.embeddings import RouteEmbedder

    return SemanticOptions(
        threshold=threshold, embedder=RouteEmbedder(build_profile(), args.embeddings_model)
    )


def judge_consent_first(args: argparse.Namespace) -> None:
    """For a command that runs a model before it judges (a re-run): refuse `--key judge` up front
    without `--yes` or `--judge-limit`, rather than after the run's calls."""
    from analyzer.errors import RouteError

    if getattr(args, "key", None) == "judge" and not _agreed(args):
        raise RouteError(
            "--key judge asks a chat model about the answers after the re-run (the most calls are "
            "shown then): confirm with --yes, or cap the calls with --judge-limit N"
        )


def _agreed(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "yes", False)) or getattr(args, "judge_limit", None) is not None


def _judge_options(args: argparse.Namespace, threshold: float) -> SemanticOptions:
    from analyzer.errors import RouteError
    from analyzer.metrics.judge import JudgeOptions
    from analyzer.runner.judge import JudgeRoute, RouteJudge, judge_profile

    limit = getattr(args, "judge_limit", None)
    if limit is not None and limit < 0:
        raise RouteError("--judge-limit: give a count of 0 or more")
    route = JudgeRoute(args.judge_model, args.judge_base_url, args.judge_key_env)
    judge = RouteJudge(judge_profile(route), limit=limit)
    agreed = _agreed(args)

    def confirm(plan: JudgePlan) -> None:
        if agreed:
            print(plan.sentence(judge.model), file=sys.stderr)
            return
        raise RouteError(
            f"{plan.sentence(judge.model)}: confirm with --yes, or cap the calls with --judge-limit N"
        )

    return JudgeOptions(threshold=threshold, decide=judge.decide, model=judge.name, confirm=confirm)
