"""Hostile text in another tool's log: a lone surrogate (JSON may spell one) is replaced where text
leaves the program, never a UnicodeEncodeError; nesting deeper than a reader follows is one line, or
plain text for a tool call's argument string; control characters never reach a terminal raw, nor
through `--json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.cli import main
from analyzer.importers import load_any
from analyzer.safety.terminal_text import json_text, visible

TAU = Path("tests/fixtures/foreign/tau_bench/gpt-4o-airline.excerpt.json")
AGENT = Path("sample_runs/E_agent_tools.altk_runs.json")
PINNED = Path("tests/fixtures/app/pinned_v2.json")
HOSTILE = "x\x9b[31m\u202eevil\u2028line\x7f"
RAW = ("\x9b", "\u202e", "\u2028", "\x7f")


def _tau_with_answer(tmp_path: Path, answer: str) -> Path:
    raw = json.loads(TAU.read_text())
    for result in raw:
        last = next(m for m in reversed(result["traj"]) if m.get("role") == "assistant" and m.get("content"))
        last["content"] = answer
    path = tmp_path / "tau.json"
    path.write_text(json.dumps(raw))  # json.dumps writes the lone surrogate as \ud800
    return path


def test_a_lone_surrogate_is_replaced_everywhere_text_leaves(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = _tau_with_answer(tmp_path, "SURR\ud800 end")
    answers = {r.answer for _rnd, r in load_any(path).log.results()}
    assert "SURR\ufffd end" in answers
    commands = [
        ["analyze", str(path)],
        ["analyze", str(path), "--json"],
        ["report", str(path), "-o", str(tmp_path / "r.html")],
        ["import", str(path), "-o", str(tmp_path / "i.json")],
        ["export", str(path), "--csv", str(tmp_path / "t.csv")],
    ]
    for command in commands:
        assert main(command) == 0, command
        printed = capsysbinary.readouterr()
        (printed.out + printed.err).decode("utf-8")  # valid UTF-8
    for name in ("r.html", "i.json", "t.csv"):
        (tmp_path / name).read_bytes().decode("utf-8")
    assert "SURR\ufffd end" in {r.answer for _rnd, r in load_any(tmp_path / "i.json").log.results()}


def _nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def test_a_native_log_nested_too_deep_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = AGENT.read_text()
    marker = '"arguments": '
    at = text.index(marker) + len(marker)
    end = text.index("}", at) + 1  # the first call's arguments object
    path = tmp_path / "deep.json"
    path.write_text(text[:at] + _nested(990) + text[end:])
    assert main(["analyze", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "deep.json" in err and "nesting too deep" in err


def test_a_deep_argument_string_is_compared_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = json.loads(TAU.read_text())
    call = next(c for m in raw[0]["traj"] for c in m.get("tool_calls") or [])
    call["function"]["arguments"] = '{"a":' * 990 + "1" + "}" * 990
    path = tmp_path / "deep-args.json"
    path.write_text(json.dumps(raw))
    assert main(["analyze", str(path), "--json"]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_json_output_never_carries_a_raw_control_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = json.loads(PINNED.read_text())
    for row in raw["runs"]:
        for result in row:
            result["task_id"] = f"{result['task_id']}{HOSTILE}"
    for task in raw.get("tasks") or []:
        task["task_id"] = f"{task['task_id']}{HOSTILE}"
    path = tmp_path / "ctl.json"
    path.write_text(json.dumps(raw))
    for command in (
        ["analyze", str(path), "--json"],
        ["analyze", str(path)],
        ["compare", str(path), str(PINNED), "--json"],
    ):
        assert main(command) in (0, 1), command
        out = capsys.readouterr().out
        assert not any(ch in out for ch in RAW), command
    assert main(["analyze", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert HOSTILE in json.dumps(report, ensure_ascii=False)  # the same text, only escaped


def test_the_terminal_helpers_escape_what_a_terminal_would_obey() -> None:
    assert visible("a\ud800b") == "a\\ud800b"
    shown = json_text({"k": HOSTILE + "\ud800", "ok": "café ✓"})
    assert not any(ch in shown for ch in [*RAW, "\ud800"]) and "café ✓" in shown
    assert json.loads(shown)["k"] == HOSTILE + "\ud800"
