"""The recording proxy's and wrap's holes of the fourth security pass, as cases of the adversarial script.

Each case runs the test that pins the hole (tests/safety/test_proxy_*.py) in the case's folder and
reports its failed assertion as the hole. `test_adversarial_pass` imports this module after its
`case` decorator exists; run as a script, that module is `__main__`, hence the lookup below.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import test_proxy_bounds as bounds
import test_proxy_forwarding as forwarding
import test_proxy_journal_values as values
import test_wrap_hygiene as hygiene

_PASS = sys.modules.get("test_adversarial_pass") or sys.modules["__main__"]
case = _PASS.case


def _held(test: Callable[[Path], None], tmp: Path) -> str | None:
    """None when the test passes, else its failed assertion in one line."""
    try:
        test(tmp)
    except AssertionError as failed:
        return " ".join(str(failed).split())[:300] or f"{test.__name__} failed"
    return None


@case("proxy: dot segments, %2e%2e, %2f, backslashes, // and a gateway prefix escape never get the key")
def _forwarding(tmp: Path) -> str | None:
    return _held(forwarding.test_no_hostile_path_reaches_the_upstream_and_plain_ones_keep_the_prefix, tmp)


@case("proxy: a same-host redirect out of the route's root carries no key")
def _redirect_off_root(tmp: Path) -> str | None:
    return _held(forwarding.test_a_redirect_out_of_the_route_root_on_the_same_host_carries_no_key, tmp)


@case("proxy: an upstream echoing the key as x-request-id, request-id or a header name")
def _echo(tmp: Path) -> str | None:
    return _held(
        values.test_an_upstream_echoing_the_key_reaches_neither_journal_nor_client,
        tmp,
    )


@case("proxy journal: NaN, 1e999, 10**400, usage -3/true/10**30, a lone surrogate are not recorded")
def _invalid_values(tmp: Path) -> str | None:
    return _held(values.test_invalid_values_from_client_and_upstream_are_left_out_with_a_note, tmp)


@case("proxy journal: one unreadable attempt costs that attempt, not the journal (import and wrap's join)")
def _one_bad_attempt(tmp: Path) -> str | None:
    return _held(values.test_one_unreadable_attempt_costs_that_attempt_not_the_journal, tmp)


@case("proxy journal: a 200 whose body is an error object is an error, not ok")
def _error_200(tmp: Path) -> str | None:
    return _held(values.test_a_200_whose_body_is_an_error_is_journaled_as_an_error, tmp)


@case("proxy: x-stainless-retry-count `²` and other junk is not recorded, no 500")
def _retry_junk(tmp: Path) -> str | None:
    return _held(values.test_a_retry_header_that_is_not_ascii_digits_is_not_recorded_and_no_500, tmp)


@case("proxy: a client hanging up on an endless stream stops the upstream read")
def _hang_up(tmp: Path) -> str | None:
    return _held(bounds.test_a_client_hanging_up_on_an_endless_stream_stops_the_upstream_read, tmp)


@case("proxy: a request body over 32 MiB is refused in one line, nothing forwarded")
def _big_request(tmp: Path) -> str | None:
    return _held(bounds.test_a_request_body_over_the_cap_is_refused_before_it_is_read_or_sent, tmp)


@case("proxy: a whole response over 64 MiB is a 502; a long stream is not held whole")
def _big_response(tmp: Path) -> str | None:
    return _held(bounds.test_a_whole_response_over_the_cap_is_not_relayed_and_a_long_stream_is_not_held, tmp)


@case("wrap: the harness reads no key from /proc/PPID/environ; what it started is ended with it")
def _wrap_environ(tmp: Path) -> str | None:
    return _held(hygiene.test_the_harness_reads_no_key_from_its_parent_and_what_it_started_is_ended, tmp)


@case("wrap: a harness ignoring SIGTERM is killed after the grace period")
def _wrap_stubborn(tmp: Path) -> str | None:
    return _held(hygiene.test_a_harness_ignoring_sigterm_is_killed_after_the_grace_period, tmp)


@case("wrap: a kill -9 of wrap takes the harness with it")
def _wrap_killed(tmp: Path) -> str | None:
    return _held(hygiene.test_a_kill_9_of_wrap_takes_the_harness_with_it, tmp)


@case("proxy journal: a stream carrying an error event is an error, not ok")
def _error_event(tmp: Path) -> str | None:
    return _held(values.test_a_stream_that_carries_an_error_event_is_journaled_as_an_error, tmp)
