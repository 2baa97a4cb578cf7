"""The one builder of a command made from data, to show for copying or to run.

A value from a log or a page (a sample id, a model name, a task file, a folder) may start with `-`
and would then be read as an option: `--only a --yes` turns a sample id into a flag. So every option
is one word, `--flag=value` or `-Fvalue` (the parser takes the whole value, whatever it starts
with), positional data comes after `--`, a path that starts with `-` is written `./-x`, and the
line shown for a shell quotes every word.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["Options", "command_words", "data_path", "shell_line"]

Options = Iterable[tuple[str, object]]
"""(flag, value) pairs: None leaves the flag out, True gives the bare flag, a list or tuple repeats
the flag once per item, anything else is one `--flag=value` word (`-Fvalue` for a short flag)."""


def data_path(path: str | Path) -> str:
    """`./-x` for a relative path that starts with `-` (read as an option otherwise), else as it is."""
    text = str(path)
    return f"./{text}" if text.startswith("-") else text


def _option_words(flag: str, value: object) -> list[str]:
    if not flag.startswith("-") or "=" in flag or flag == "--":
        raise ValueError(f"not a flag: {flag!r}")
    if value is None or value is False:
        return []
    if value is True:
        return [flag]
    joint = flag if len(flag) == 2 else f"{flag}="  # a short flag takes its value attached: `-Tx=1`
    if isinstance(value, list | tuple):
        return [f"{joint}{item}" for item in value]
    return [f"{joint}{value}"]


def command_words(program: Sequence[str], options: Options = (), data: Sequence[str] = ()) -> list[str]:
    """`program`, each option as `--flag=value`, then `--` and the positional `data` (when any)."""
    words = list(program)
    for flag, value in options:
        words += _option_words(flag, value)
    return [*words, "--", *data] if data else words


def shell_line(words: Sequence[str]) -> str:
    """The words as one line for a POSIX shell: each quoted, so pasting it runs exactly these words."""
    return shlex.join(words)
