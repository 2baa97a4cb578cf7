"""The judge key's clustering: it follows the judge's pairwise verdicts, stays within k x clusters
calls, asks nothing on a second pass (the disk cache), and a failing judge leaves answers apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.metrics.judge import Decision, DecisionCache, JudgeFailed, cached, judge_clusters

PROMPT = "When is the meeting?"
MEANING = {
    "the meeting is tomorrow at 3 pm": "3pm",
    "it is scheduled for 15:00 tomorrow": "3pm",
    "明天下午三点开会": "3pm",
    "the meeting is tomorrow at 4 pm": "4pm",
    "16:00 tomorrow": "4pm",
    "it was cancelled": "none",
}
ANSWERS = [a for a in MEANING for _ in range(2)] + ["the meeting is tomorrow at 3 pm"]


class Judge:
    """A judge that knows each answer's meaning (a person's labels) and counts what it is asked."""

    def __init__(self, unclear: frozenset[str] = frozenset(), fail_after: int | None = None) -> None:
        self.asked: list[tuple[str, str]] = []
        self.unclear = unclear
        self.fail_after = fail_after

    def __call__(self, prompt: str, a: str, b: str) -> Decision:
        assert prompt == PROMPT
        if self.fail_after is not None and len(self.asked) >= self.fail_after:
            raise JudgeFailed("http://127.0.0.1:9/v1/chat/completions: connection refused")
        self.asked.append((a, b))
        if b in self.unclear:
            return Decision(None, "maybe")
        same = MEANING[a] == MEANING[b]
        return Decision(same, "same time" if same else "different times")


def groups(members: list) -> set[frozenset[str]]:
    by_rep: dict[str, set[str]] = {}
    for m in members:
        by_rep.setdefault(m.representative, set()).add(m.answer)
    return {frozenset(g) for g in by_rep.values()}


def test_clusters_follow_the_judges_pairwise_verdicts_within_the_call_bound() -> None:
    judge = Judge()
    task = judge_clusters(PROMPT, ANSWERS, judge)
    expected: dict[str, set[str]] = {}
    for answer, meaning in MEANING.items():
        expected.setdefault(meaning, set()).add(answer)
    assert groups(task.members) == {frozenset(g) for g in expected.values()}
    assert task.calls == len(judge.asked) <= len(MEANING) * len(expected)
    joined = [m for m in task.members if m.verdict is not None]
    assert all(m.verdict.same and m.verdict.reason == "same time" for m in joined)
    assert task.members[0].answer == "the meeting is tomorrow at 3 pm"  # the most frequent leads


def test_a_second_pass_asks_the_judge_nothing(tmp_path: Path) -> None:
    cache = DecisionCache(tmp_path / "judge")
    first, second = Judge(), Judge()
    one = judge_clusters(PROMPT, ANSWERS, cached("judge-model", first, cache))
    two = judge_clusters(PROMPT, ANSWERS, cached("judge-model", second, cache))
    assert first.asked and second.asked == []
    assert groups(one.members) == groups(two.members)
    assert (tmp_path / "judge").stat().st_mode & 0o777 == 0o700
    other = Judge()
    judge_clusters(PROMPT, ANSWERS, cached("another-model", other, cache))
    assert len(other.asked) == len(first.asked)  # the model is part of the key


def test_an_unclear_reply_is_counted_and_never_taken_as_a_verdict() -> None:
    task = judge_clusters(PROMPT, ANSWERS, Judge(unclear=frozenset(["16:00 tomorrow"])))
    assert task.unclear >= 1
    assert frozenset(["16:00 tomorrow"]) in groups(task.members)


def test_a_failing_judge_leaves_the_tasks_answers_apart_and_says_so() -> None:
    task = judge_clusters(PROMPT, ANSWERS, Judge(fail_after=2))
    assert task.failed is not None and "connection refused" in task.failed
    assert groups(task.members) == {frozenset([a]) for a in MEANING}


@pytest.mark.parametrize("sure", [True, False])
def test_a_pair_the_local_encoder_is_certain_of_costs_no_call(sure: bool) -> None:
    judge = Judge()
    task = judge_clusters(PROMPT, ["a", "b"], judge, certain=lambda x, y: sure)
    assert judge.asked == [] and task.settled_locally == 1
    assert len(groups(task.members)) == (1 if sure else 2)


@pytest.mark.parametrize(
    ("reply", "same"),
    [
        ("yes: both say 3 pm", True),
        ("**No** - one says 4 pm", False),
        ("Yes.", True),
        ("yes and no", None),
        ("Yes/No", None),
        ("It depends on the time zone.", None),
        ("", None),
        ("yesterday it was", None),
    ],
)
def test_only_a_clear_yes_or_no_is_a_verdict(reply: str, same: bool | None) -> None:
    from analyzer.metrics.judge.prompt import read_verdict

    assert read_verdict(reply).same is same
