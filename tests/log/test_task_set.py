"""Task sets: same ids and prompts pair; same ids with other prompts never do."""

from __future__ import annotations

from analyzer.log.model import RunLog, TaskSpec
from analyzer.log.task_set import pairing, task_set


def _log(tasks: dict[str, str] | None, ids: list[str]) -> RunLog:
    specs = None if tasks is None else [TaskSpec(task_id=i, prompt=p) for i, p in tasks.items()]
    return RunLog(tasks=specs, runs=[[{"task_id": i, "answer": "x"} for i in ids]])  # type: ignore[misc]


def test_same_ids_and_prompts_pair_and_share_one_key() -> None:
    a = task_set(_log({"1": "What is 2+2?", "2": "Capital of France?"}, ["1", "2"]))
    b = task_set(_log({"1": "What is 2+2?", "2": "Capital of France?"}, ["1", "2"]))
    p = pairing(a, b)
    assert p.comparable and p.shared == {"1", "2"} and not p.by_id_only
    assert a.key == b.key and a.prompts_recorded


def test_shared_ids_with_other_prompts_pair_nothing_and_say_which() -> None:
    a = task_set(_log({"1": "What is 2+2?", "2": "Capital of France?"}, ["1", "2"]))
    b = task_set(_log({"1": "Book a flight to Paris", "2": "Cancel my order"}, ["1", "2"]))
    p = pairing(a, b)
    assert not p.comparable and p.shared == frozenset()
    assert "2 of the 2 task ids" in (p.reason or "") and "different tasks" in (p.reason or "")
    assert a.key != b.key


def test_ids_alone_pair_and_say_so() -> None:
    a = task_set(_log(None, ["1", "2"]))
    b = task_set(_log({"1": "q1", "2": "q2"}, ["1", "2"]))
    p = pairing(a, b)
    assert p.comparable and p.by_id_only and not a.prompts_recorded
    assert a.key != b.key


def test_no_shared_id() -> None:
    p = pairing(task_set(_log(None, ["1"])), task_set(_log(None, ["2"])))
    assert not p.comparable and p.reason == "they share no task id"


def test_integer_and_text_ids_are_one_id() -> None:
    a = task_set(_log({"7": "q"}, ["7"]))
    b = task_set(RunLog(tasks=[TaskSpec(task_id=7, prompt="q")], runs=[[{"task_id": 7, "answer": "y"}]]))  # type: ignore[list-item]
    assert pairing(a, b).comparable and a.key == b.key
