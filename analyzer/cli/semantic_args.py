"""The semantic key's flags (`--semantic-threshold`, `--embeddings`) as `SemanticOptions`."""

from __future__ import annotations

import argparse

from analyzer.metrics.semantic import DEFAULT_SEMANTIC_THRESHOLD, SemanticOptions


def semantic_options(args: argparse.Namespace) -> SemanticOptions | None:
    """The options `--key semantic` runs with; None under another key."""
    if getattr(args, "key", None) != "semantic":
        return None
    threshold = args.semantic_threshold if args.semantic_threshold is not None else DEFAULT_SEMANTIC_THRESHOLD
    if args.embeddings != "route":
        return SemanticOptions(threshold=threshold)
    from analyzer.routes.profile import build_profile  # the runner only when the route embeds
    from analyzer.runner.embeddings import RouteEmbedder

    return SemanticOptions(
        threshold=threshold, embedder=RouteEmbedder(build_profile(), args.embeddings_model)
    )
