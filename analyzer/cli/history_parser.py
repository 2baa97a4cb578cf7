"""`rerunlens history` and `rerunlens monitor`: their arguments, help and examples."""

from __future__ import annotations

import argparse

HISTORY_COMMANDS = "analyzer.cli.history_commands"


def _db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="URL",
        help="the history database: sqlite:///FILE or postgresql://USER@HOST/DB (default: "
        "$RERUNLENS_DB_URL, else rerunlens-history.sqlite3 in the runs folder; a password is never shown)",
    )


def add_no_history_option(p: argparse._ActionsContainer) -> None:
    """`--no-history`, for the commands that write a log."""
    p.add_argument(
        "--no-history",
        action="store_true",
        help="do not index the log written into the history (also RERUNLENS_HISTORY=0). By default a log "
        "written inside the runs folder, or under a folder holding a history, is indexed at once into that "
        "history ($RERUNLENS_DB_URL if set); a log written anywhere else is not indexed",
    )


def add_history(sub: argparse._SubParsersAction, add_command: object) -> None:
    p = add_command(  # type: ignore[operator]
        sub,
        "history",
        "One task set across many runs: the runs in time order with their figures and route, each task "
        "stable, regressed, fixed or flaky (tested, with the change point and what changed in the route), "
        "each figure's trend. Logs are indexed into a database; only new or changed logs are read.",
        [
            "rerunlens history runs/",
            "rerunlens history runs/ --json --fail-on-regression",
            "rerunlens history runs/ --db postgresql://rerunlens@db.example/history",
        ],
        f"{HISTORY_COMMANDS}:history",
    )
    p.add_argument(
        "sources", nargs="*", metavar="DIR | LOG", help="folders and logs (default: the runs folder)"
    )
    p.add_argument("--key", dest="task_set", metavar="K", help="the task set to show (its taskset:... key)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when the newest run regressed: a task's change point falls on it, or its answer gap is "
        "above the 95 %% prediction band of the earlier runs",
    )
    p.add_argument("--rebuild", action="store_true", help="throw the database away and index every log again")
    _db_option(p)


def add_monitor(sub: argparse._SubParsersAction, add_command: object, add_route_flags: object) -> None:
    p = add_command(  # type: ignore[operator]
        sub,
        "monitor",
        "Probe the pinned route on a schedule: run the task file every interval, append each probe to the "
        "history and alert (stderr, exit code 1, optional webhook) when the drift test trips. Resumes "
        "where a killed monitor stopped.",
        [
            "rerunlens monitor --tasks sample_runs/tasks.json --every 30m --samples 3",
            "rerunlens monitor --tasks t.json --every 1h --against runs/reference.altk_runs.json "
            "--webhook https://hooks.example/rerunlens",
        ],
        f"{HISTORY_COMMANDS}:monitor",
    )
    p.add_argument("--tasks", required=True, metavar="FILE", help="the probe set: a task file")
    p.add_argument("--every", required=True, metavar="INTERVAL", help="time between probes: 90s, 30m, 6h, 1d")
    p.add_argument(
        "--samples", type=int, default=3, metavar="N", help="rounds per task in a probe (default 3)"
    )
    p.add_argument(
        "--against", metavar="REF_LOG", help="a reference log of the same tasks the history starts from"
    )
    p.add_argument(
        "--webhook", metavar="URL", help="POST each alert as JSON to this URL (only the one named here)"
    )
    p.add_argument("--max-probes", type=int, metavar="N", help="stop after N probes in all (default: never)")
    p.add_argument(
        "--usd-per-million-tokens",
        type=float,
        metavar="PRICE",
        help="price, for the cost per day printed first",
    )
    p.add_argument(
        "--state-dir", metavar="DIR", help="where probes and the monitor's state go (default: runs/monitor)"
    )
    _db_option(p)
    if add_route_flags is not None:
        add_route_flags(p, repeat=False)  # type: ignore[operator]
