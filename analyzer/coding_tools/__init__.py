"""Point Claude Code, Codex and CC Switch at a benchmark's pinned route, and diagnose their settings.

- `export_route`: one route as each tool's settings (the key never, a placeholder or a variable name).
- `write_export`: merge those settings into a file, keeping the user's others, never overwriting
  without force.
- `run_doctor`: the classic mistakes in the tools' settings files and the environment, keys shown
  only as fingerprints.
- `profile_from_log`: the route a run log was pinned to, as a profile to export.
"""

from __future__ import annotations

from analyzer.coding_tools.doctor import DoctorInputs, DoctorReport, run_doctor
from analyzer.coding_tools.doctor_checks import DoctorFinding
from analyzer.coding_tools.export import DEFAULT_PATHS, KEY_PLACEHOLDER, ToolExport, export_route
from analyzer.coding_tools.from_log import benchmark_fingerprints, profile_from_log
from analyzer.coding_tools.merge import WriteResult, write_export
from analyzer.coding_tools.protocol import TOOL_NAMES, TOOLS, RootChoice, Tool, tool_root

__all__ = [
    "DEFAULT_PATHS",
    "DoctorFinding",
    "DoctorInputs",
    "DoctorReport",
    "KEY_PLACEHOLDER",
    "TOOLS",
    "TOOL_NAMES",
    "RootChoice",
    "Tool",
    "ToolExport",
    "WriteResult",
    "benchmark_fingerprints",
    "export_route",
    "profile_from_log",
    "run_doctor",
    "tool_root",
    "write_export",
]
