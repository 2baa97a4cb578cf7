"""What the loader refuses to read and how it keeps figures exact.

Only regular files are read, never more than the size limit; journal headers are bounded; the
fast reader and the ordinary reader agree on every file, duplicate keys included; token sums stay
exact integers where float64 would drift.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from plan_kit import run_tasks

from analyzer.analysis import analyze
from analyzer.errors import LogError, RerunLensError
from analyzer.log import loader
from analyzer.log.fast_decode import decode_log
from analyzer.log.frames import attempts_frame, results_frame
from analyzer.log.loader import list_logs, load_bytes, load_path
from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.runner import journal_path

FIXTURES = Path(__file__).parents[1] / "fixtures" / "runs"
SAMPLES = Path(__file__).parents[2] / "sample_runs"


def test_a_fifo_is_refused_at_once_instead_of_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "runs.json"
    os.mkfifo(fifo)
    outcome: list[str] = []
    reader = threading.Thread(target=lambda: outcome.append(_error_of(fifo)), daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive():  # unblock the reader so the test process can end, then fail
        with open(fifo, "wb"):
            pass
        pytest.fail("reading a FIFO blocked")
    assert outcome == [f"{fifo}: not a regular file (a device, pipe or socket); save it to a file first"]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused_in_one_line_not_read_until_memory_runs_out() -> None:
    assert _error_of(Path("/dev/zero")) == (
        "/dev/zero: not a regular file (a device, pipe or socket); save it to a file first"
    )


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_the_size_limit_holds_for_the_bytes_read_not_the_size_the_file_claims(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # /proc files say they are 0 bytes long and hold far more
    maps = Path("/proc/self/maps")
    assert maps.stat().st_size == 0
    monkeypatch.setattr(loader, "MAX_LOG_BYTES", 100)
    assert _error_of(maps) == "/proc/self/maps: over the 0 MiB limit for a run log (reading stopped there)"


def test_a_journal_header_claiming_a_billion_rounds_is_refused_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "j.json"
    cancel = threading.Event()
    tasks = [TaskSpec(task_id="t1", prompt="What is 2 + 2?")]
    run_tasks(tasks, RouteProfile(), out, rounds=2, cancel=cancel, progress=lambda p: cancel.set())
    jp = journal_path(out)
    lines = jp.read_text().splitlines()
    header = json.loads(lines[0])
    header["rounds"] = 1_000_000_000
    jp.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(RerunLensError) as info:
        run_tasks(None, None, out, resume=True)
    assert str(info.value) == (
        f"journal {jp} is damaged at line 1: the header's rounds is 1000000000, over the 1000 a run can have"
    )


def _samples() -> list[Path]:
    return [*sorted((FIXTURES / "good").glob("*.json")), *list_logs(SAMPLES)]


@pytest.mark.parametrize("path", _samples(), ids=lambda p: p.name)
def test_the_fast_reader_and_the_ordinary_reader_agree(path: Path) -> None:
    data = path.read_bytes()
    slow = loader._read_slowly(data, path.name)
    fast = decode_log(data)
    if fast is None:  # unknown fields: only the ordinary reader keeps them
        assert slow.__pydantic_extra__ or any(r.__pydantic_extra__ for _, r in slow.results())
        return
    assert results_frame(fast).equals(results_frame(slow))
    assert attempts_frame(fast).equals(attempts_frame(slow))
    assert analyze(fast, "fuzzy").report() == analyze(slow, "fuzzy").report()
    assert fast == slow  # building the result objects afterwards gives the very same log
    assert fast.model_dump_json(exclude_unset=True) == slow.model_dump_json(exclude_unset=True)


def test_every_sample_log_takes_the_fast_reader() -> None:
    # the fields samples carry beyond the base format (rerun_of, simulator_scenario, resample,
    # imported_from) are declared on RunLog, so none sends a sample to the ordinary reader
    for path in list_logs(SAMPLES):
        assert decode_log(path.read_bytes()) is not None, path.name


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # a repeated key inside a result, inside an attempt, in the summary, in an unknown field
        ('{"runs": [[{"task_id": "t", "total_tokens": 5, "total_tokens": 7}]]}', '"total_tokens" at line 1'),
        (
            '{"runs": [[{"task_id": "t", "attempts": [{"attempt": 0, "outcome": "ok", "outcome": "ok"}]}]]}',
            '"outcome" at line 1',
        ),
        ('{"summary": {"repeat": 2, "repeat": 3}, "runs": [[{"task_id": "t"}]]}', '"repeat" at line 1'),
        ('{"note": {"a": 1, "a": 2}, "runs": [[{"task_id": "t"}]]}', '"a" at line 1'),
        ('{"runs": [[{"task_id": "t", "expected": {"x": 1, "x": 2}}]]}', '"x" at line 1'),
        # spelled differently, the same key: escapes and white space do not hide it
        ('{"runs": [[{"task_id": "t", "answer": "a", "\\u0061nswer": "b"}]]}', '"answer" at line 1'),
        ('{"runs" : [[{"task_id": "t"}]], "runs" : [[{"task_id": "u"}]]}', '"runs" at line 1'),
    ],
)
def test_a_repeated_key_anywhere_is_refused(text: str, message: str) -> None:
    with pytest.raises(LogError, match=f"^dup.json: duplicate key {message}"):
        load_bytes(text.encode(), "dup.json")


@pytest.mark.parametrize(
    "answer",
    [
        'the tool said {\\"answer\\": 4}',  # an escaped quote before a colon is not a key
        "ends in a backslash \\\\",
        "note : a space before a colon",
        'quoted \\"x\\" : spaced',
    ],
)
def test_text_that_looks_like_keys_is_not_a_repeated_key(answer: str) -> None:
    text = '{"runs": [[{"task_id": "t", "answer": "ANSWER"}, {"task_id": "t", "answer": "b"}]]}'
    text = text.replace("ANSWER", answer)
    log = load_bytes(text.encode(), "ok.json").log
    assert [r.answer for r in log.runs[0]] == [json.loads(f'"{answer}"'), "b"]


def test_per_task_token_totals_are_exact_integers_past_float64_precision() -> None:
    # 10,001 results of one task near the per-result bound: the total is past 2**53, where float64
    # sums lose units (the per-task total drifted by thousands of tokens)
    counts = [999_999_999_999 - (i % 7) for i in range(10_001)]
    runs = [[{"task_id": "t", "answer": "a", "total_tokens": n}] for n in counts]
    analysis = analyze(load_bytes(json.dumps({"runs": runs}).encode(), "big.json").log)
    assert sum(counts) > 2**53
    assert int(analysis.tasks.loc[0, "tokens_total"]) == sum(counts)
    assert analysis.headline.tokens.total == sum(counts)


def _error_of(path: Path) -> str:
    try:
        load_path(path)
    except LogError as exc:
        return str(exc)
    return "loaded"


@pytest.mark.parametrize(
    "times",
    [
        ["2026-11-01T01:00:00.5+01:00", "2026-11-01T01:00:00Z", "2026-11-01T01:00:00.123456-02:30", None],
        ["2026-11-01T01:00:00", "2026-11-01T01:00:00.25", None, "2026-03-29T01:59:59.999999"],
        ["2026-11-01 01:00:00", "2026-11-01", 1762000000, "2026-11-01T01:00:00+00:00"],
    ],
    ids=["with offsets", "naive", "mixed spellings"],
)
def test_times_in_every_spelling_are_the_same_instant_for_both_readers(times: list[object]) -> None:
    runs = [[{"task_id": f"t{i}", "answer": "a", "started_at": t} for i, t in enumerate(times)]]
    data = json.dumps({"runs": runs}).encode()
    fast = decode_log(data)
    assert fast is not None
    slow = loader._read_slowly(data, "times.json")
    assert results_frame(fast)["started_at"].equals(results_frame(slow)["started_at"])
    assert results_frame(fast)["started_at"].notna().sum() == sum(t is not None for t in times)
