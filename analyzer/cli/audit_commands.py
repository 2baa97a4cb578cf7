"""`rerunlens audit`: two logs of the same prompts, or a live audit of two routes, then the verdicts."""

from __future__ import annotations

import argparse
import json

from analyzer.audit import audit_figures, audit_logs, audit_text
from analyzer.errors import RerunLensError
from analyzer.importers import load_any


def audit(args: argparse.Namespace) -> int:
    live = any(getattr(args, k) for k in ("tasks", "reference", "candidate", "samples"))
    if live:
        raise RerunLensError(
            "audit: the live audit (--tasks, --samples, --reference, --candidate) is not built yet; "
            "run both routes with `rerunlens run` at temperature 1 and audit the two logs"
        )
    if len(args.files) != 2:
        raise RerunLensError("audit: give two logs: the reference route's, then the candidate's")
    reference, candidate = (load_any(f).log for f in args.files)
    result = audit_logs(reference, candidate, args.alpha)
    if args.json:
        print(json.dumps(audit_figures(result), ensure_ascii=False, indent=2))
    else:
        print(audit_text(result))
    return 0
