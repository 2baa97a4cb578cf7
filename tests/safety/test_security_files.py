"""Hostile settings files: every bad `--profile` or `--scenario` is one line.

Each case goes through the real CLI (`rerunlens check`), which turns a library error into one line
on stderr and exit status 2; none may print a traceback, hang or run out of memory.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analyzer.cli import main


def _deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


def _one_line_error(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    code = main(args)
    out = capsys.readouterr()
    assert code == 2, out
    assert "Traceback" not in out.err + out.out
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    assert lines[0].startswith("rerunlens: error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("latin1.toml", 'model = "caf\xe9"\n'.encode("latin-1"), "not UTF-8 text (byte 12)"),
        ("latin1.json", '{"model": "caf\xe9"}'.encode("latin-1"), "not UTF-8 text"),
        ("deep.json", ('{"model": ' + _deep_json(100_000) + "}").encode(), "nested too deeply"),
        ("deep.toml", ("model = " + _deep_json(100_000)).encode(), "nested too deeply"),
        ("string_route.json", b'{"route": "string"}', "'route' must be a table of settings, not a string"),
        ("list_route.toml", b"route = [1, 2]", "'route' must be a table of settings, not a list"),
        ("top_list.json", b"[1]", "a profile must be a table of settings"),
        ("big.toml", b"# " + b"x" * (5 * 2**20), "over the 4 MiB limit"),
    ],
)
def test_a_bad_profile_is_one_line_naming_the_file(
    name: str, content: bytes, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    line = _one_line_error(capsys, ["check", "--profile", str(path)])
    assert f"{path}: " in line and expected in line
    assert "unknown setting 'g'" not in line


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"seed": "caf\xe9"}'.encode("latin-1"), "not UTF-8 text"),
        (_deep_json(100_000).encode(), "nested too deeply"),
        (b'{"script": ' + _deep_json(500).encode() + b"}", "script.0"),
    ],
)
def test_a_bad_scenario_is_one_line_naming_the_file(
    content: bytes, expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scenario.json"
    path.write_bytes(content)
    line = _one_line_error(capsys, ["check", "--scenario", str(path)])
    assert f"{path}: " in line and expected in line


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("flag", ["--profile", "--scenario"])
def test_a_fifo_or_a_device_is_refused_at_once(
    flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # no writer: reading it would block for ever
    line = _one_line_error(capsys, ["check", flag, str(fifo)])
    assert "not a regular file" in line
    if Path("/dev/zero").exists():
        line = _one_line_error(capsys, ["check", flag, "/dev/zero"])
        assert "/dev/zero: not a regular file" in line
    line = _one_line_error(capsys, ["check", flag, str(tmp_path)])
    assert str(tmp_path) in line
