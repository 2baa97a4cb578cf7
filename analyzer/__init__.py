"""RerunLens analyzer: read run logs, measure consistency, re-run unstable tasks.

UI-free: it never imports streamlit. The public names below are loaded on first use, so a command
that only reads a schema does not pay for pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "RunLog": "analyzer.log.model",
    "Result": "analyzer.log.model",
    "Attempt": "analyzer.log.model",
    "Route": "analyzer.log.model",
    "TaskSpec": "analyzer.log.model",
    "RerunLensError": "analyzer.errors",
    "LogError": "analyzer.errors",
    "LoadedLog": "analyzer.log.loader",
    "load_any": "analyzer.importers",
    "load_path": "analyzer.log.loader",
    "load_bytes": "analyzer.log.loader",
    "list_logs": "analyzer.log.loader",
    "save_log": "analyzer.log.loader",
    "load_tasks": "analyzer.log.taskfile",
    "Analysis": "analyzer.analysis",
    "analyze": "analyzer.analysis",
    "Comparison": "analyzer.verdicts.compare",
    "compare": "analyzer.verdicts.compare",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'analyzer' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
