"""Offline token counts: the bundled vocabularies, the cookbook's chat rule, and what the proxy reads."""

from __future__ import annotations

from analyzer.metrics.exchange_count import count_exchange
from analyzer.metrics.token_count import (
    CL100K,
    O200K,
    RunningCount,
    count_messages,
    count_text,
    encoding_name,
)


def test_known_counts_of_both_vocabularies() -> None:
    # "hello world" is 2 tokens in both; the cookbook's example conversation sizes are documented
    assert count_text("hello world", O200K) == 2
    assert count_text("hello world", CL100K) == 2
    assert count_text("", O200K) == 0
    assert count_text("<|endoftext|>", O200K) > 1  # a special token's spelling is plain text in content


def test_models_pick_their_vocabulary() -> None:
    assert encoding_name("gpt-4o-mini") == O200K
    assert encoding_name("gpt-4.1") == O200K
    assert encoding_name("gpt-4-turbo") == CL100K
    assert encoding_name("gpt-3.5-turbo") == CL100K
    assert encoding_name("openai/gpt-4o") == O200K


def test_chat_overhead_follows_the_cookbook_rule() -> None:
    one = [{"role": "user", "content": "hello world"}]
    assert count_messages(one) == 3 + 1 + 2 + 3  # per message, role, content, reply priming
    named = [{"role": "user", "name": "ana", "content": "hello world"}]
    assert count_messages(named) == count_messages(one) + 1 + count_text("ana")


def test_an_exchange_keeps_cached_and_reasoning_tokens_apart() -> None:
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "你好，世界"}]}
    response = {
        "choices": [{"message": {"role": "assistant", "content": "Hello, world!"}}],
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": 30,
            "prompt_tokens_details": {"cached_tokens": 4},
            "completion_tokens_details": {"reasoning_tokens": 26},
        },
    }
    got = count_exchange(request, response)
    assert got.prompt_counted == count_messages(request["messages"])
    assert got.completion_counted == count_text("Hello, world!")
    assert (got.prompt_reported, got.completion_reported) == (12, 30)
    assert (got.cached_reported, got.reasoning_reported) == (4, 26)


def test_an_exchange_without_usage_is_not_recorded_not_zero() -> None:
    got = count_exchange({"model": "gpt-4o", "messages": []}, {"error": {"message": "x"}})
    assert got.prompt_reported is None and got.completion_reported is None and got.completion_counted is None


def test_a_text_counted_in_pieces_of_any_size_gives_the_count_in_one_go() -> None:
    text = " ".join(f"item {i} is {('red', 'blue', 'green')[i % 3]}," for i in range(1500)) + " 木卫二" * 900
    whole = count_text(text)
    for size in (1, 7, 2_000, 8_000, 50_000):
        running = RunningCount()
        for i in range(0, len(text), size):
            running.add(text[i : i + size])
        assert running.total() == whole, size


def test_a_running_count_over_its_bound_is_not_recorded() -> None:
    running = RunningCount(limit=10)
    running.add("four words are here")
    assert running.over and running.total() is None
