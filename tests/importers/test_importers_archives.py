"""Damaged and empty zip archives (AppWorld outputs, Inspect `.eval`) and damaged JSON: one line naming
the file and the entry, exit 2, nothing written; never a traceback."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import pytest

from analyzer.cli import main
from analyzer.errors import LogError
from analyzer.importers import detect_format, load_any, load_any_bytes

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"
RUNS = FOREIGN / "appworld" / "repeated_runs"
EVAL = FOREIGN / "inspect_ai" / "mock_epochs.eval"
EVAL_ENTRY = "samples/sum_epoch_2.json"
AW_ENTRY = "repeated_runs/react_gpt4o_run2/evaluations/test_normal.json"


def _appworld_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(RUNS.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(RUNS.parent).as_posix())
    return buffer.getvalue()


def _body(data: bytes, name: str) -> int:
    """Offset of an entry's compressed bytes."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(name)
    name_len, extra_len = struct.unpack("<2H", data[info.header_offset + 26 : info.header_offset + 30])
    return info.header_offset + 30 + name_len + extra_len


def _scrambled(data: bytes, name: str) -> bytes:
    """The archive with one entry's compressed data overwritten (the deflate block header broken)."""
    out = bytearray(data)
    start = _body(data, name)
    out[start : start + 16] = b"\xff" * 16
    return bytes(out)


def _check_cli(path: Path, entry: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`analyze` and `import` both end in one line naming the file and the entry, exit 2, no output file."""
    out = tmp_path / "out.altk_runs.json"
    for argv in (["analyze", str(path)], ["import", str(path), "-o", str(out)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, err
        assert f"{path}: {entry}: damaged" in err
    assert not out.exists()


def test_a_broken_compressed_appworld_entry_is_one_line_naming_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "aw_bad.zip"
    bad.write_bytes(_scrambled(_appworld_zip(), AW_ENTRY))
    _check_cli(bad, AW_ENTRY, tmp_path, capsys)


def test_an_appworld_entry_with_a_wrong_crc_is_one_line_naming_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for path in sorted(RUNS.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(RUNS.parent).as_posix())
    data = bytearray(buffer.getvalue())
    start = _body(bytes(data), AW_ENTRY)
    data[start] ^= 0x01  # one flipped bit in stored data: only the CRC-32 notices
    bad = tmp_path / "aw_crc.zip"
    bad.write_bytes(bytes(data))
    _check_cli(bad, AW_ENTRY, tmp_path, capsys)


def _with_crc(data: bytes, name: str, crc: int) -> bytes:
    """The archive with the central directory's CRC-32 of `name` replaced."""
    out = bytearray(data)
    at = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02"))
    while True:
        name_len, extra_len, comment_len = struct.unpack("<3H", data[at + 28 : at + 34])
        if data[at + 46 : at + 46 + name_len].decode() == name:
            out[at + 16 : at + 20] = struct.pack("<L", crc)
            return bytes(out)
        at += 46 + name_len + extra_len + comment_len


def test_an_eval_entry_whose_crc_does_not_match_is_one_line(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    data = EVAL.read_bytes()
    info = zipfile.ZipFile(EVAL).getinfo(EVAL_ENTRY)
    bad = tmp_path / "crc.eval"
    bad.write_bytes(_with_crc(data, EVAL_ENTRY, info.CRC ^ 0xFFFF))
    _check_cli(bad, EVAL_ENTRY, tmp_path, capsys)


def test_a_broken_deflated_eval_entry_is_one_line(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    log = json.loads((FOREIGN / "inspect_ai" / "mock_epochs.json").read_text(encoding="utf-8"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:  # as older Inspect wrote them
        archive.writestr("header.json", json.dumps({k: v for k, v in log.items() if k != "samples"}))
        for s in log["samples"]:
            archive.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    assert len(load_any_bytes(buffer.getvalue(), "ok.eval").log.runs) == 4
    bad = tmp_path / "old.eval"
    bad.write_bytes(_scrambled(buffer.getvalue(), EVAL_ENTRY))
    _check_cli(bad, EVAL_ENTRY, tmp_path, capsys)


@pytest.mark.parametrize("name", ["outputs.zip", "log.eval"])
def test_an_empty_zip_is_called_an_empty_zip(name: str, tmp_path: Path) -> None:
    buffer = io.BytesIO()
    zipfile.ZipFile(buffer, "w").close()
    path = tmp_path / name
    path.write_bytes(buffer.getvalue())
    for call in (lambda: load_any(path), lambda: detect_format(buffer.getvalue(), str(path))):
        with pytest.raises(LogError) as info:
            call()
        assert str(info.value).startswith(f"{path}: an empty zip archive")
        assert "JSON" not in str(info.value)


def test_a_truncated_json_string_says_starting_at_once() -> None:
    data = (FOREIGN / "tau_bench" / "gpt-4o-airline.excerpt.json").read_bytes()
    cut = data[: data.index(b'"content"') + 20]
    with pytest.raises(LogError) as info:
        load_any_bytes(cut, "tau.json")
    assert "Unterminated string starting at line 1 column" in str(info.value)
    assert " at at " not in str(info.value)


def test_a_score_card_whose_steps_is_text_names_steps() -> None:
    card = json.loads((FOREIGN / "altk_evolve" / "consistency_score_card_7f3a9c21.json").read_text("utf-8"))
    card["steps"] = "three"
    with pytest.raises(LogError, match=r"^card\.json: steps: expected a list, got a string$"):
        load_any_bytes(json.dumps(card).encode(), "card.json")
