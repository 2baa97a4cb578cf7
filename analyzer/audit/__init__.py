"""The route audit: is a route serving the model it names, at the tokens it should?

- `samples`: two logs of the same prompts as one pooled sample table (tasks are prompts, rounds samples).
- `kernels`: one kernel per kind of evidence (opening characters as in MET, wording, length, tokens,
  finish reason, served model, fingerprint).
- `permutation`: every kernel's MMD under the same within-prompt permutations.
- `identity`: the combined statistic, its exact p-value, per-prompt p-values (Benjamini-Hochberg).
- `power`: what a "no difference found" could have found (a temperature shift, simulated).
- `verdict`: `differ` / `no difference found` / `inconclusive`.
- `ledger`: reported against counted tokens per route; `tool_calls`: tool-call fidelity per route.
- `audit`: all three for two logs; `report`: the figures and sentences every rendering prints.
- `live`: a live audit of two routes through the runner; `live_folder`: its folder, so an
  interrupted audit continues.
"""

from analyzer.audit.audit import Audit, audit_logs
from analyzer.audit.report import (
    audit_figures,
    audit_html,
    audit_text,
    completions_side_by_side,
    token_rows,
    tool_call_rows,
)

__all__ = [
    "Audit",
    "audit_figures",
    "audit_html",
    "audit_logs",
    "audit_text",
    "completions_side_by_side",
    "token_rows",
    "tool_call_rows",
]
