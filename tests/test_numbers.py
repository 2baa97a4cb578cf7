"""The one number style: what each figure reads."""

from __future__ import annotations

import math

import analyzer.numbers as numbers


def test_counts_are_integers_with_separators() -> None:
    assert numbers.count(56624) == "56,624"
    assert numbers.count(7078.0) == "7,078"
    assert numbers.count(None) == "—"
    assert numbers.count(math.nan) == "—"


def test_counted_agrees_in_number_never_parenthesised() -> None:
    assert numbers.counted(1, "log") == "1 log"
    assert numbers.counted(6, "log") == "6 logs"
    assert numbers.counted(1_200, "task") == "1,200 tasks"
    assert numbers.counted(2, "retry") == "2 retries"
    assert numbers.counted(2, "key") == "2 keys"
    assert numbers.counted(0, "match", "matches") == "0 matches"


def test_intervals_follow_their_value_in_one_form() -> None:
    assert numbers.pp_ci(43.33, [27.377, 60.8027]) == "43.3 pp (95 % CI 27.4–60.8)"
    assert numbers.pct_ci(0.6667, [0.542, 0.848]) == "66.7 % (95 % CI 54.2–84.8)"
    assert numbers.pp_ci(-22.5, [-40.0, -5.1]) == "-22.5 pp (95 % CI -40.0 to -5.1)"
    assert numbers.pp_ci(-16.7, [-33.3, 0.0]) == "-16.7 pp (95 % CI -33.3 to 0.0)"
    assert numbers.ci([-0.04, 5.0]) == "95 % CI 0.0–5.0"  # no "-0.0" end
    assert numbers.pp_ci(12.0, None) == "12.0 pp"
    assert numbers.pp_ci(None, [1.0, 2.0]) == "—"
    assert numbers.ci([math.nan, math.nan]) == ""


def test_p_values_durations_and_steps() -> None:
    assert numbers.p_value(0.0321) == "p = 0.032"
    assert numbers.p_value(0.0002, "q") == "q < 0.001"
    assert numbers.duration(45.4) == "45 s"
    assert numbers.duration(185) == "3 min 05 s"
    assert numbers.duration(3720) == "1 h 02 min"
    assert numbers.duration(None) == "—"
    assert numbers.call_step(0) == "tool call 1"
