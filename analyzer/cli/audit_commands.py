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
        from analyzer.audit.live import live_audit_from_args

        reference, candidate = live_audit_from_args(args)
    else:
        if len(args.files) != 2:
            raise RerunLensError(
                "audit: give two logs (reference, then candidate), or --reference and --candidate URLs"
            )
        reference, candidate = (load_any(f).log for f in args.files)
    result = audit_logs(reference, candidate, args.alpha)
    if args.json:
        print(json.dumps(audit_figures(result), ensure_ascii=False, indent=2))
    else:
        print(audit_text(result))
    return 0
