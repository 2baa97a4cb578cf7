"""The `rerunlens` argument parser: every command's arguments, help and example, and nothing else.

Building it imports neither the runner nor pandas: each command names its handler as
`module:function`, and `analyzer.cli.main` imports that module only when the command runs. Route
flags are generated from the route profile's own field metadata (`route_knobs`); since that means
building the pydantic model, they are added only to the command being run (`rerunlens --help`
stays fast), or to every command when `with_route_flags` is None.
"""

from __future__ import annotations

import argparse
import math

from analyzer.cli.history_parser import add_history, add_monitor, add_no_history_option
from analyzer.cli.semantic_args import add_judge_flags
from analyzer.formats import format_list
from analyzer.metrics.answer_keys import ANSWER_KEYS

LOG_COMMANDS = "analyzer.cli.log_commands"
RUN_COMMANDS = "analyzer.cli.run_commands"
CODING_TOOL_COMMANDS = "analyzer.cli.route_commands"
PROXY_COMMANDS = "analyzer.cli.proxy_commands"
AUDIT_COMMANDS = "analyzer.cli.audit_commands"
CODING_TOOLS = ("claude-code", "codex", "cc-switch")
"""`route export --for` choices (analyzer.coding_tools.TOOLS, not imported: it loads the profile)."""


ROUTE_COMMANDS = ("run", "rerun", "check", "route", "resample", "proxy", "wrap", "monitor")
"""Commands that take route flags."""


def build_parser(with_route_flags: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand.

    Args:
        with_route_flags: The one command that gets its route flags (the one about to run); None
            gives every route command its flags (complete help, tests).
    """
    parser = argparse.ArgumentParser(
        prog="rerunlens",
        description="Tell route noise from model noise in repeated LLM agent runs.",
    )
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    _add_analyze(sub)
    _add_compare(sub)
    _add_export(sub)
    _add_import(sub)
    _add_schema(sub)
    _add_report(sub)
    for name, add in (
        ("run", _add_run),
        ("rerun", _add_rerun),
        ("check", _add_check),
        ("resample", _add_resample),
    ):
        add(sub, with_route_flags in (None, name))
    _add_simulate(sub)
    _add_dashboard(sub)
    _add_route(sub, with_route_flags in (None, "route"))
    _add_proxy(sub, with_route_flags in (None, "proxy"))
    _add_wrap(sub, with_route_flags in (None, "wrap"))
    add_history(sub, add_command)
    add_monitor(sub, add_command, add_route_flags if with_route_flags in (None, "monitor") else None)
    _add_audit(sub)
    return parser


def add_command(
    sub: argparse._SubParsersAction, name: str, help_text: str, examples: str | list[str], handler: str
) -> argparse.ArgumentParser:
    """A subcommand whose help carries its description and at least one example.

    Args:
        handler: `module:function` that runs the command (imported only when it runs).
    """
    lines = [examples] if isinstance(examples, str) else examples
    p = sub.add_parser(
        name,
        help=help_text,
        description=help_text,
        epilog="example:\n" + "\n".join(f"  {e}" for e in lines),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(handler=handler)
    return p


def add_answer_key_option(p: argparse.ArgumentParser, yes: bool = True) -> None:
    """The shared `--key` option (every answer key in `ANSWER_KEYS`), the semantic and judge keys'
    settings (`yes`: the judge's `--yes`, for a command without its own)."""
    p.add_argument(
        "--key",
        choices=ANSWER_KEYS,
        default=ANSWER_KEYS[0],
        help=f"how answers are grouped into clusters (default: {ANSWER_KEYS[0]})",
    )
    g = p.add_argument_group("the semantic key (--key semantic)")
    g.add_argument(
        "--semantic-threshold",
        type=_unit_float,
        metavar="T",
        help="similarity (0..1) at or above which two answers are one (default: 0.65, chosen on the "
        "labelled set; 0.20 lower between Chinese and English; see docs/metrics.md)",
    )
    g.add_argument(
        "--embeddings",
        choices=("local", "route"),
        default="local",
        help="where vectors come from: local (the bundled model, pip install 'rerunlens[semantic]'; "
        "default) or route (the route's /v1/embeddings from OPENAI_BASE_URL and OPENAI_API_KEY; the "
        "built-in simulator when no base URL is set)",
    )
    g.add_argument(
        "--embeddings-model",
        metavar="NAME",
        default="text-embedding-3-small",
        help="the model --embeddings route asks for (default: text-embedding-3-small)",
    )
    add_judge_flags(p, yes)


def add_route_flags(p: argparse.ArgumentParser, repeat: bool = True) -> None:
    """`--profile`, one flag per route field (from the profile's metadata) and `--scenario`."""
    g = p.add_argument_group(
        "route", "defaults < ALTK_*/OPENAI_* environment variables < --profile file < these flags"
    )
    g.add_argument("--profile", metavar="FILE", help="route profile, TOML or JSON")
    from analyzer.routes.profile import knob_help, knob_kind, route_knobs  # pydantic: only when needed

    for field, knob in route_knobs().items():
        if field == "rounds" and not repeat:
            continue
        g.add_argument(knob.flag, dest=field, type=knob_kind(field), default=None, help=knob_help(field))
    g.add_argument(
        "--scenario", metavar="FILE", help="simulator scenario (when the built-in simulator serves)"
    )


def _unit_float(text: str) -> float:
    value = _finite_float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and 1")
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def add_prices_option(p: argparse.ArgumentParser) -> None:
    """`--prices FILE`: the user's price table, to compute a cost where a log records only tokens."""
    p.add_argument(
        "--prices",
        metavar="FILE",
        help='price table (JSON: {"MODEL": {"prompt": P, "completion": C, "cached": K}} in US dollars per '
        "million tokens) to compute a cost where a log records tokens but no cost; none is ever guessed",
    )


def _add_analyze(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "analyze",
        "Report a run log: answer gap, outcome figures, tokens, retries, route, flagged tasks.",
        "rerunlens analyze sample_runs/format1_plain_script.json --key normalized --fail-above 20",
        f"{LOG_COMMANDS}:analyze",
    )
    p.add_argument("file", help="run log (altk_runs.json, or another tool's log: see rerunlens import)")
    add_answer_key_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    p.add_argument(
        "--fail-above",
        type=_finite_float,
        metavar="PP",
        help="exit 1 when the answer gap exceeds PP percentage points (for CI)",
    )
    add_prices_option(p)


def _add_report(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "report",
        "Write one self-contained HTML report to share (opens offline): headline figures, flagged tasks, "
        "answer clusters, retries and route drift; several logs side by side.",
        [
            "rerunlens report sample_runs/A_baseline.altk_runs.json -o report.html",
            "rerunlens report sample_runs/?_*.altk_runs.json --key normalized -o compare.html",
        ],
        f"{LOG_COMMANDS}:report",
    )
    p.add_argument("files", nargs="+", help="one or more run logs")
    p.add_argument("-o", "--out", required=True, metavar="HTML", help="the HTML file to write")
    p.add_argument("--label", action="append", help="a label per file, in order (default: the log's label)")
    p.add_argument(
        "--title", default="RerunLens report", help='the report\'s title (default "RerunLens report")'
    )
    add_answer_key_option(p)
    add_prices_option(p)


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "compare",
        "Compare run logs side by side and list the tasks that flip between consistent and not.",
        "rerunlens compare sample_runs/A_baseline.altk_runs.json sample_runs/C_pinned.altk_runs.json",
        f"{LOG_COMMANDS}:compare",
    )
    p.add_argument("files", nargs="+", help="two or more run logs")
    p.add_argument("--label", action="append", help="a label per file, in order (default: the log's label)")
    add_answer_key_option(p)
    add_prices_option(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")


def _add_export(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "export",
        "Write the flagged tasks as a task file, and/or the per-task table as CSV.",
        "rerunlens export run.json --flagged flagged_tasks.json --csv tasks.csv",
        f"{LOG_COMMANDS}:export",
    )
    p.add_argument("file", help="run log")
    p.add_argument("--flagged", metavar="OUT.json", help="write the flagged tasks as a task file")
    p.add_argument("--csv", metavar="OUT.csv", help="write the per-task table")
    p.add_argument("--tasks", metavar="TASKS.json", help="take prompts from this task file (format-1 logs)")
    add_answer_key_option(p)


def _add_import(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "import",
        f"Write another tool's log ({format_list()}; AppWorld rounds are one experiment folder each) as a "
        "format-2 run log. analyze "
        "and compare read those directly too; the format is recognised from the content.",
        [
            "rerunlens import logs/2026-11-30_task.eval -o runs/inspect.altk_runs.json",
            "rerunlens import tau2/results.json",
            "rerunlens import experiments/outputs/react_repeats",
        ],
        f"{LOG_COMMANDS}:import_log",
    )
    p.add_argument(
        "src",
        help="the other tool's log (a file, a tau2-bench results.json, or a folder of AppWorld outputs)",
    )
    p.add_argument(
        "-o", "--out", help="where to write (default: SRC's name with .altk_runs.json; never overwritten)"
    )


def _add_schema(sub: argparse._SubParsersAction) -> None:
    add_command(
        sub,
        "schema",
        "Print the JSON Schema of the run log format.",
        "rerunlens schema > altk_runs.schema.json",
        f"{LOG_COMMANDS}:schema",
    )


def _add_run(sub: argparse._SubParsersAction, route: bool) -> None:
    p = add_command(
        sub,
        "run",
        "Run every task N times through one route and write a format-2 run log (checkpointed, resumable).",
        [
            "rerunlens run --tasks sample_runs/tasks.json --repeat 5 --out runs/mine.altk_runs.json",
            "rerunlens run --tasks t.json --out x.json --base-url https://api.openai.com/v1 --concurrency 4",
            "rerunlens run --tasks t.json --out runs/x.json --executor examples/agent_executor.py:run_task",
        ],
        f"{RUN_COMMANDS}:run",
    )
    p.add_argument(
        "--tasks", help='task file: a JSON list of {"task_id", "prompt", "max_tokens"?, "expected"?}'
    )
    p.add_argument("--out", required=True, help="run log to write (a journal sits beside it while running)")
    _add_executor(p)
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted run from its journal, on the journal's route (route flags, if "
        "given, must match it; OPENAI_*/ALTK_* variables other than the key are not read)",
    )
    p.add_argument("--label", help='label stored in the log, e.g. "C: pinned route"')
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_no_history_option(p)
    if route:
        add_route_flags(p)


def _add_executor(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--executor", metavar="MODULE:FUNCTION", help="your agent: called with (task, client, route)"
    )


def _add_rerun(sub: argparse._SubParsersAction, route: bool) -> None:
    p = add_command(
        sub,
        "rerun",
        "Re-run a log's unstable tasks through one pinned route; print before/after and the verdict. "
        "The base URL and key variable default to the parent's provider, and model, temperature, "
        "top_p and max_tokens to the parent's settings (so before/after measures the route, not a "
        "change of provider or model); seed, retries and concurrency come from the profile as usual. "
        "A setting given that differs from the parent's is warned about and recorded in the new log; "
        "a seed the parent did not send is named beside the verdict. A log the built-in simulator "
        "made is re-run on the scenario it recorded.",
        [
            "rerunlens rerun sample_runs/A_baseline.altk_runs.json --only flagged --out runs/A_pinned.json",
            "rerunlens rerun runs/mine.json --only shop-003 cal-007 --out runs/two.json --concurrency 1",
        ],
        f"{RUN_COMMANDS}:rerun",
    )
    p.add_argument(
        "--through",
        choices=("auto", "harness", "prompt"),
        default="auto",
        help="harness: re-run through the Inspect or promptfoo run that made the log (wrapped on the "
        "route); prompt: send each task's prompt once (prompt only: measures the model's answer to the "
        "first prompt, not the agent); auto (default): the harness when it and its task file are here "
        "and you confirm running that code (--run-harness, or y on a terminal), else prompt only",
    )
    p.add_argument("log", help="the run log to re-run tasks from")
    p.add_argument(
        "--only",
        nargs="+",
        action="extend",
        metavar="WHICH",
        help="flagged (default), inconsistent, or task ids (repeatable; --only=ID takes an id that "
        "starts with -)",
    )
    p.add_argument("--out", help="new log (default: LOG's name with .rerun)")
    p.add_argument(
        "--tasks", help="task file, for a log with no prompts (format 1, or a source that records none)"
    )
    add_answer_key_option(p, yes=False)
    _add_executor(p)
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted re-run from its journal, on the journal's route",
    )
    p.add_argument(
        "--max-requests",
        type=int,
        metavar="N",
        help="ask before sending more than N requests (with no terminal to ask: refuse); the requests "
        "and expected tokens are printed before any re-run",
    )
    _add_parent_route(p)
    _add_dry_run(p)
    p.add_argument("--label", help="label stored in the new log")
    p.add_argument(
        "--simulator",
        action="store_true",
        help="re-run a provider's log on the built-in simulator on purpose (refused otherwise: the "
        "before/after would compare a provider with a simulator)",
    )
    p.add_argument("--json", action="store_true", help="print the before/after as JSON")
    p.add_argument(
        "--yes",
        action="store_true",
        help="send the key to the log's host without asking, when the log's route names a host "
        "other than your own route's (asked on a terminal, refused otherwise); it never runs code",
    )
    p.add_argument(
        "--run-harness",
        action="store_true",
        help="with --through: run the harness command the log names (Inspect's task file, promptfoo's "
        "config), shown in full first, without asking (asked on a terminal, not run otherwise)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_no_history_option(p)
    if route:
        add_route_flags(p)


def _add_parent_route(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--with-parent-route",
        action="store_true",
        help="also run, for each task no pinned rounds can decide, the rounds the planner proposes on the "
        "parent's own route (the key and base URL rotation its log recorded) beside the pinned ones; "
        "every key variable must be one your route names or RERUNLENS_KEY_VARIABLES lists, and a host "
        "not your own is asked for (or --yes); saved as a second log beside --out",
    )


def _add_dry_run(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the re-run's plan (tasks, pinned rounds each, what cannot be decided and what "
        "could, requests and expected tokens; as JSON with --json), the Re-run page's; send nothing",
    )


def _add_resample(sub: argparse._SubParsersAction, route: bool) -> None:
    p = add_command(
        sub,
        "resample",
        "Replay one task's recorded conversation up to each assistant step on a pinned route and sample "
        "the step N times: per-step uncertainty (1 - mean pairwise similarity) and entropy, up to three "
        "steps flagged at 0.2 or more, the samples saved in a log linked to the parent.",
        [
            "rerunlens resample sample_runs/E_agent_tools.altk_runs.json --task agent-cheapest-monitor",
            "rerunlens resample runs/agent.json --task t-7 --samples 8 --steps 0 3 --json",
        ],
        f"{RUN_COMMANDS}:resample",
    )
    p.add_argument("log", help="the run log whose task conversation is replayed (recorded as chat messages)")
    p.add_argument("--task", required=True, help="the task id")
    p.add_argument("--samples", type=int, default=5, help="samples per step (default 5, at least 2)")
    p.add_argument(
        "--steps", type=int, nargs="+", metavar="STEP", help="assistant steps, 0-based (default: all)"
    )
    p.add_argument("--round", type=int, help="the round whose conversation is replayed (default: the first)")
    p.add_argument("--out", help="the new log (default: beside LOG, .resample-TASK)")
    add_no_history_option(p)
    p.add_argument("--json", action="store_true", help="print the scores as JSON")
    p.add_argument(
        "--yes",
        action="store_true",
        help="send the key to the log's host without asking, when the log's route names a host "
        "other than your own route's (asked on a terminal, refused otherwise)",
    )
    if route:
        add_route_flags(p, repeat=False)


def _add_check(sub: argparse._SubParsersAction, route: bool) -> None:
    p = add_command(
        sub,
        "check",
        'Preflight a route: one minimal completion (asks for "OK", max_tokens 8) and a diagnosis.',
        [
            "rerunlens check",
            "rerunlens check --base-url https://api.openai.com/v1 --key-env MY_KEY --model gpt-4o-mini",
        ],
        f"{RUN_COMMANDS}:check",
    )
    p.add_argument("--json", action="store_true", help="print the diagnosis as JSON")
    if route:
        add_route_flags(p, repeat=False)


def _add_simulate(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "simulate",
        "Serve the OpenAI-compatible simulator on loopback (/v1/chat/completions, /v1/models) until Ctrl-C.",
        [
            "rerunlens simulate --port 8765",
            "rerunlens simulate --port 8765 --scenario tests/fixtures/scenarios/flaky.json",
        ],
        f"{RUN_COMMANDS}:simulate",
    )
    p.add_argument("--port", type=int, default=8765, help="loopback port (default 8765; 0 picks a free one)")
    p.add_argument(
        "--scenario", metavar="FILE", help="scenario JSON: keys, backends, faults, scripted replies"
    )


def _add_dashboard(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "dashboard",
        "Open the dashboard with its safe settings (127.0.0.1 only, no tracebacks on the page, no usage "
        "statistics), wherever it is started from.",
        ["rerunlens dashboard", "rerunlens dashboard --runs-dir runs --port 8502"],
        f"{RUN_COMMANDS}:dashboard",
    )
    p.add_argument(
        "--runs-dir",
        metavar="DIR",
        help="where the dashboard saves runs and lists your logs (default: $RERUNLENS_RUNS_DIR, else ./runs "
        "under the folder you start it from, created on the first save)",
    )
    p.add_argument(
        "--port", type=int, help="port (default 8501; a busy port is refused with a free one to use instead)"
    )
    p.add_argument(
        "--address",
        help="listen on this address instead of 127.0.0.1, on purpose (starting runs stays refused "
        "there unless RERUNLENS_ALLOW_REMOTE_RUNS=1)",
    )
    p.add_argument("--print-command", action="store_true", help="print the streamlit command, do not run it")


def _add_route(sub: argparse._SubParsersAction, route: bool) -> None:
    p = add_command(
        sub,
        "route",
        "Point Claude Code, Codex or CC Switch at the benchmark's pinned route, and check their settings.",
        [
            "rerunlens route export --for codex --base-url https://gw.example.com/v1",
            "rerunlens route doctor --env",
        ],
        f"{CODING_TOOL_COMMANDS}:export",
    )
    actions = p.add_subparsers(title="actions", metavar="ACTION", required=True)
    e = add_command(
        actions,
        "export",
        "Print (or merge into --out) the settings one coding tool needs for the route; never the key. "
        "A base URL that fails the lint is refused.",
        [
            "rerunlens route export --for claude-code --base-url https://gw.example.com/v1 --model gw-coder",
            "rerunlens route export --for codex --profile route.toml --key-env CODEX_KEY --out config.toml",
        ],
        f"{CODING_TOOL_COMMANDS}:export",
    )
    e.add_argument("--for", dest="tool", required=True, choices=CODING_TOOLS, help="the coding tool")
    e.add_argument("--out", metavar="FILE", help="merge into this settings file, keeping its other settings")
    e.add_argument("--force", action="store_true", help="with --out: replace keys the file sets otherwise")
    _add_benchmark_key_env(e)
    if route:
        add_route_flags(e, repeat=False)
    d = add_command(
        actions,
        "doctor",
        "Report the classic mistakes in the coding tools' settings (default: ~/.claude/settings.json and "
        "~/.codex/config.toml) with file, key and fix; exit 1 when there is any. Keys only as fingerprints.",
        ["rerunlens route doctor", "rerunlens route doctor --codex-config ./config.toml --env"],
        f"{CODING_TOOL_COMMANDS}:doctor",
    )
    d.add_argument("--claude-settings", metavar="FILE", help="Claude Code's settings.json")
    d.add_argument("--codex-config", metavar="FILE", help="Codex's config.toml")
    d.add_argument("--cc-switch", metavar="FILE", help="a CC Switch provider JSON")
    d.add_argument("--env", action="store_true", help="also check base URLs and keys in the environment")
    _add_benchmark_key_env(d)


def _add_benchmark_key_env(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--benchmark-key-env",
        metavar="NAME",
        default="OPENAI_API_KEY",
        help="the variable the benchmark reads its key from; a coding tool using it too is reported "
        "(default OPENAI_API_KEY)",
    )


def _add_proxy_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--journal", metavar="FILE", help="the journal to write (JSON lines, one per attempt)")
    p.add_argument("--port", type=int, default=0, help="loopback port (default 0: a free one)")
    p.add_argument(
        "--keep-bodies",
        action="store_true",
        help="keep bodies in the journal (scrubbed)",
    )
    p.add_argument("--label", help="a label for the journal and the log")


def _add_proxy(sub: argparse._SubParsersAction, route: bool) -> None:
    p = add_command(
        sub,
        "proxy",
        "Serve a recording pass-through endpoint on 127.0.0.1 in front of the route (OpenAI chat, "
        "responses, embeddings, models; Anthropic messages; streaming): clients use a local token, the "
        "key stays here, every attempt is journaled. Prints the export lines for another shell.",
        [
            "rerunlens proxy --base-url https://api.openai.com/v1 --journal runs/harness.proxy.jsonl",
            "rerunlens proxy --port 8790   # the built-in simulator upstream",
        ],
        f"{PROXY_COMMANDS}:proxy",
    )
    _add_proxy_options(p)
    if route:
        add_route_flags(p, repeat=False)


def _add_wrap(sub: argparse._SubParsersAction, route: bool) -> None:
    p = add_command(
        sub,
        "wrap",
        "Run a harness's own command through the recording proxy (its base URL and key variables point "
        "at the proxy; the real key is never in its environment), then join its log (Inspect's log dir, "
        "promptfoo's -o, or --log) with the attempts, and write one run log.",
        [
            "rerunlens wrap --out runs/inspect.altk_runs.json -- inspect eval task.py --model openai/gpt-4o",
            "rerunlens wrap -- promptfoo eval -c promptfooconfig.yaml -o results.json",
        ],
        f"{PROXY_COMMANDS}:wrap",
    )
    p.add_argument(
        "--out", metavar="LOG", help="the run log to write (default runs/wrap-TIME.altk_runs.json)"
    )
    p.add_argument("--log", metavar="PATH", help="the harness's log, when it is not found from its command")
    add_no_history_option(p)
    _add_proxy_options(p)
    if route:
        add_route_flags(p, repeat=False)
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command to run")


def _add_audit(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "audit",
        "Audit a route against a reference route: same model (identity test), tokens billed as counted, "
        "tool calls as valid. Two logs of the same prompts, or a live audit of two URLs.",
        [
            "rerunlens audit reference.altk_runs.json candidate.altk_runs.json",
            "rerunlens audit runs/harness.proxy.jsonl",
            "rerunlens audit --samples 10 --reference https://api.openai.com/v1 --candidate https://gateway.example/v1",
        ],
        f"{AUDIT_COMMANDS}:audit",
    )
    p.add_argument(
        "files",
        nargs="*",
        metavar="LOG",
        help="the reference route's log, then the candidate's; or one proxy journal or wrapped run's log",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of sentences")
    p.add_argument("--alpha", type=_unit_float, default=0.05, help="the test's level (default: 0.05)")
    p.add_argument("--html", metavar="FILE", help="also write the audit as one HTML page")
    g = p.add_argument_group("live audit (sends requests to both routes)")
    g.add_argument("--tasks", metavar="FILE", help="task file of prompts (default: the built-in probe set)")
    g.add_argument("--samples", type=int, metavar="N", help="samples per prompt and route (default: 10)")
    g.add_argument("--reference", metavar="URL", help="the reference route's base URL")
    g.add_argument("--candidate", metavar="URL", help="the candidate route's base URL")
    g.add_argument(
        "--model", default="gpt-4.1", help="the model both routes are asked for (default: gpt-4.1)"
    )
    g.add_argument("--temperature", type=_finite_float, default=1.0, help="sampling temperature (default: 1)")
    g.add_argument("--key-env", metavar="VAR", help="the variable holding the key for both routes")
    g.add_argument("--reference-key-env", metavar="VAR", help="the reference route's key variable")
    g.add_argument("--candidate-key-env", metavar="VAR", help="the candidate route's key variable")
    g.add_argument("--out", metavar="DIR", default=".", help="where both logs are written (default: .)")
    g.add_argument("--yes", action="store_true", help="start without asking, whatever the cost")
    add_no_history_option(g)
