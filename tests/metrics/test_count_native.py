"""`count_text` counts with the tokenizer's native `count`; it must give the figure of the wrapper's
`encode_ordinary` (what the API counts for content) on every kind of text, in both vocabularies."""

from __future__ import annotations

import random

import pytest

from analyzer.metrics import token_count
from analyzer.metrics.token_count import CL100K, O200K, count_text

TEXTS = [
    "",
    "<|endoftext|> and <|endofprompt|> as plain text",
    "明天下午三点开会。总计120美元",
    "🙂🙂 emoji, ZWJ 👩‍👩‍👧 and combining e\u0301",
    " \n\n\t  leading and trailing white space \n ",
    "x\ud800y lone surrogate",
    '{"city": "Paris", "unit": "c"}',
    "word " * 20_000,
]


def _random_texts(n: int) -> list[str]:
    rng = random.Random(7)
    alphabet = "abc XYZ 012 ,.;:!?'\"-_\n\t€£¥中文日本語한국어ñüßé🙂"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 300))) for _ in range(n)]


@pytest.mark.parametrize("encoding", [O200K, CL100K])
def test_the_native_count_gives_the_wrappers_figure(encoding: str) -> None:
    wrapper = token_count._encoding(encoding)
    for text in [*TEXTS, *_random_texts(500)]:
        assert count_text(text, encoding) == len(wrapper.encode_ordinary(text)), text[:40]
