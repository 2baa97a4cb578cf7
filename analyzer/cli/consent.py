"""Asking the user on the terminal before doing what a file chose (sending a key to its host,
running the code it names): one question on stderr, a y/N answer on stdin."""

from __future__ import annotations

import sys
from collections.abc import Callable

from analyzer.safety.terminal_text import visible


def terminal_question(prompt: str) -> Callable[[str], bool] | None:
    """A function that shows a question and asks `prompt` [y/N]; None when stdin or stderr is not a
    terminal (nobody to ask: the caller refuses). End of input is a no."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(question: str) -> bool:
        print(f"{visible(question)}.", file=sys.stderr)
        try:
            answer = input(f"{prompt} [y/N] ")
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")

    return ask
