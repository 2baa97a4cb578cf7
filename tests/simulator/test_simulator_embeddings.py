"""The simulator's `/v1/embeddings`, through the real SDK."""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Iterator

import openai
import pytest

from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.engine import EMBEDDING_DIM, text_embedding


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator(Scenario(latency_ms=(0.0, 0.0))) as s:
        yield s


def test_one_unit_vector_per_input_in_order(sim: Simulator) -> None:
    c = openai.OpenAI(api_key="k-test", base_url=sim.base_url, max_retries=0)
    reply = c.embeddings.create(model="text-embedding-3-small", input=["Paris", "巴黎", "Paris"])
    vectors = [d.embedding for d in sorted(reply.data, key=lambda d: d.index)]
    assert [len(v) for v in vectors] == [EMBEDDING_DIM] * 3
    assert all(math.isclose(sum(x * x for x in v), 1.0, abs_tol=1e-4) for v in vectors)
    assert vectors[0] == vectors[2] == text_embedding("Paris")
    assert vectors[0] != vectors[1]
    assert reply.model == "text-embedding-3-small"


def test_texts_sharing_characters_point_the_same_way() -> None:
    def cos(a: str, b: str) -> float:
        return sum(x * y for x, y in zip(text_embedding(a), text_embedding(b), strict=True))

    assert cos("the order was cancelled", "The order was cancelled.") > cos("the order was cancelled", "巴黎")


def test_bad_input_is_a_400_and_no_key_a_401(sim: Simulator) -> None:
    c = openai.OpenAI(api_key="k-test", base_url=sim.base_url, max_retries=0)
    with pytest.raises(openai.BadRequestError):
        c.embeddings.create(model="m", input=[])
    request = urllib.request.Request(
        f"{sim.base_url}/embeddings", data=json.dumps({"model": "m", "input": ["x"]}).encode(), method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(request, timeout=5)
    assert err.value.code == 401
