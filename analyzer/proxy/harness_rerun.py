"""A re-run through the harness that made the log, so the before/after compares the agent with itself.

An Inspect log is re-run with `inspect eval` on its own task file, task, task arguments, model and
generate config, for the selected sample ids and the chosen epochs; a promptfoo log with
`promptfoo eval` on its config, filtered to the selected tests, with `--repeat`. Either runs under
`rerunlens wrap` on the pinned route. The parent's own log names all of that (an imported one
directly; a wrapped one through the harness log it joined). Where the harness or the task file is
missing, one line says so; the prompt-only re-run stays, labelled `PROMPT_ONLY`.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analyzer.atomic import write_text_atomic
from analyzer.errors import LogError, RerunLensError
from analyzer.importers.common import Source, parse_json
from analyzer.importers.inspect_archive import is_eval_archive, read_eval_archive
from analyzer.log.loader import MAX_LOG_BYTES
from analyzer.log.model import RunLog
from analyzer.proxy.harness_logs import INSPECT, PROMPTFOO
from analyzer.safety.bounded_read import read_file
from analyzer.safety.scrub import scrub
from analyzer.safety.shell_words import command_words, data_path, shell_line

PROMPT_ONLY = "prompt only: measures the model's answer to the first prompt, not the agent"
"""The label every prompt-only re-run of a harness's log carries."""
GENERATE_FLAGS = {
    "temperature": "--temperature",
    "top_p": "--top-p",
    "seed": "--seed",
    "max_tokens": "--max-tokens",
    "max_connections": "--max-connections",
}


@dataclass(frozen=True)
class HarnessCommand:
    """The harness command a re-run runs (under `wrap`), where, and what it re-runs."""

    kind: str
    command: list[str]
    cwd: Path
    harness_log: Path | None = None
    """Where the harness writes its log when the command says so (promptfoo's `-o`)."""
    files: tuple[tuple[Path, str], ...] = ()
    """Files to write before it runs (promptfoo's filtered config); building the command writes none."""
    runs_code: str = ""
    """The code a log chose that the command runs (Inspect's task file; promptfoo's config, whose
    providers and assertions may run scripts): what the user must confirm before it runs."""

    def question(self) -> str:
        """What the user is asked before the command runs: it runs code that a log named."""
        return f"the re-run through {self.kind} runs {self.runs_code}, named by the log"

    def write_files(self) -> None:
        for path, text in self.files:
            write_text_atomic(path, text)

    def shown(self) -> str:
        """The command as a user would type it (every word quoted)."""
        return f"cd -- {shell_line([str(self.cwd)])} && {shell_line(self.command)}"


def harness_of(log: RunLog) -> tuple[str, Path, Path] | None:
    """(harness, its log file, the folder it ran in) for a log a harness made, else None."""
    extra = log.model_extra or {}
    wrapped = extra.get("wrapped") if isinstance(extra.get("wrapped"), dict) else None
    if wrapped and wrapped.get("harness") in (INSPECT, PROMPTFOO):
        cwd = Path(str(wrapped.get("cwd") or "."))
        return str(wrapped["harness"]), cwd / str(wrapped["harness_log"]), cwd
    source = log.imported_from or {}
    if source.get("format") in (INSPECT, PROMPTFOO) and source.get("file"):
        path = Path(str(source["file"]))
        return str(source["format"]), path, path.parent
    return None


def harness_command(log: RunLog, task_ids: list[str], rounds: int, out_dir: Path) -> HarnessCommand:
    """The command that re-runs the selected tasks through the parent's harness.

    Raises:
        RerunLensError: the log was not made by a harness, or the harness, its log or its task
            file is missing (one line, naming what and where).
    """
    found = harness_of(log)
    if found is None:
        raise RerunLensError("this log was not made by Inspect or promptfoo: re-run it --through prompt")
    kind, path, cwd = found
    if not path.is_file():
        raise RerunLensError(f"{path}: the {kind} log this run came from is not there")
    data = read_file(path, MAX_LOG_BYTES, f"{kind} log", LogError)
    source = Source(str(path))
    if kind == INSPECT:
        parsed = read_eval_archive(data, source) if is_eval_archive(data) else parse_json(data, source)
        return _inspect(parsed, task_ids, rounds, (cwd, out_dir))
    return _promptfoo(parse_json(data.decode("utf-8-sig", "replace"), source), task_ids, rounds, out_dir)


def rerun_through_command(parent: Path, task_ids: list[str], rounds: int) -> str:
    """The `rerunlens rerun --through harness` line to paste in a terminal, for the tasks chosen on a
    page: ids and the log's path are data, so each id is one `--only=ID` word and the path follows `--`."""
    options = [("--only", task_ids), ("--repeat", rounds), ("--through", "harness")]
    return shell_line(command_words(["rerunlens", "rerun"], options, [str(parent)]))


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise RerunLensError(f"{name}: not installed here (not on PATH): cannot re-run through it")
    return found


def _inspect(parsed: dict[str, Any], ids: list[str], rounds: int, where: tuple[Path, Path]) -> HarnessCommand:
    cwd, out_dir = where
    spec: dict[str, Any] = parsed["eval"] if isinstance(parsed.get("eval"), dict) else {}
    task_file = spec.get("task_file")
    if not isinstance(task_file, str) or not (cwd / task_file).is_file():
        raise RerunLensError(f"{cwd / str(task_file)}: the Inspect task file is not there")
    if joined := [i for i in ids if "," in i]:
        shown = joined[0][:60]
        raise RerunLensError(f"sample id {shown!r} holds a comma: Inspect's --sample-id would read two ids")
    options: list[tuple[str, object]] = [("--model", str(spec.get("model")))]
    for name, value in (spec.get("task_args") or {}).items():
        options.append(("-T", f"{name}={value if isinstance(value, str) else json.dumps(value)}"))
    for name, value in (spec.get("model_generate_config") or {}).items():
        if name in GENERATE_FLAGS:
            options.append((GENERATE_FLAGS[name], str(value)))
    options += [("--sample-id", ",".join(ids)), ("--epochs", rounds), ("--log-dir", out_dir.resolve())]
    task = f"{data_path(task_file)}@{spec.get('task')}"
    command = command_words([_tool("inspect"), "eval"], options, [task])
    return HarnessCommand(INSPECT, command, cwd, runs_code=f"the task file {cwd / task_file}")


def _promptfoo(parsed: dict[str, Any], ids: list[str], rounds: int, out_dir: Path) -> HarnessCommand:
    config = parsed.get("config")
    if not isinstance(config, dict) or not config.get("tests"):
        raise RerunLensError("the promptfoo results hold no config with tests: cannot re-run through it")
    out_dir = out_dir.resolve()  # promptfoo runs inside it: every path it is given is absolute
    config_path = out_dir / "rerun.promptfooconfig.json"
    kept = {k: v for k, v in config.items() if k != "outputPath"}  # the output is ours (-o), not the parent's
    text = scrub(json.dumps(kept, indent=2), [])  # key-like words masked
    output = out_dir / "rerun.promptfoo.json"
    names = "|".join(re.escape(i.split(" | ")[0]) for i in ids)
    options = [("--config", config_path), ("--output", output), ("--filter-pattern", f"^({names})$")]
    options += [("--repeat", rounds), ("--no-cache", True)]
    command = command_words([_tool("promptfoo"), "eval"], options)
    code = "the promptfoo config stored in its results (providers and assertions it names may run scripts)"
    return HarnessCommand(
        PROMPTFOO, command, out_dir, harness_log=output, files=((config_path, text),), runs_code=code
    )
