"""The other tools' log formats RerunLens reads: the one registration point.

Each entry names a format's key (its importer's `FORMAT`), how people call it, and the importer
module under `analyzer.importers` that recognises and reads it. `importers.FOREIGN_FORMATS` is built
from this list (in this order: the first format whose `looks_like` matches wins), and so is every list
of formats a person reads (the CLI's help, the error for an unknown file, the dashboard's upload
help). Importing this module costs nothing: the parser uses it before pandas is loaded.
"""

from __future__ import annotations

from typing import NamedTuple


class Format(NamedTuple):
    """One foreign format."""

    key: str
    """The importer's `FORMAT` (recorded in `imported_from.format`)."""
    label: str
    """How its users call it."""
    module: str | None
    """Its importer module under `analyzer.importers` with `looks_like` and `read`; None for a format
    that is not one file (AppWorld outputs: a folder or a zip, read by `importers.appworld`)."""


FORMATS: tuple[Format, ...] = (
    Format("inspect-ai", "Inspect AI", "inspect_log"),
    Format("tau2-bench", "tau2-bench", "tau2_bench"),
    Format("tau-bench", "tau-bench", "tau_bench"),
    Format("promptfoo", "promptfoo", "promptfoo"),
    Format("altk-evolve", "an ALTK-Evolve score card", "altk_evolve"),
    Format("rerunlens-proxy", "a RerunLens proxy journal", "proxy_journal"),
    Format("lm-eval", "lm-evaluation-harness (samples_*.jsonl, results_*.json or their folder)", "lm_eval"),
    Format("appworld", "AppWorld experiment outputs (a folder or zip of experiment folders)", None),
)


def format_list(last: str = "or") -> str:
    """Every format's label in one phrase: "Inspect AI, tau2-bench, ... or AppWorld ..."."""
    labels = [f.label for f in FORMATS]
    return ", ".join(labels[:-1]) + f" {last} " + labels[-1]
