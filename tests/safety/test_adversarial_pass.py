"""The adversarial pass, re-runnable as one script: one hostile case per hole the third security pass
found, each driven end to end (the CLI, the loaders, the runner, the dashboard's checks) and judged
handled or not. `pytest tests/safety/test_adversarial_pass.py` runs it in the suite; run as a script
(`python tests/safety/test_adversarial_pass.py`) it prints `handled N of M` and each case still open.

The cases are small (an 8 MiB zip bomb, a journal header of 3 million planned results): each checks
the cap, never the damage. Servers are on loopback and stopped; the config folder is a temporary one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parents[1])]  # the kits, when run as a script

from fake_keys import FAKE_KEY  # noqa: E402
from hostile_endpoint import HostileEndpoint  # noqa: E402
from test_archive_bounds import BOMB, CALLS, _appworld_entries, _zip  # noqa: E402
from test_hostile_text import _tau_with_answer  # noqa: E402
from test_journal_resume import _journal  # noqa: E402
from test_log_route_consent import SAMPLE_A, SAMPLE_E, _foreign_log, _ok  # noqa: E402
from test_response_bounds import _one_attempt, _server  # noqa: E402
from test_shell_commands import BASH, _pasted  # noqa: E402

from analyzer.cli import main  # noqa: E402
from analyzer.coding_tools.export import export_command  # noqa: E402
from analyzer.errors import RerunLensError  # noqa: E402
from analyzer.importers import load_any_bytes  # noqa: E402
from analyzer.jobs.exposure import request_refused, serving_refused  # noqa: E402
from analyzer.jobs.watch import inside  # noqa: E402
from analyzer.report.export import formula_risky  # noqa: E402
from analyzer.routes.profile import RouteProfile  # noqa: E402
from analyzer.runner import transport  # noqa: E402
from analyzer.safety.keys import allowed_key_variables, check_key_variable  # noqa: E402
from analyzer.safety.terminal_text import json_text  # noqa: E402

Probe = Callable[[Path], str | None]
"""One case: builds its hostile input under the folder given, returns None when handled, else the hole."""

CASES: dict[str, Probe] = {}
TAU = HERE.parent / "fixtures" / "foreign" / "tau_bench" / "gpt-4o-airline.excerpt.json"
PINNED = HERE.parent / "fixtures" / "app" / "pinned_v2.json"
AGENT = SAMPLE_E


def case(name: str) -> Callable[[Probe], Probe]:
    def register(probe: Probe) -> Probe:
        CASES[name] = probe
        return probe

    return register


@contextlib.contextmanager
def _env(**values: str | None) -> Iterator[None]:
    before = {k: os.environ.get(k) for k in values}
    os.environ.update({k: v for k, v in values.items() if v is not None})
    for k in (k for k, v in values.items() if v is None):
        os.environ.pop(k, None)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _quiet(argv: list[str]) -> tuple[int, str]:
    """`main(argv)` with its output captured: (exit code, stdout + stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


def _one_line_error(argv: list[str], *words: str, within_s: float = 20.0) -> str | None:
    """None when `argv` ends within the time with exit 2 (or 1) and one error line holding `words`."""
    found: dict[str, object] = {}

    def run() -> None:
        found["result"] = _quiet(argv)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(within_s)
    if worker.is_alive():
        return f"{' '.join(argv[:2])}: still running after {within_s:.0f} s (a hang)"
    code, text = found["result"]  # type: ignore[misc]
    errors = [line for line in text.splitlines() if "error" in line or "cannot be read" in line]
    if code not in (1, 2) or "Traceback" in text or not errors:
        return f"{' '.join(argv[:2])}: exit {code}, output {text[-200:]!r}"
    if not all(w in errors[-1] for w in words):
        return f"{' '.join(argv[:2])}: the error does not say {words}: {errors[-1][:200]!r}"
    return None


# --- High: a shared log chooses which secret is sent where -------------------------------------


@case("log route: another variable (GITHUB_TOKEN) is never sent, even with --yes")
def _log_variable(tmp: Path) -> str | None:
    with _env(GITHUB_TOKEN=FAKE_KEY), HostileEndpoint(_ok) as ep:
        log = _foreign_log(tmp, SAMPLE_A, ep.base_url, "GITHUB_TOKEN")
        out = str(tmp / "r.json")
        code, _ = _quiet(["rerun", str(log), "--only", "shop-001", "--repeat", "1", "--out", out, "--yes"])
        return None if code == 2 and not ep.received else f"exit {code}, {len(ep.received)} requests sent"


@case("log route: a foreign host needs --yes (rerun and resample)")
def _log_host(tmp: Path) -> str | None:
    with _env(OPENAI_API_KEY=FAKE_KEY), HostileEndpoint(_ok) as ep:
        log = _foreign_log(tmp, SAMPLE_A, ep.base_url, "OPENAI_API_KEY")
        code, text = _quiet(["rerun", str(log), "--only", "shop-001", "--out", str(tmp / "r.json")])
        agent = _foreign_log(tmp, AGENT, ep.base_url, "OPENAI_API_KEY")
        again, _ = _quiet(["resample", str(agent), "--task", "agent-cheapest-monitor", "--samples", "2"])
        if code != 2 or again != 2 or ep.received or ep.origin not in text:
            return f"exits {code}/{again}, {len(ep.received)} requests sent without confirmation"
    return None


# --- High: a copied command runs the log's shell code -------------------------------------------


@case("copied command: a model named `~/x;touch PWNED;#` runs nothing when pasted")
def _pasted_command(tmp: Path) -> str | None:
    if BASH is None:
        return None
    hostile = "~/x;touch PWNED;#"
    profile = RouteProfile(base_url="https://gw.example.com/v1", model=hostile, key_env=hostile)
    try:
        words = _pasted(export_command(profile, "claude-code"), tmp)
    except AssertionError as exc:
        return f"the pasted command misbehaved: {exc}"
    return None if f"--model={hostile}" in words else f"the shell saw {words}"


# --- High: zip bombs ------------------------------------------------------------------------------


def _refused_small(data: bytes, name: str) -> str | None:
    tracemalloc.start()
    try:
        load_any_bytes(data, name)
        outcome = "it loaded"
    except RerunLensError as exc:
        outcome = "" if "zip bomb" in str(exc) else f"refused for another reason: {exc}"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    if outcome:
        return outcome
    return None if peak < BOMB // 2 else f"took {peak / 2**20:.0f} MiB before refusing"


@case("zip bomb: an AppWorld zip of newlines inflating 1000:1")
def _appworld_bomb(tmp: Path) -> str | None:
    entries = _appworld_entries()
    entries[CALLS] = b"\n" * BOMB
    return _refused_small(_zip(entries), "bomb.zip")


@case("zip bomb: an Inspect .eval entry inflating 1000:1")
def _eval_bomb(tmp: Path) -> str | None:
    return _refused_small(
        _zip({"header.json": b'{"version": 2}', "samples/1_epoch_1.json": b" " * BOMB}), "b.eval"
    )


# --- Medium: reads without bounds --------------------------------------------------------------


@case("reads: a FIFO or /dev/zero given to every command that opens a file")
def _fifo_reads(tmp: Path) -> str | None:
    fifo = tmp / "fifo.json"
    os.mkfifo(fifo)
    commands = [
        ["analyze", str(fifo)],
        ["import", str(fifo), "-o", str(tmp / "i.json")],
        ["rerun", str(fifo)],
        ["run", "--tasks", str(fifo), "--out", str(tmp / "o.json")],
        ["route", "doctor", "--claude-settings", str(fifo)],
        [
            "route",
            "export",
            "--for",
            "claude-code",
            "--base-url",
            "https://gw.example.com",
            "--out",
            str(fifo),
        ],
        ["analyze", "/dev/zero"],
        ["run", "--tasks", "/dev/urandom", "--out", str(tmp / "o.json")],
    ]
    for argv in commands:
        if (hole := _one_line_error(argv, "regular file")) is not None:
            return hole
    return None


@case("reads: a tau2 simulations/ folder holding a FIFO and a link to /dev/zero")
def _tau2_folder(tmp: Path) -> str | None:
    source = HERE.parent / "fixtures" / "foreign" / "tau2_bench" / "airline_run1.excerpt.json"
    data = json.loads(source.read_text())
    data.pop("simulations", None)
    folder = tmp / "tau2"
    (folder / "simulations").mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(data))
    ids = [str(t.get("id")) for t in data.get("tasks", [])][:2] or ["x"]
    os.mkfifo(folder / "simulations" / f"{ids[0]}.json")
    (folder / "simulations" / f"{ids[-1]}_b.json").symlink_to("/dev/zero")
    return _one_line_error(["analyze", str(folder / "results.json")], "results.json")


@case("reads: a sparse 600 MiB file in an AppWorld folder is refused on its stated size")
def _sparse(tmp: Path) -> str | None:
    folder = tmp / "outputs"
    for name, data in _appworld_entries().items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    with open(folder / CALLS, "r+b") as fh:
        fh.truncate(600 * 2**20)
    started = time.monotonic()
    hole = _one_line_error(["analyze", str(folder)], "limit")
    return hole or (None if time.monotonic() - started < 10 else "read before the cap")


# --- Medium: hostile text ----------------------------------------------------------------------


@case("hostile text: a lone surrogate in a tau-bench answer (analyze, report)")
def _surrogate(tmp: Path) -> str | None:
    path = _tau_with_answer(tmp, "SURR\ud800")
    for argv in (["analyze", str(path)], ["report", str(path), "-o", str(tmp / "r.html")]):
        code, text = _quiet(argv)
        if code != 0 or "Traceback" in text:
            return f"{argv[0]}: exit {code}"
    return None


@case("hostile text: tool arguments nested 990 deep")
def _deep(tmp: Path) -> str | None:
    text = AGENT.read_text()
    at = text.index('"arguments": ') + len('"arguments": ')
    path = tmp / "deep.json"
    path.write_text(text[:at] + "[" * 990 + "1" + "]" * 990 + text[text.index("}", at) + 1 :])
    return _one_line_error(["analyze", str(path)], "deep")


# --- Medium: a forged journal, responses --------------------------------------------------------


@case("journal: a header of 1,000 rounds x 3,000 tasks is refused before planning")
def _forged_journal(tmp: Path) -> str | None:
    out = tmp / "r.altk_runs.json"
    _journal(out, rounds=1000, tasks=[{"task_id": f"t{i}", "prompt": "p"} for i in range(3000)])
    return _one_line_error(["run", "--out", str(out), "--resume", "--quiet"], "results")


@case("responses: a body dripping a byte every 50 ms is cut at --timeout 1")
def _drip(tmp: Path) -> str | None:
    with _server(b'{"choices": []}' + b" " * 400, drip_s=0.05) as url:
        started = time.monotonic()
        outcomes = _one_attempt(url, timeout_s=1.0)
        took = time.monotonic() - started
    return None if outcomes == ["timeout"] and took < 4 else f"{outcomes} after {took:.1f} s"


@case("responses: a body over the size cap is not read further")
def _big(tmp: Path) -> str | None:
    cap, transport.MAX_RESPONSE_BYTES = transport.MAX_RESPONSE_BYTES, 64 * 1024
    try:
        with _server(b'{"x": "' + b"a" * 2**20 + b'"}', drip_s=0) as url:
            outcomes = _one_attempt(url, timeout_s=10.0)
    finally:
        transport.MAX_RESPONSE_BYTES = cap
    return None if outcomes == ["too_large"] else f"recorded {outcomes}"


# --- Medium: the dashboard ----------------------------------------------------------------------


@case("dashboard: a foreign Host (DNS rebinding) and another site's Origin are refused")
def _host(tmp: Path) -> str | None:
    if request_refused({"Host": "evil.example:8501"}, "127.0.0.1", env={}) is None:
        return "served under Host: evil.example"
    if (
        request_refused({"Host": "localhost:8501", "Origin": "http://evil.example"}, "127.0.0.1", env={})
        is None
    ):
        return "driven from Origin: http://evil.example"
    return None


@case("dashboard: bound to every interface without the switch, no page is served")
def _exposed(tmp: Path) -> str | None:
    return None if serving_refused("0.0.0.0", env={}) and serving_refused(None, env={}) else "pages served"


@case("dashboard: Watch refuses paths outside the runs folder")
def _watch(tmp: Path) -> str | None:
    for bad in ("/etc/passwd", "../../etc/hosts"):
        try:
            inside(bad, tmp)
        except RerunLensError:
            continue
        return f"{bad} was accepted"
    return None


@case("dashboard: a page may not name GITHUB_TOKEN or AWS_SECRET_ACCESS_KEY as the key")
def _page_variable(tmp: Path) -> str | None:
    allowed = allowed_key_variables(["OPENAI_API_KEY"], env={})
    for name in ("GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY"):
        try:
            check_key_variable(name, allowed)
        except RerunLensError:
            continue
        return f"{name} accepted"
    return None


# --- Medium: URL secrets, merges, duplicate keys -------------------------------------------------


@case("URL secrets: a token in the base URL's path echoed by a 404 never reaches the log")
def _url_token(tmp: Path) -> str | None:
    from test_url_secret_scrub import PATH_TOKEN, TASKS, _base, _echo

    out = tmp / "r.altk_runs.json"
    with _env(OPENAI_API_KEY="k-echo-test-0123456789"), HostileEndpoint(_echo) as ep:
        argv = ["run", "--tasks", str(TASKS), "--out", str(out), "--repeat", "1", "--max-retries", "0"]
        _code, text = _quiet([*argv, "--base-url", _base(ep), "--quiet"])
    written = out.read_text() if out.exists() else ""
    return "the token is in the log or the output" if PATH_TOKEN in written + text else None


@case("merges: a symlinked settings.json is written through, the link kept")
def _symlink_merge(tmp: Path) -> str | None:
    target = tmp / "dotfiles" / "settings.json"
    target.parent.mkdir()
    target.write_text('{"theme": "dark"}')
    link = tmp / "settings.json"
    link.symlink_to(target)
    code, _ = _quiet(
        [
            "route",
            "export",
            "--for",
            "claude-code",
            "--base-url",
            "https://gw.example.com",
            "--out",
            str(link),
        ]
    )
    ok = code == 0 and link.is_symlink() and "gw.example.com" in target.read_text()
    return None if ok else f"exit {code}, link kept: {link.is_symlink()}"


@case("merges: an existing 1e999, a duplicate key or 100,000 brackets is refused in one line")
def _malformed_merge(tmp: Path) -> str | None:
    for i, bad in enumerate(['{"n": 1e999}', '{"a": 1, "a": 2}', "[" * 100_000]):
        path = tmp / f"s{i}.json"
        path.write_text(bad)
        argv = [
            "route",
            "export",
            "--for",
            "claude-code",
            "--base-url",
            "https://gw.example.com",
            "--out",
            str(path),
        ]
        if (hole := _one_line_error(argv, str(path))) is not None or path.read_text() != bad:
            return hole or f"{path.name} was changed"
    return None


@case("strict values: duplicate keys in a tau-bench file are refused")
def _duplicates(tmp: Path) -> str | None:
    path = tmp / "tau.json"
    path.write_text(TAU.read_text().replace('"reward"', '"reward": 1.0, "reward"', 1))
    return _one_line_error(["analyze", str(path)], "duplicate key")


# --- Low ------------------------------------------------------------------------------------------


@case("terminal: --json escapes 0x9b, U+202E and U+2028")
def _json_controls(tmp: Path) -> str | None:
    shown = json_text({"id": "a\x9b\u202e\u2028b"})
    return None if not any(c in shown for c in "\x9b\u202e\u2028") else "printed raw"


@case("CSV: guards behind a space, NBSP, BOM, zero-width space and U+FF1D")
def _csv(tmp: Path) -> str | None:
    missed = [c for c in (" =1", "\u00a0=1", "\ufeff=1", "\u200b=1", "\uff1d1") if not formula_risky(c)]
    return f"unguarded: {missed!r}" if missed else None


@case('strict values: success 1 or "yes" is not true')
def _lax(tmp: Path) -> str | None:
    for value in ("1", '"yes"'):
        text = PINNED.read_text().replace('"success": true', f'"success": {value}', 1)
        try:
            load_any_bytes(text.encode(), "lax.json")
        except RerunLensError:
            continue
        return f"success {value} accepted"
    return None


@case("resume: the journal's executor, base URL and key variable are never taken from it")
def _resume(tmp: Path) -> str | None:
    out = tmp / "r.altk_runs.json"
    _journal(out, executor="rerunlens_evil_module:run")
    if (hole := _one_line_error(["run", "--out", str(out), "--resume", "--quiet"], "--executor")) is not None:
        return hole
    with HostileEndpoint(_ok) as ep:
        _journal(out, profile={"base_url": ep.base_url, "key_env": "OPENAI_API_KEY", "rounds": 1})
        with _env(OPENAI_API_KEY=FAKE_KEY):
            _quiet(["run", "--out", str(out), "--resume", "--quiet"])
        return f"{len(ep.received)} requests went to the journal's host" if ep.received else None


import adversarial_cli_cases  # noqa: E402,F401,I001 - registers the fourth pass's CLI cases with `case`
import adversarial_semantic_cases  # noqa: E402, F401 - registers the semantic key's cases
import adversarial_proxy_cases  # noqa: E402, F401 - registers the proxy's cases with `case`


def run_case(name: str, folder: Path) -> str | None:
    """One case in a fresh folder and config folder; an unexpected exception is a hole too."""
    with _env(XDG_CONFIG_HOME=str(folder / "config"), OPENAI_BASE_URL=None, OPENAI_API_KEY=None):
        try:
            return CASES[name](folder)
        except Exception as exc:  # noqa: BLE001 - a crash is what the pass reports
            return f"crashed: {type(exc).__name__}: {str(exc)[:200]}"


@pytest.mark.parametrize("name", list(CASES))
def test_the_case_is_handled(name: str, tmp_path: Path) -> None:
    assert run_case(name, tmp_path) is None


if __name__ == "__main__":
    os.chdir(HERE.parents[1])
    holes: dict[str, str] = {}
    for name in CASES:
        with tempfile.TemporaryDirectory() as folder:
            if (hole := run_case(name, Path(folder))) is not None:
                holes[name] = hole
    print(f"handled {len(CASES) - len(holes)} of {len(CASES)}")
    for name, hole in holes.items():
        print(f"  open: {name}: {hole}")
    sys.exit(1 if holes else 0)
