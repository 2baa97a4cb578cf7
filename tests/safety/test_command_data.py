"""A command built from a log's data (sample ids, task file, model, task arguments) keeps the data as
data: pasted in bash it runs nothing more, and the tool's own parser reads no id as a flag."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from test_shell_commands import HOSTILE, _pasted

from analyzer.cli.parser import build_parser
from analyzer.log.model import RunLog
from analyzer.proxy.harness_rerun import harness_command, rerun_through_command
from analyzer.safety.shell_words import command_words

FLAG_IDS = ["a", "--yes", "--base-url=http://127.0.0.1:9/v1", "--run-harness", "-x"]


def test_the_pages_rerun_command_keeps_flag_like_ids_as_ids(tmp_path: Path) -> None:
    log = "-p.altk_runs.json"
    for ids in (FLAG_IDS, HOSTILE):
        words = _pasted(rerun_through_command(Path(log), ids, 2), tmp_path)
        args = build_parser(with_route_flags="rerun").parse_args(words)
        assert args.only == ids and args.log == log and args.through == "harness"
        assert not args.yes and args.base_url is None and args.rounds == 2


def test_a_resume_command_keeps_a_dash_log_a_log() -> None:
    words = command_words(["rerun"], [("--only", ["--yes"]), ("--resume", True)], ["-x.json"])
    args = build_parser(with_route_flags="rerun").parse_args(words)
    assert args.log == "-x.json" and args.only == ["--yes"] and args.resume and not args.yes


def _inspect_log(tmp_path: Path, spec: dict[str, object]) -> RunLog:
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"eval": spec}))
    return RunLog.model_validate(
        {"runs": [[{"task_id": "a"}]], "imported_from": {"format": "inspect-ai", "file": str(path)}}
    )


def test_inspect_reads_a_dash_task_file_model_and_ids_as_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_ai._cli.eval import eval_command

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    (tmp_path / "-x").write_text("")
    spec = {
        "task_file": "-x",
        "task": "t",
        "model": "--log-dir=/tmp/elsewhere",
        "task_args": {"--a": "--b"},
        "model_generate_config": {"temperature": 0.5},
    }
    ids = ["a", "--yes"]
    command = harness_command(_inspect_log(tmp_path, spec), ids, 2, tmp_path / "out")
    params = eval_command.make_context("eval", command.command[2:]).params
    assert params["tasks"] == ("./-x@t",) and params["model"] == "--log-dir=/tmp/elsewhere"
    assert params["t"] == ("--a=--b",) and params["sample_id"] == "a,--yes" and params["epochs"] == 2
    assert params["log_dir"] == str((tmp_path / "out").resolve()) and params["temperature"] == 0.5
    assert command.shown().startswith("cd -- ")


def test_a_sample_id_with_a_comma_is_refused_not_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from analyzer.errors import RerunLensError

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    (tmp_path / "task.py").write_text("")
    log = _inspect_log(tmp_path, {"task_file": "task.py", "task": "t", "model": "m"})
    with pytest.raises(RerunLensError, match="sample id 'a,other' holds a comma"):
        harness_command(log, ["a,other"], 1, tmp_path / "out")
