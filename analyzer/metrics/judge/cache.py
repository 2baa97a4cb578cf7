"""Every judge verdict kept on disk by the SHA-256 of (model, prompt, representative, answer), so a
log analysed again asks nothing and gives the same clusters.

One small JSON file per verdict under `<cache folder>/judge/` (the folder created 0700), written
atomically; it holds the verdict and its one-line reason, never a key, a URL or the answers. A file
is read only when it is the user's own, no link, at most 4 KiB and a verdict this module wrote; an
unclear reply is not kept (it is asked again next time).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from analyzer.atomic import write_text_atomic
from analyzer.errors import RerunLensError
from analyzer.metrics.judge.cluster import Decide, Decision
from analyzer.metrics.semantic.embed import cache_folder
from analyzer.safety.bounded_read import read_file

__all__ = ["DecisionCache", "cached"]

_MAX_FILE = 4096
_MAX_REASON = 300


class DecisionCache:
    """Verdicts by hash in one folder; `hits` and `stored` count what a pass found and added."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or cache_folder().parent / "judge"
        self.hits = 0
        self.stored = 0

    def key(self, model: str, prompt: str, a: str, b: str) -> str:
        parts = [model, prompt, a, b]
        return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str) -> Decision | None:
        path = self.folder / f"{key}.json"
        try:
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
                return None
            data = json.loads(read_file(path, _MAX_FILE, "judge cache"))
        except (OSError, ValueError, RerunLensError):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("same"), bool):
            return None
        self.hits += 1
        return Decision(data["same"], str(data.get("reason", ""))[:_MAX_REASON])

    def put(self, key: str, decision: Decision) -> None:
        if decision.same is None:
            return
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            body = json.dumps({"same": decision.same, "reason": decision.reason[:_MAX_REASON]})
            write_text_atomic(self.folder / f"{key}.json", body, mode=0o600)
            self.stored += 1
        except OSError:
            pass  # a read-only cache folder: the verdict is asked again next time


def cached(model: str, decide: Decide, cache: DecisionCache) -> Decide:
    """`decide` answered from the cache first; new clear verdicts kept."""

    def ask(prompt: str, a: str, b: str) -> Decision:
        key = cache.key(model, prompt, a, b)
        found = cache.get(key)
        if found is not None:
            return found
        decision = decide(prompt, a, b)
        cache.put(key, decision)
        return decision

    return ask
