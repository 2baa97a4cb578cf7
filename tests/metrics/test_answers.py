"""Answer keys: what counts as the same answer."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analyzer.analysis import analyze
from analyzer.importers import load_any
from analyzer.log.model import MessageStep, ToolCallStep
from analyzer.metrics.answers import (
    action_signature,
    answer_keys,
    exact_key,
    fuzzy_representatives,
    normalized_key,
)


def _results(rows: list[tuple[str, str, str | None]]) -> pd.DataFrame:
    task_id, status, answer = zip(*rows, strict=True)
    return pd.DataFrame(
        {
            "task_id": pd.array(task_id, dtype="string"),
            "status": pd.array(status, dtype="string"),
            "answer": pd.array(answer, dtype="string"),
        }
    )


def test_exact_strips_only_surrounding_white_space() -> None:
    assert exact_key("  Paris \n") == "Paris"
    assert exact_key("Paris  France") == "Paris  France"
    assert exact_key("Paris") != exact_key("paris")


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("Paris.", "paris"),
        ("  PARIS !! ", "paris"),
        ("Paris,\tFrance", "paris, france"),  # inner punctuation stays, white space collapses
        ("ﬁne", "fine"),  # NFKC folds the ligature
        ("Straße", "strasse"),  # casefold, not lower
        ("４２", "42"),  # full-width digits
        ("?", "?"),  # nothing but punctuation: kept, so "?" and "..." stay apart
        ("Yes…", "yes"),
        ('"Paris"', "paris"),  # quotes at both ends: leading punctuation goes too
        ("«Paris»", "paris"),
        ("¿Qué?", "qué"),
        ("- Paris", "paris"),  # a list dash before a word
        ("-5", "-5"),  # a sign before a digit stays: -5 is not 5
        (".5", ".5"),
        ("-.5", "-.5"),
        ("'-5'", "-5"),
        ("(a) Paris", "a) paris"),  # inner punctuation stays
    ],
)
def test_normalized_key(raw: str, key: str) -> None:
    assert normalized_key(raw) == key


def test_fuzzy_joins_near_answers_to_the_most_frequent() -> None:
    # "the capital is paris" twice, a one-letter typo once, an unrelated answer once
    answers = ["the capital is paris", "the capital is pariss", "the capital is paris", "lyon"]
    mapping = fuzzy_representatives(answers, threshold=90)
    assert mapping == {
        "the capital is paris": "the capital is paris",
        "the capital is pariss": "the capital is paris",
        "lyon": "lyon",
    }


def test_fuzzy_threshold_100_is_normalized() -> None:
    mapping = fuzzy_representatives(["abc", "abd"], threshold=100)
    assert mapping == {"abc": "abc", "abd": "abd"}


def test_fuzzy_tie_goes_to_the_earlier_answer() -> None:
    # both appear once; the first seen becomes the representative
    assert fuzzy_representatives(["colour red", "color red"], threshold=80) == {
        "colour red": "colour red",
        "color red": "colour red",
    }


def test_answer_keys_per_key_and_errors_are_missing() -> None:
    frame = _results(
        [
            ("1", "ok", "Paris."),
            ("1", "ok", " paris"),
            ("1", "error", None),
            ("1", "ok", None),  # ok with no answer has no key, like an error
        ]
    )
    exact = answer_keys(frame, "exact")
    assert exact.tolist()[:2] == ["Paris.", "paris"]
    assert pd.isna(exact.iloc[2])
    assert pd.isna(exact.iloc[3])
    normalized = answer_keys(frame, "normalized")
    assert normalized.tolist()[:2] == ["paris", "paris"]


def test_fuzzy_never_joins_answers_of_different_tasks() -> None:
    frame = _results([("a", "ok", "forty two"), ("b", "ok", "forty two!"), ("b", "ok", "forty-two")])
    keys = answer_keys(frame, "fuzzy", fuzzy_threshold=85)
    # task b: "forty two" and "forty-two" are 88.9 similar -> joined; task a is alone
    assert keys.tolist() == ["forty two", "forty two", "forty two"]
    assert answer_keys(frame, "normalized").tolist() == ["forty two", "forty two", "forty-two"]


def test_unknown_key_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown answer key"):
        answer_keys(_results([("1", "ok", "x")]), "meaning")  # type: ignore[arg-type]


def test_input_frame_is_not_changed() -> None:
    frame = _results([("1", "ok", " A "), ("1", "ok", None)])
    before = frame.copy()
    answer_keys(frame, "fuzzy")
    pd.testing.assert_frame_equal(frame, before)


def test_quoted_and_bare_answers_are_one_normalized_cluster() -> None:
    frame = _results([("1", "ok", '"Paris"'), ("1", "ok", "Paris"), ("1", "ok", "paris.")])
    assert answer_keys(frame, "normalized").nunique() == 1
    assert answer_keys(frame, "exact").nunique() == 3


def _call(name: str, arguments: object) -> ToolCallStep:
    return ToolCallStep(type="tool_call", name=name, arguments=arguments)


def test_action_signature_is_names_and_canonical_arguments_in_order() -> None:
    said_one_thing = [
        MessageStep(type="message", role="assistant", content="Let me look that up."),
        _call("get_user", {"user_id": "mia_li_3668", "verbose": False}),
        _call("cancel", '{"reservation_id": "EHGLP3"}'),  # OpenAI sends arguments as a JSON string
    ]
    said_another = [
        _call("get_user", {"verbose": False, "user_id": "mia_li_3668"}),  # key order differs
        MessageStep(type="message", role="assistant", content="Done, anything else?"),
        _call("cancel", {"reservation_id": "EHGLP3"}),
    ]
    assert action_signature(said_one_thing) == action_signature(said_another)
    assert action_signature(said_one_thing) == (
        '[["get_user",{"user_id":"mia_li_3668","verbose":false}],["cancel",{"reservation_id":"EHGLP3"}]]'
    )
    swapped = [said_another[2], said_another[0]]
    assert action_signature(swapped) != action_signature(said_another)
    other_argument = [_call("get_user", {"user_id": "mia_li_3669", "verbose": False}), said_another[2]]
    assert action_signature(other_argument) != action_signature(said_another)


def test_action_signature_unrecorded_versus_no_calls() -> None:
    assert action_signature(None) is None  # nothing recorded: no key
    assert action_signature([MessageStep(type="message", role="assistant", content="hi")]) == "[]"
    assert action_signature([_call("search", "not json")]) == '[["search","not json"]]'


def test_actions_key_reads_the_actions_column_and_leaves_out_errors() -> None:
    frame = _results([("1", "ok", "Sure!"), ("1", "ok", "Done."), ("1", "error", None), ("1", "ok", "x")])
    frame["actions"] = pd.array(['[["a",{}]]', '[["a",{}]]', '[["a",{}]]', None], dtype="string")
    keys = answer_keys(frame, "actions")
    assert keys.tolist()[:2] == ['[["a",{}]]', '[["a",{}]]']
    assert pd.isna(keys.iloc[2]) and pd.isna(keys.iloc[3])
    with pytest.raises(ValueError, match="actions"):
        answer_keys(frame.drop(columns="actions"), "actions")


def test_tasks_where_no_round_called_a_tool_have_no_actions_key() -> None:
    """Rounds that only talked did nothing to compare: not "the same things". A round without calls
    beside one with calls still differs from it."""
    frame = pd.DataFrame(
        {
            "task_id": ["talk", "talk", "mixed", "mixed", "same", "same"],
            "status": ["ok"] * 6,
            "answer": ["Paris"] * 6,
            "actions": ["[]", "[]", "[]", '[["search",{}]]', '[["search",{}]]', '[["search",{}]]'],
        }
    )
    keys = answer_keys(frame, "actions")
    assert keys.isna().tolist() == [True, True, False, False, False, False]
    assert keys[2] != keys[3] and keys[4] == keys[5]


def test_a_question_answering_log_is_not_consistent_by_its_actions() -> None:
    inspect = Path(__file__).resolve().parents[1] / "fixtures" / "foreign" / "inspect_ai" / "mock_epochs.eval"
    headline = analyze(load_any(inspect).log, "actions").headline
    assert headline.tasks_measured == 0 and headline.answer_gap_pp is None  # was 3/3 consistent
    assert any("3 tasks have fewer than 2 rounds that called a tool" in w for w in headline.warnings)
