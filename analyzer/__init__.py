"""RerunLens analyzer: read run logs, measure consistency, re-run unstable tasks.

UI-free: it never imports streamlit. The public names below are loaded on first use, so a command
that only reads a schema does not pay for pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "RunLog": "analyzer.model",
    "Result": "analyzer.model",
    "Attempt": "analyzer.model",
    "Route": "analyzer.model",
    "TaskSpec": "analyzer.model",
    "RerunLensError": "analyzer.errors",
    "LogError": "analyzer.errors",
    "LoadedLog": "analyzer.loader",
    "load_path": "analyzer.loader",
    "load_bytes": "analyzer.loader",
    "list_logs": "analyzer.loader",
    "save_log": "analyzer.loader",
    "load_tasks": "analyzer.taskfile",
    "Analysis": "analyzer.analysis",
    "analyze": "analyzer.analysis",
    "Comparison": "analyzer.compare",
    "compare": "analyzer.compare",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'analyzer' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
