"""`rerunlens --help` stays light: the parser imports no runner, SDK, pandas or pydantic models."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("analyzer.runner", "openai", "pandas", "analyzer.routes.profile", "analyzer.log.model")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_top_level_help_loads_nothing_heavy() -> None:
    loaded = _loaded_after(
        "import contextlib, io\nfrom analyzer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])"
    )
    assert "analyzer.cli.parser" in loaded
    assert [m for m in loaded if m.startswith(HEAVY)] == []


def test_a_route_command_gets_its_flags_from_the_profile() -> None:
    from analyzer.cli.parser import build_parser
    from analyzer.routes.profile import route_knobs

    parser = build_parser(with_route_flags="run")
    args = parser.parse_args(["run", "--out", "x.json", "--temperature", "0.5", "--repeat", "3"])
    assert args.temperature == 0.5 and args.rounds == 3
    run = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices["run"]
    flags = {opt for action in run._actions for opt in action.option_strings}
    assert {knob.flag for knob in route_knobs().values()} <= flags
    assert "(default 0)" in run.format_help()  # the default comes from the field itself
