"""The proxy journal read as a log: recognised from its content, one result per call with its
retries, a torn last line left out, a bad line named."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.errors import LogError
from analyzer.importers import detect_format, list_any_logs, load_any, load_any_bytes

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "proxy" / "sdk_client.proxy.jsonl"


def test_the_journal_is_a_log_of_calls_with_their_retries() -> None:
    loaded = load_any(FIXTURE)
    log = loaded.log
    assert detect_format(FIXTURE.read_bytes()) == "rerunlens-proxy"
    results = [r for rnd in log.runs for r in rnd]
    assert len(results) == 3
    retried = [r for r in results if len(r.attempts or []) > 1]
    assert len(retried) == 1 and [a.outcome for a in retried[0].attempts] == ["rate_limited", "ok"]
    assert retried[0].attempts[0].retry_after_s == pytest.approx(0.1)
    same = [r for r in results if r.task_id == results[0].task_id]
    assert sorted(r.round for r in same) == [1, 2]  # "first question" asked twice
    assert len({r.answer for r in same}) == 1  # the simulator at temperature 0: the same answer hash
    assert all(r.route and r.route.key_fingerprint and r.route.temperature == 0 for r in results)
    assert log.label == "sdk client, one 429"


def test_a_torn_last_line_is_left_out_and_the_missing_end_said(tmp_path: Path) -> None:
    lines = FIXTURE.read_text().splitlines(keepends=True)
    torn = "".join(lines[:-1])[:-40]  # the end record gone, the last attempt cut mid-line
    loaded = load_any_bytes(torn.encode(), "live.proxy.jsonl")
    assert sum(len(rnd) for rnd in loaded.log.runs) >= 2
    assert any("no end record" in w for w in loaded.warnings)


def test_a_bad_first_line_is_one_error_naming_it_and_a_later_one_is_left_out_and_named() -> None:
    lines = FIXTURE.read_text().splitlines(keepends=True)
    with pytest.raises(LogError, match=r"^x\.proxy\.jsonl: not valid JSON"):
        load_any_bytes("".join(["{not json\n", *lines]).encode(), "x.proxy.jsonl")
    whole = load_any_bytes(FIXTURE.read_bytes(), "x.proxy.jsonl")
    broken = load_any_bytes("".join([lines[0], "{not json\n", *lines[1:]]).encode(), "x.proxy.jsonl")
    assert broken.log.runs == whole.log.runs
    assert any("line 2: not valid JSON" in w for w in broken.warnings)


def test_a_runs_folder_lists_proxy_journals_but_not_run_checkpoints(tmp_path: Path) -> None:
    (tmp_path / "a.proxy.jsonl").write_bytes(FIXTURE.read_bytes())
    (tmp_path / "b.altk_runs.journal.jsonl").write_text('{"kind": "header"}\n')
    assert list_any_logs(tmp_path) == [tmp_path / "a.proxy.jsonl"]
