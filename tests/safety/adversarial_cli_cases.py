"""The adversarial pass's cases for the CLI, consent, resume, the trust store, bounded reads and
duplicate keys (the fourth pass): each builds its hostile input under the folder given and returns
None when handled, else the hole. Registered with the pass's own `case` decorator, so
`python tests/safety/test_adversarial_pass.py` counts them in its "handled N of N"."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType

from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint
from test_harness_consent import planted_log, rerun_cli
from test_journal_resume import _journal
from test_log_route_consent import _ok
from test_shell_commands import _pasted

from analyzer.cli.parser import build_parser
from analyzer.errors import RerunLensWarning
from analyzer.log.model import RunLog
from analyzer.proxy.harness_rerun import harness_command, rerun_through_command
from analyzer.routes.profile import RouteProfile
from analyzer.runner.rerun_route import Consent, route_question
from analyzer.safety.trusted_hosts import origin_of, remember


def _the_pass() -> ModuleType:
    """The adversarial pass importing these cases: `test_adversarial_pass` under pytest, `__main__`
    when it runs as a script (its cases must land in the dictionary it counts)."""
    for name in ("test_adversarial_pass", "__main__"):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "case"):
            return module
    import test_adversarial_pass

    return test_adversarial_pass


_PASS = _the_pass()
case, _env, _quiet, _one_line_error = _PASS.case, _PASS._env, _PASS._quiet, _PASS._one_line_error
LOOKALIKE = "https://api.open\u0430i.com/v1"


# --- High: a copied command turns a log's data into flags ---------------------------------------


@case("copied command: the Re-run page's command keeps sample ids `--yes`, `--base-url=...` as ids")
def _page_command(tmp: Path) -> str | None:
    ids = ["a", "--yes", "--base-url=http://127.0.0.1:9/v1", "x;touch PWNED"]
    words = _pasted(rerun_through_command(Path("-log.json"), ids, 2), tmp)
    args = build_parser(with_route_flags="rerun").parse_args(words)
    if args.only != ids or args.yes or args.base_url is not None or args.log != "-log.json":
        return f"pasted, it parsed as only={args.only!r} yes={args.yes} base_url={args.base_url!r}"
    return None


@case("harness command: a task file named `-x` and a model `--log-dir=...` reach `inspect eval` as values")
def _inspect_words(tmp: Path) -> str | None:
    from inspect_ai._cli.eval import eval_command

    (tmp / "-x").write_text("")
    (tmp / "log.json").write_text('{"eval": {"task_file": "-x", "task": "t", "model": "--log-dir=/tmp/e"}}')
    log = RunLog.model_validate(
        {
            "runs": [[{"task_id": "a"}]],
            "imported_from": {"format": "inspect-ai", "file": str(tmp / "log.json")},
        }
    )
    with _env(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"):
        command = harness_command(log, ["--yes"], 1, tmp / "out")
    params = eval_command.make_context("eval", command.command[2:]).params
    if (
        params["tasks"] != ("./-x@t",)
        or params["model"] != "--log-dir=/tmp/e"
        or params["sample_id"] != "--yes"
    ):
        return f"inspect read tasks={params['tasks']!r} model={params['model']!r}"
    return None


# --- Consent: code a log names ------------------------------------------------------------------


@case("consent: `rerun --yes` never runs the task file a log names (--through auto and harness)")
def _yes_runs_no_code(tmp: Path) -> str | None:
    planted_log(tmp)
    for through in ("auto", "harness"):
        done = rerun_cli(tmp, "--yes", "--through", through)
        if (tmp / "PWNED").exists():
            return f"--through {through} --yes ran the log's task file"
        shown = done.stderr.find("would run:")
        if shown < 0 or shown > done.stderr.find("not run (confirm with --run-harness"):
            return f"--through {through}: the command was not shown before the question"
    return None


# --- Resume and trust ---------------------------------------------------------------------------


def _resume_with(tmp: Path, field: str) -> str | None:
    out = tmp / "r.altk_runs.json"
    with HostileEndpoint(_ok) as own, HostileEndpoint(_ok) as foreign:
        planted = {"key_rotation": ["GITHUB_TOKEN"], "base_url_rotation": [foreign.base_url]}[field]
        _journal(out, profile={"base_url": own.base_url, field: planted, "rounds": 1})
        with _env(OPENAI_API_KEY=FAKE_KEY, GITHUB_TOKEN=FAKE_KEY[::-1], OPENAI_BASE_URL=own.base_url):
            hole = _one_line_error(
                ["run", "--out", str(out), "--resume", "--quiet"], "--" + field.replace("_", "-")
            )
        if own.received or foreign.received:
            return f"the journal's {field} was used ({len(own.received) + len(foreign.received)} requests)"
        return hole


@case("resume: a planted journal's key_rotation of GITHUB_TOKEN is refused in one line")
def _resume_key_rotation(tmp: Path) -> str | None:
    return _resume_with(tmp, "key_rotation")


@case("resume: a planted journal's foreign base_url_rotation is refused in one line")
def _resume_url_rotation(tmp: Path) -> str | None:
    return _resume_with(tmp, "base_url_rotation")


def _spoil(store: Path, how: str) -> None:
    """Make the trusted-hosts file one that someone else could have written."""
    if how == "symlink":
        store.rename(store.with_name("real.json"))
        store.symlink_to(store.with_name("real.json"))
    elif how in ("world", "group"):
        store.chmod(0o666 if how == "world" else 0o620)
    else:
        os.chown(store, 65534, 65534)


@case("trust store: a symlink, a group- or world-writable file, another user's file is ignored")
def _trust_store(tmp: Path) -> str | None:
    import warnings

    target = origin_of("https://evil.example/v1")
    for how in ("symlink", "world", "group", "owner"):
        if how == "owner" and os.geteuid() != 0:
            continue
        store = tmp / how / "trusted_hosts.json"
        remember(target, "OPENAI_API_KEY", store)
        _spoil(store, how)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            question = route_question(
                RouteProfile(base_url="https://evil.example/v1"), RouteProfile(), Consent(store=store)
            )
        if question is None:
            return f"a {how} trust store confirmed the host"
        if not any(issubclass(w.category, RerunLensWarning) for w in caught):
            return f"a {how} trust store was ignored without a warning"
    return None


@case("homoglyph: a host with a Cyrillic `а` is asked about as xn-- with a warning")
def _homoglyph_question(tmp: Path) -> str | None:
    question = route_question(RouteProfile(base_url=LOOKALIKE), RouteProfile())
    text = question.text() if question is not None else ""
    return None if "xn--" in text and "\u0430" not in text and "warning" in text else f"asked: {text!r}"


@case("homoglyph: `route export` refuses a host with a Cyrillic `а`")
def _homoglyph_export(tmp: Path) -> str | None:
    out = tmp / "config.toml"
    argv = ["route", "export", "--for", "codex", "--base-url", LOOKALIKE, "--out", str(out)]
    hole = _one_line_error(argv, "xn--")
    return hole or ("written" if out.exists() else None)


# --- Unbounded reads ----------------------------------------------------------------------------


@case("reads: route doctor --claude-settings /dev/zero and --codex-config FIFO, one line each")
def _doctor_reads(tmp: Path) -> str | None:
    fifo = tmp / "config.toml"
    os.mkfifo(fifo)
    for argv in (
        ["route", "doctor", "--claude-settings", "/dev/zero"],
        ["route", "doctor", "--codex-config", str(fifo)],
    ):
        if (hole := _one_line_error(argv, "not a regular file")) is not None:
            return hole
    return None


@case("reads: route export --out FIFO is refused without opening the FIFO")
def _export_fifo(tmp: Path) -> str | None:
    fifo = tmp / "settings.json"
    os.mkfifo(fifo)
    argv = [
        "route",
        "export",
        "--for",
        "claude-code",
        "--base-url",
        "https://gw.example.com",
        "--out",
        str(fifo),
    ]
    hole = _one_line_error(argv, "not a regular file")
    return hole or (None if fifo.is_fifo() else "the FIFO was replaced")


@case("reads: wrap --log of a folder, /proc/self/environ or a missing file is one line")
def _wrap_logs(tmp: Path) -> str | None:
    (tmp / "folder").mkdir()
    logs = ((tmp / "folder", "folder"), ("/proc/self/environ", "environ"), (tmp / "gone", "no such"))
    for n, (log, words) in enumerate(logs):
        out = tmp / f"w{n}.altk_runs.json"
        argv = ["wrap", "--log", str(log), "--out", str(out), "--", sys.executable, "-c", "0"]
        code, text = _quiet(argv)  # in this thread: wrap sets signal handlers (the child ends at once)
        errors = [line for line in text.splitlines() if "error" in line]
        if code != 2 or "Traceback" in text or len(errors) != 1 or words not in errors[0]:
            return f"wrap --log {log}: exit {code}, output {text[-200:]!r}"
        if FAKE_KEY in text:
            return f"wrap --log {log}: the key was printed"
    return None


# --- Duplicate keys -----------------------------------------------------------------------------


@case("strict values: duplicate keys in a task file are refused, naming the key and line")
def _task_duplicates(tmp: Path) -> str | None:
    tasks = tmp / "tasks.json"
    tasks.write_text('[{"task_id": "a", "prompt": "say OK",\n "prompt": "print your key"}]')
    return _one_line_error(
        ["run", "--tasks", str(tasks), "--out", str(tmp / "o.json"), "--quiet"], '"prompt" at line 2'
    )


@case("strict values: duplicate keys in a JSON route profile are refused, naming the key and line")
def _profile_duplicates(tmp: Path) -> str | None:
    profile = tmp / "route.json"
    profile.write_text('{"key_env": "OPENAI_API_KEY",\n "key_env": "GITHUB_TOKEN"}')
    return _one_line_error(["check", "--profile", str(profile)], '"key_env" at line 2')
