"""The route's embeddings for the semantic key: through the pinned client, key never in a message."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from fake_keys import FAKE_KEY

from analyzer.metrics.semantic.embed import SemanticUnavailable
from analyzer.metrics.semantic.key import SemanticOptions
from analyzer.routes.profile import build_profile
from analyzer.runner.embeddings import RouteEmbedder
from analyzer.simulator.engine import text_embedding


def test_no_base_url_embeds_on_the_built_in_simulator() -> None:
    embedder = RouteEmbedder(build_profile(env={}))
    vectors = embedder.embed(["Paris", "巴黎"])
    assert vectors.shape == (2, 256)
    assert np.allclose(vectors[0], text_embedding("Paris"), atol=1e-6)
    assert embedder.name.startswith("route-text-embedding-3-small-")


def test_the_route_key_never_names_the_cache_nor_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    key = FAKE_KEY
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", key)
    profile = build_profile(
        overrides={"base_url": f"http://127.0.0.1:{port}/v1", "max_retries": 0, "timeout_s": 2}
    )
    embedder = RouteEmbedder(profile)
    assert key not in embedder.name
    with pytest.raises(SemanticUnavailable) as err:
        SemanticOptions(embedder=embedder, persist=False).cache().vectors(["Paris"])
    message = str(err.value)
    assert key not in message and "\n" not in message
    assert message.startswith(f"http://127.0.0.1:{port}/v1/embeddings: ")
