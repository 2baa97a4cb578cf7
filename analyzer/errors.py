"""The one exception family RerunLens raises for bad input; its message is one line naming where."""

from __future__ import annotations


class RerunLensError(Exception):
    """Bad input or a failed operation, described in one line that names where the problem is."""

    def __init__(self, message: str) -> None:
        one_line = " ".join(str(message).split())
        super().__init__(one_line)
        self.message = one_line


class LogError(RerunLensError):
    """A run log that cannot be read: not JSON, wrong shape, bad numbers, too large."""


class TaskFileError(RerunLensError):
    """A task file that cannot be read."""


class RouteError(RerunLensError):
    """A route profile that cannot be used."""


class RerunLensWarning(UserWarning):
    """Something set aside and done without (an unsafe file ignored): one line, the run goes on.
    The CLI prints it as `rerunlens: warning: ...`."""


class PriceFileError(RerunLensError):
    """A price table (`--prices FILE`) that cannot be used."""
