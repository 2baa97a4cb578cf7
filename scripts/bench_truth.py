"""Route or model against known causes: confusion matrices of the log attribution and the re-run verdict.

    python scripts/bench_truth.py [--seeds 1 2 3] [--rounds 3 5 10] [--tasks 30]

Each parent log holds `--tasks` tasks of every cause below, with what the runner's recording transport
writes for it: the route each result was sent with, its attempts (retry numbers, a 429, a timeout or
a server error before a retry, a 3xx with its target), the served model and system fingerprint. The
cause is known per task because the log is generated from it (not from a model of the provider):

- key: two keys in rotation (round-robin over calls: alternating over a task's rounds); one answer
  per key.
- base URL: two base URLs in rotation; one answer per URL.
- backend: system fingerprint, one of two at random; one answer per fingerprint.
- redirect other origin: half the calls redirected to another origin; one answer per effective URL.
- redirect same origin: half the calls redirected to another path of the same origin; likewise.
- retry 429: 40 % of calls retried after a 429 (the retried request carries less context); another
  answer when retried.
- retry timeout: as above, after a timeout.
- route + noise: two keys in rotation; the key's answer with probability 0.8, else one of two others.
- model noise: keys in rotation, 20 % of calls retried after a 429 or a 5xx; answers 0.6 / 0.3 / 0.1
  over three, whatever the route.

The re-run is what `rerunlens rerun --only inconsistent` runs (`default_rerun`): each of the parent's
inconsistent tasks its own planned rounds on one key and one base URL, a task no rounds can decide
left out (it counts as `not run`, a miss); with `--with-parent-route`, a task with a proposal also
runs its proposed rounds on the parent's own key rotation beside its pinned ones.
`--rerun-retries recorded` (the CLI's default: the SDK still retries, and each attempt is recorded)
or `off` (`--max-retries 0`: a call that would have been retried errors and has no answer). What the
route cannot pin stays as it was: backends, redirects and the provider's 429s and timeouts are the
provider's, so they keep happening.
Its verdicts go through `compare_before_after` (Benjamini-Hochberg over the re-run's tasks).

Printed: per number of parent rounds, the confusion matrix (cause x verdict, counts over seeds) of
the log attribution and of the re-run, and the targets: each route cause `route` or `both` in >= 90 %
of its inconsistent tasks at 10 rounds and >= 80 % at 5 (re-run); `route` or `both` on model noise
<= 2 % (re-run) and <= 5 % (log, every number of rounds); route + noise `route` or `both` >= 70 % at 10.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analyzer.analysis import analyze  # noqa: E402
from analyzer.log.model import RunLog  # noqa: E402
from analyzer.verdicts.before_after import compare_before_after  # noqa: E402
from analyzer.verdicts.default_rerun import default_rerun  # noqa: E402

CAUSES = (
    "key",
    "base URL",
    "backend",
    "redirect other origin",
    "redirect same origin",
    "retry 429",
    "retry timeout",
    "route + noise",
    "model noise",
)
ROUTE_CAUSES = CAUSES[:7]
LOG_VERDICTS = ("route", "both", "model", "inconclusive", "unmeasured")
RERUN_VERDICTS = ("route", "both", "model", "inconclusive", "regressed", "stable", "unmeasured", "not run")
KEYS = ("sha256:aaaaaaaaaaaa", "sha256:bbbbbbbbbbbb")
URLS = ("https://llm.example/v1", "https://llm-eu.example/v1")
OTHER_ORIGIN = "https://elsewhere.example/v1/chat/completions"
SAME_ORIGIN = "https://llm.example/v2/chat/completions"
FINGERPRINTS = ("fp_one", "fp_two")


class Call:
    """One call's route as the transport would record it, and which answer it leads to."""

    def __init__(self, rng: random.Random, cause: str, pinned: bool, turn: int) -> None:
        self.key = KEYS[0] if pinned else KEYS[turn % 2]
        self.url = URLS[0]
        self.fingerprint = FINGERPRINTS[0]
        self.retry: str | None = None
        self.redirect: str | None = None
        self.level = 0
        if cause == "key":
            self.level = KEYS.index(self.key)
        elif cause == "base URL":
            self.url = URLS[0] if pinned else URLS[turn % 2]
            self.level = URLS.index(self.url)
        elif cause == "backend":
            self.level = rng.randrange(2)
            self.fingerprint = FINGERPRINTS[self.level]
        elif cause in ("redirect other origin", "redirect same origin"):
            self.level = rng.randrange(2)
            if self.level:
                self.redirect = OTHER_ORIGIN if cause == "redirect other origin" else SAME_ORIGIN
        elif cause in ("retry 429", "retry timeout"):
            if rng.random() < 0.4:
                self.retry = "rate_limited" if cause == "retry 429" else "timeout"
                self.level = 1
        elif cause == "route + noise":
            self.level = KEYS.index(self.key)
        elif cause == "model noise" and rng.random() < 0.2:
            self.retry = rng.choice(("rate_limited", "server_error"))


def _answer(rng: np.random.Generator, cause: str, call: Call) -> str:
    """The answer, drawn from a stream of its own (PCG64): a route draw never sits next to it."""
    if cause == "route + noise":
        return f"level{call.level}" if rng.random() < 0.8 else ("n1", "n2")[int(rng.integers(2))]
    if cause == "model noise":
        return ("a", "b", "c")[int(rng.choice(3, p=(0.6, 0.3, 0.1)))]
    return f"level{call.level}"


def _attempts(call: Call) -> list[dict[str, Any]]:
    ok = {"outcome": "ok", "status_code": 200, "key_fingerprint": call.key, "base_url": call.url}
    if call.redirect:
        hop = {**ok, "outcome": "redirect", "status_code": 307, "redirect_to": call.redirect}
        elsewhere = call.redirect.startswith("https://elsewhere")
        there = {"base_url": "https://elsewhere.example", "key_fingerprint": None} if elsewhere else {}
        return [{**hop, "attempt": 0, "retry": 0}, {**ok, **there, "attempt": 1, "retry": 0}]
    if call.retry:
        status = {"rate_limited": 429, "server_error": 500, "timeout": None}[call.retry]
        failed = {**ok, "outcome": call.retry, "status_code": status}
        return [{**failed, "attempt": 0, "retry": 0}, {**ok, "attempt": 1, "retry": 1}]
    return [{**ok, "attempt": 0, "retry": 0}]


def _result(
    rng: random.Random, answers: np.random.Generator, task: str, cause: str, pinned: str, turn: int
) -> dict[str, Any]:
    call = Call(rng, cause, bool(pinned), turn)
    route = {"base_url": call.url, "key_fingerprint": call.key, "model": "m", "temperature": 0.7}
    route["max_retries"] = 0 if pinned == "off" else 2
    row: dict[str, Any] = {"task_id": task, "route": route, "total_tokens": 100}
    if pinned == "off" and call.retry:  # retries off: the call fails where the parent's was retried
        first = _attempts(call)[0]
        row |= {
            "status": "error",
            "error": {"type": "RateLimitError", "message": call.retry},
            "attempts": [first],
        }
        return row
    row |= {"answer": _answer(answers, cause, call), "attempts": _attempts(call)}
    row |= {"served_model": "m-1", "system_fingerprint": call.fingerprint}
    return row


def make_log(
    seed: int, rounds: int, tasks: int, pinned: str = "", only: dict[str, int] | set[str] | None = None
) -> RunLog:
    """A log of `tasks` tasks per cause (or only the task ids in `only`, each for its own rounds when
    `only` maps them to rounds); `pinned`: "" for a parent's route, else the re-run's retries
    (`recorded` or `off`)."""
    rng, answers = random.Random(seed), np.random.default_rng(seed)
    ids = [(f"{c}#{i}", c) for c in CAUSES for i in range(tasks)]
    ids = [(t, c) for t, c in ids if only is None or t in only]
    offset = {t: rng.randrange(2) for t, _ in ids}  # where each task's calls fall in the rotation
    own = only if isinstance(only, dict) else {}
    runs = [
        [_result(rng, answers, t, c, pinned, r + offset[t]) for t, c in ids if r < own.get(t, rounds)]
        for r in range(rounds)
    ]
    return RunLog.model_validate(
        {"format": "altk-runs/2", "run_id": f"truth-{seed}-{rounds}-{pinned}", "runs": runs}
    )


def one(
    seed: int, rounds: int, tasks: int, retries: str, with_parent_route: bool = False
) -> tuple[Counter[tuple[str, str]], Counter[tuple[str, str]], int, int]:
    """Log and re-run confusion counts (cause, verdict) over the parent's inconsistent tasks, the most
    pinned rounds any task runs and the requests the re-run sends (the parent's own route's included)."""
    parent = make_log(seed, rounds, tasks)
    analysis = analyze(parent)
    log_counts: Counter[tuple[str, str]] = Counter(
        (a.task_id.split("#")[0], a.cause) for a in analysis.headline.attribution
    )
    ids = [a.task_id for a in analysis.headline.attribution]
    planned = default_rerun(analysis, ids, with_parent_route=with_parent_route, leave_out=True)
    runs, more = planned.rounds(), planned.parent_route_rounds()
    rerun_counts: Counter[tuple[str, str]] = Counter(
        (t.split("#")[0], "not run") for t in ids if t not in runs
    )
    if not runs:
        return log_counts, rerun_counts, 0, 0
    rerun = make_log(seed + 10_000, max(runs.values()), tasks, pinned=retries, only=runs)
    beside = make_log(seed + 20_000, max(more.values()), tasks, only=more) if more else None
    frame = compare_before_after(parent, rerun, list(runs), parent_analysis=analysis, beside=beside)
    rerun_counts += Counter(
        (str(t).split("#")[0], str(v)) for t, v in zip(frame["task_id"], frame["verdict"], strict=True)
    )
    return log_counts, rerun_counts, max(runs.values()), planned.requests


def _matrix(title: str, counts: Counter[tuple[str, str]], verdicts: tuple[str, ...]) -> list[str]:
    width = max(len(c) for c in CAUSES)
    out = [title, f"  {'cause':<{width}} " + " ".join(f"{v:>12}" for v in verdicts) + "   route/both"]
    for cause in CAUSES:
        row = [counts[(cause, v)] for v in verdicts]
        total = sum(row)
        hit = counts[(cause, "route")] + counts[(cause, "both")]
        share = f"{hit / total:6.1%} of {total}" if total else "     -"
        out.append(f"  {cause:<{width}} " + " ".join(f"{x:>12}" for x in row) + f"   {share}")
    return out


def _share(counts: Counter[tuple[str, str]], causes: tuple[str, ...]) -> tuple[float, int]:
    total = sum(n for (c, _), n in counts.items() if c in causes)
    hit = sum(n for (c, v), n in counts.items() if c in causes and v in ("route", "both"))
    return (hit / total if total else float("nan")), total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--rounds", type=int, nargs="+", default=[3, 5, 10])
    ap.add_argument("--tasks", type=int, default=30)
    ap.add_argument("--rerun-retries", choices=("recorded", "off"), default="recorded")
    ap.add_argument("--with-parent-route", action="store_true", help="run the planner's proposals too")
    args = ap.parse_args()
    for rounds in args.rounds:
        log_total: Counter[tuple[str, str]] = Counter()
        rerun_total: Counter[tuple[str, str]] = Counter()
        ks, sent = [], []
        for seed in args.seeds:
            log_counts, rerun_counts, k, requests = one(
                seed * 1000 + rounds, rounds, args.tasks, args.rerun_retries, args.with_parent_route
            )
            log_total += log_counts
            rerun_total += rerun_counts
            ks.append(k)
            sent.append(requests)
        print(
            f"\n=== {rounds}-round parents, seeds {args.seeds}, {args.tasks} tasks per cause; re-run "
            f"(retries {args.rerun_retries}{', with the parent route' if args.with_parent_route else ''}) "
            f"most pinned rounds: {ks}; requests sent: {sent}"
        )
        print("\n".join(_matrix("Log attribution (parent's inconsistent tasks):", log_total, LOG_VERDICTS)))
        print("\n".join(_matrix("Re-run verdict:", rerun_total, RERUN_VERDICTS)))
        worst = min(_share(rerun_total, (c,))[0] for c in ROUTE_CAUSES)
        print(
            f"Targets: worst route cause route/both (re-run) {worst:.1%}; "
            f"model noise route/both: re-run {_share(rerun_total, ('model noise',))[0]:.1%}, "
            f"log {_share(log_total, ('model noise',))[0]:.1%}; "
            f"route + noise route/both (re-run) {_share(rerun_total, ('route + noise',))[0]:.1%}"
        )


if __name__ == "__main__":
    main()
