"""Every command shown to copy, pasted into a real shell with hostile values, runs exactly the words
it shows: no value from a log or a page can run code (`;`, `$(...)`, backticks, `~/`, newlines)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.cli import main
from analyzer.coding_tools.export import DEFAULT_PATHS, checked_base_url, export_command
from analyzer.routes.profile import RouteProfile
from analyzer.runner.run import _resume_hint

HOSTILE = [
    "~/x;touch PWNED;#",
    "$(touch PWNED)",
    "`touch PWNED`",
    "a'b\"c;touch PWNED",
    "x\ntouch PWNED",
    "-x && touch PWNED",
    "~root/$HOME",
]

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")


def _pasted(command: str, cwd: Path) -> list[str]:
    """The words the shell gives `rerunlens` when `command` is pasted (rerunlens prints its argv)."""
    printer = f"{sys.executable} -c 'import json,sys; print(json.dumps(sys.argv[1:]))'"
    script = f'rerunlens() {{ {printer} "$@"; }}\nstreamlit() {{ {printer} "$@"; }}\n{command}\n'
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd)}
    done = subprocess.run(
        [BASH, "--noprofile", "--norc", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert not (cwd / "PWNED").exists(), command
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("tool", ["claude-code", "codex", "cc-switch"])
def test_route_export_command_runs_only_its_words(tmp_path: Path, value: str, tool: str) -> None:
    profile = RouteProfile(base_url="https://gw.example.com/v1", model=value, key_env=value)
    words = _pasted(export_command(profile, tool), tmp_path)  # type: ignore[arg-type]
    out = DEFAULT_PATHS[tool]  # type: ignore[index]
    expected_out = str(tmp_path / out[2:]) if out.startswith("~/") else out
    base = checked_base_url(profile)
    assert words == [
        "route", "export", f"--for={tool}", f"--base-url={base}", f"--model={value}", f"--key-env={value}",
        "--out", expected_out,
    ]  # fmt: skip


@pytest.mark.parametrize("value", HOSTILE)
def test_resume_hint_runs_only_its_words(tmp_path: Path, value: str) -> None:
    hint = _resume_hint(Path(value), None)
    command = hint.removeprefix("Resume with: ").removesuffix(" (same tasks and route flags)")
    assert _pasted(command, tmp_path) == ["run", f"--out={value}", "--resume"]


@pytest.mark.parametrize("value", HOSTILE)
def test_dashboard_print_command_runs_only_its_words(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["dashboard", "--runs-dir", value, "--print-command"]) == 0
    printed = capsys.readouterr().out.strip()
    python = shlex.quote(sys.executable)
    assert printed.startswith(python + " ")
    words = _pasted("rerunlens" + printed[len(python) :], tmp_path)
    assert words[:3] == ["-m", "streamlit", "run"] and words[-2:] == ["--", f"--runs-dir={value}"]
