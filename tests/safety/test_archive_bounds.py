"""Archives are bounded before they are inflated: a zip bomb (an entry inflating hundreds of times its
compressed size), too large an inflated total, and a request log of millions of blank lines are each
refused or read in little memory, with one line naming the archive. The bombs here are small (8 MiB
inflated): the test checks the cap and the memory, not the damage."""

from __future__ import annotations

import io
import shutil
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from analyzer.errors import RerunLensError
from analyzer.importers import appworld_tree, load_any, load_any_bytes
from analyzer.importers.appworld_tree import Tree

APPWORLD = Path("tests/fixtures/foreign/appworld/repeated_runs")
BOMB = 8 * 1024 * 1024  # over the ratio floor; compresses to some 8 KiB
CALLS = "react_gpt4o_run1/tasks/21abae1_1/logs/api_calls.jsonl"


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buf.getvalue()


def _appworld_entries() -> dict[str, bytes]:
    return {p.relative_to(APPWORLD).as_posix(): p.read_bytes() for p in APPWORLD.rglob("*") if p.is_file()}


def _peak(call: Callable[[], object]) -> tuple[int, BaseException | None]:
    tracemalloc.start()
    try:
        call()
        failure = None
    except RerunLensError as exc:
        failure = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, failure


def _one_line(failure: BaseException | None, *words: str) -> str:
    assert isinstance(failure, RerunLensError), failure
    text = str(failure)
    assert "\n" not in text and all(w in text for w in words), text
    return text


def test_an_appworld_zip_bomb_is_refused_before_inflating() -> None:
    entries = _appworld_entries()
    entries[CALLS] = b"\n" * BOMB
    data = _zip(entries)
    assert len(data) < BOMB // 100
    peak, failure = _peak(lambda: load_any_bytes(data, "bomb.zip"))
    _one_line(failure, "bomb.zip", "zip bomb")
    assert peak < BOMB // 2  # never inflated


def test_an_inspect_eval_bomb_is_refused_before_inflating() -> None:
    data = _zip(
        {"header.json": b'{"version": 2, "status": "success"}', "samples/1_epoch_1.json": b" " * BOMB}
    )
    peak, failure = _peak(lambda: load_any_bytes(data, "bomb.eval"))
    _one_line(failure, "bomb.eval", "zip bomb")
    assert peak < BOMB // 2


def test_inflated_totals_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _zip(_appworld_entries())
    assert load_any_bytes(data, "ok.zip").log.runs  # the real outputs load
    monkeypatch.setattr(appworld_tree, "MAX_TREE_BYTES", 1000)
    _one_line(_peak(lambda: load_any_bytes(data, "big.zip"))[1], "big.zip", "limit")


def test_a_folder_is_capped_by_the_same_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "outputs"
    shutil.copytree(APPWORLD, folder)
    monkeypatch.setattr(appworld_tree, "MAX_TREE_BYTES", 1000)
    with pytest.raises(RerunLensError, match="limit") as refused:
        load_any(folder)
    assert "\n" not in str(refused.value)


def test_request_logs_are_read_line_by_line() -> None:
    raw = b"\n" * 3_000_000 + b'  {"url": "/x", "method": "get"}\r\n\n{"a": 1}'
    tree = Tree("t", {"f": raw})
    peak, _ = _peak(lambda: list(tree.lines("f")))
    assert list(tree.lines("f")) == [(3_000_001, '{"url": "/x", "method": "get"}\r'), (3_000_003, '{"a": 1}')]
    assert peak < 1_000_000  # a split into 3 million strings would take some 150 MB
