"""Dispatch a parsed command to its handler and turn what it raises into an exit code.

Library errors (the RerunLensError family) become one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Callable, Sequence

from analyzer.cli.parser import ROUTE_COMMANDS, build_parser
from analyzer.errors import RerunLensError, RerunLensWarning
from analyzer.safety.terminal_text import visible

EXIT_OK = 0
EXIT_FINDING = 1
"""A check found something (`--fail-above`, every result errored, the preflight failed)."""
EXIT_BAD_INPUT = 2
"""The input or a setting is wrong; the message says where."""
EXIT_INTERRUPTED = 130

Handler = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `rerunlens` console script; returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = next((w for w in words if not w.startswith("-")), None)
    parser = build_parser(with_route_flags=command if command in ROUTE_COMMANDS else "")
    args = parser.parse_args(words)
    target: str | None = getattr(args, "handler", None)
    if target is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    warnings.showwarning = _show_warning
    try:
        return _handler(target)(args)
    except RerunLensError as exc:
        print(f"rerunlens: error: {visible(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # `rerunlens ... | head`
        return EXIT_OK
    except OSError as exc:  # a path the user named cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"rerunlens: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except RecursionError:  # a value nested deeper than any reader or metric handles
        print("rerunlens: error: the input is nested too deeply to be read", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("rerunlens: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _show_warning(message: Warning | str, category: type[Warning], *rest: object, **more: object) -> None:
    """A RerunLensWarning as one line on stderr (no file, line or source); others as Python shows them."""
    if issubclass(category, RerunLensWarning):
        print(f"rerunlens: warning: {visible(str(message))}", file=sys.stderr)
    else:
        _PYTHON_SHOW(message, category, *rest, **more)  # type: ignore[arg-type]


_PYTHON_SHOW = warnings.showwarning


def _handler(target: str) -> Handler:
    """Import the handler named `module:function` (so a command loads only what it uses)."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
