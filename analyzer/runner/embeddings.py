"""The `semantic` key's vectors from the route's own `/v1/embeddings` (`--embeddings route`).

The call goes through the pinned client (`client.make_client`): the key only to the route's origin,
every attempt recorded and scrubbed. With no base URL configured the built-in simulator serves, so
the path works offline. The key is never part of the embedder's name, the cache or an error line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import openai

from analyzer.metrics.semantic import SemanticUnavailable
from analyzer.routes.profile import RouteProfile
from analyzer.runner.client import make_client
from analyzer.runner.embedded import key_ring, serving
from analyzer.safety.keys import read_keys
from analyzer.safety.scrub import one_line, scrub

__all__ = ["DEFAULT_EMBEDDING_MODEL", "RouteEmbedder"]

DEFAULT_EMBEDDING_MODEL = "text-embedding-3-small"
_BATCH = 256


class RouteEmbedder:
    """Embeddings from the route's endpoint, one request per 256 texts."""

    def __init__(self, profile: RouteProfile, model: str = DEFAULT_EMBEDDING_MODEL) -> None:
        self.profile = profile
        self.model = model
        where = profile.base_url.strip() if profile.base_url else "simulator"
        self.name = f"route-{model}-{hashlib.sha256(where.encode('utf-8')).hexdigest()[:12]}"
        """Names the model and the endpoint (by a hash of its URL): never the key."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text; a failed call is one `SemanticUnavailable` line (key scrubbed)."""
        keys = read_keys([self.profile.key_env])
        with serving(self.profile) as served:
            ring = key_ring(keys, served)
            client, _transport = make_client(self.profile, served.base_url, ring)
            rows: list[list[float]] = []
            try:
                for start in range(0, len(texts), _BATCH):
                    batch = list(texts[start : start + _BATCH])
                    reply = client.embeddings.create(model=self.model, input=batch)
                    data = sorted(reply.data, key=lambda d: d.index)
                    if len(data) != len(batch):
                        raise SemanticUnavailable(
                            f"{served.shown_url}/embeddings: {len(data)} vectors for {len(batch)} texts"
                        )
                    rows.extend(d.embedding for d in data)
            except (openai.OpenAIError, ValueError) as exc:
                said = one_line(scrub(str(exc), list(keys.keys)))
                raise SemanticUnavailable(f"{served.shown_url}/embeddings: {said}") from None
            finally:
                client.close()
        widths = {len(row) for row in rows}
        if len(widths) > 1 or 0 in widths:
            shown = ", ".join(str(w) for w in sorted(widths)[:4])
            raise SemanticUnavailable(
                f"{served.shown_url}/embeddings: vectors of different lengths ({shown})"
            )
        try:
            return np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):
            raise SemanticUnavailable(
                f"{served.shown_url}/embeddings: vectors that are not numbers"
            ) from None
