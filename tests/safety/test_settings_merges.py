"""Merging a route into a coding tool's settings: a symlinked file is written through to its target
(the link kept), JSON stays strict, and a malformed existing file is refused in one line, untouched."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from analyzer.cli import main

BASE = "https://gw.example.com/v1"


def _export(tool: str, out: Path) -> int:
    return main(["route", "export", "--for", tool, "--base-url", BASE, "--out", str(out)])


@pytest.mark.parametrize(("tool", "name", "before"), [
    ("claude-code", "settings.json", '{"theme": "dark"}\n'),
    ("codex", "config.toml", '# mine\nmodel_reasoning_effort = "high"\n'),
])  # fmt: skip
def test_a_symlinked_settings_file_is_written_through(
    tmp_path: Path, tool: str, name: str, before: str
) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / name
    target.write_text(before)
    target.chmod(0o600)
    link = tmp_path / name
    link.symlink_to(target)
    assert _export(tool, link) == 0
    assert link.is_symlink() and link.resolve() == target
    text = target.read_text()
    assert "gw.example.com" in text and ("dark" in text or "# mine" in text)
    assert target.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in dotfiles.iterdir()) == [name]  # no temporary file left


@pytest.mark.parametrize("bad", [
    '{"limit": 1e999}', '{"limit": NaN}', '{"x": -Infinity}', '{"env": {}, "env": {"A": "1"}}',
    "[" * 100_000, b'{"name": "caf\xe9"}',
])  # fmt: skip
def test_a_malformed_settings_file_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str | bytes
) -> None:
    path = tmp_path / "settings.json"
    raw = bad if isinstance(bad, bytes) else bad.encode()
    path.write_bytes(raw)
    assert _export("claude-code", path) == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("rerunlens: error:")]
    assert len(errors) == 1 and str(path) in errors[0] and "Traceback" not in err, err
    assert path.read_bytes() == raw


def test_the_doctor_reads_hostile_files_in_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 50_000)
    inf = tmp_path / "inf.json"
    inf.write_text('{"env": {"X": 1e999}}')
    code = main(
        [
            "route",
            "doctor",
            "--claude-settings",
            str(fifo),
            "--codex-config",
            str(deep),
            "--cc-switch",
            str(inf),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and "Traceback" not in out
    assert "not a regular file" in out and "inf.json" in out and "deep.toml" in out


def test_a_merged_file_stays_strict_json(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"big": 1e308, "env": {"KEEP": "1"}}')
    assert _export("claude-code", path) == 0
    merged = json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(c))
    assert merged["big"] == 1e308 and merged["env"]["KEEP"] == "1"
