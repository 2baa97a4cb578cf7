"""The history in words and as JSON: the finding sentence, the runs, the labels, the changes, the trends.

The CLI, the JSON and the dashboard's History view all take their phrases from here.
"""

from __future__ import annotations

import json
from typing import Any

import analyzer.numbers as numbers
from analyzer.history.labels import ALPHA, TaskLabel
from analyzer.history.schema import INTERVAL_FIGURES
from analyzer.history.timeline import FIGURES, Change, History, run_name
from analyzer.history.trend import MIN_TREND_RUNS, Trend

FIGURE_NAMES = {
    "answer_gap_pp": "answer gap (pp)",
    "outcome_gap_pp": "outcome gap (pp)",
    "mean_score": "mean score",
    "pass_hat_k": "pass^k",
    "tokens_per_task": "tokens per task",
}
RULE = (
    "per task: exact permutation test of the best single change point (max two-proportion z over "
    "every split) and a permutation chi-square of the runs; Benjamini-Hochberg across tasks, "
    f"q <= {ALPHA:g} each; see docs/metrics.md, History"
)


def route_phrase(change: Change) -> str:
    """The route at a change point as a clause (when the base URL changed from A to B), or that it did not."""
    if not change.route_changes:
        return "with no change of route recorded at that run"
    parts = [f"the {name} changed from {old} to {new}" for name, old, new in change.route_changes]
    return "when " + ", ".join(parts)


def change_phrase(change: Change) -> str:
    moved = []
    if change.regressed:
        moved.append(f"{numbers.counted(len(change.regressed), 'task')} regressed")
    if change.fixed:
        moved.append(
            f"{numbers.counted(len(change.fixed), 'task')} fixed"
            if not moved
            else f"{len(change.fixed)} fixed"
        )
    return f"{' and '.join(moved)} at {change.run_id}, {route_phrase(change)}"


def finding(history: History) -> str:
    """The history in one sentence: its largest change (the newest of equals), or that none was found."""
    runs = numbers.counted(len(history.runs), "run")
    if not history.changes:
        flaky = sum(t.label == "flaky" for t in history.labels)
        tail = f"; {numbers.counted(flaky, 'task')} flaky" if flaky else ""
        return f"No task regressed or was fixed over {runs}{tail}."
    largest = max(history.changes, key=lambda c: (len(c.regressed) + len(c.fixed), c.position))
    others = len(history.changes) - 1
    tail = f" ({numbers.counted(others, 'other change point')} below)" if others else ""
    sentence = change_phrase(largest)
    return sentence[0].upper() + sentence[1:] + tail + "."


def label_phrase(history: History, task_id: str) -> str:
    label = next(t for t in history.labels if t.task_id == task_id)
    if label.changed_at is None:
        return label.label
    return f"{label.label} since {run_name(history.runs[label.changed_at])}"


def _evidence(label: TaskLabel) -> str:
    """The q-value that decided the label: the change test's, or the runs' disagreement for `flaky`."""
    if label.label == "flaky" and label.q_change > ALPHA:
        return f"runs disagree, {numbers.p_value(label.q_flaky, 'q')}"
    return f"change, {numbers.p_value(label.q_change, 'q')}"


def trend_phrase(t: Trend) -> str:
    """`slope per run 0.512 (95 % CI 0.100–0.900)`, or why there is none."""
    if t.runs == 0:
        return "not recorded by these logs"
    if t.slope is None:
        return f"too few runs for a trend ({MIN_TREND_RUNS} needed)"
    return f"slope per run {numbers.num_ci(t.slope, t.interval, 3)}"


def history_json(history: History, others: list[dict[str, Any]]) -> dict[str, Any]:
    """What `rerunlens history --json` prints."""
    return {
        "task_set": history.task_set_key,
        "finding": finding(history),
        "runs": [_run_json(r) for r in history.runs],
        "tasks": [
            {
                "task_id": t.task_id,
                "label": t.label,
                "changed_at": run_name(history.runs[t.changed_at]) if t.changed_at is not None else None,
                "measure": t.measure,
                "p_change": t.p_change,
                "q_change": t.q_change,
                "q_flaky": t.q_flaky,
            }
            for t in history.labels
        ],
        "changes": [
            {
                "run_id": c.run_id,
                "tasks": c.regressed + c.fixed,
                "regressed": c.regressed,
                "fixed": c.fixed,
                "route_changed": bool(c.route_changes),
                "route_changes": [{"field": f, "before": b, "after": a} for f, b, a in c.route_changes],
            }
            for c in history.changes
        ],
        "trends": {
            f: {
                "runs": t.runs,
                "slope_per_run": t.slope,
                "ci": t.interval,
            }
            for f, t in history.trends.items()
        },
        "gate": history.gate,
        "rule": RULE,
        "other_task_sets": others,
    }


def _run_json(row: dict[str, Any]) -> dict[str, Any]:
    created = row["created_at"]
    return {
        "run_id": run_name(row),
        "label": row["label"],
        "path": row["path"],
        "created_at": created.isoformat() + "Z" if created is not None else None,
        **{f: row[f] for f in FIGURES},
        **{
            f"{f}_ci": [row[f"{f}_low"], row[f"{f}_high"]] if row[f"{f}_low"] is not None else None
            for f in INTERVAL_FIGURES
        },
        "cost_per_task": None,
        "errors": row["errors"],
        "route": {
            "key_fingerprint": row["key_fingerprint"],
            "base_url": row["base_url"],
            "model": row["model"],
            "served_model": row["served_model"],
            "system_fingerprint": row["system_fingerprint"],
            "parameters": json.loads(row["parameters"] or "{}"),
        },
    }


def history_lines(history: History, others: list[dict[str, Any]]) -> list[str]:
    """The terminal rendering: finding, runs table, changes, labels that are not stable, trends."""
    lines = [finding(history), "", f"task set {history.task_set_key}, runs oldest first:"]
    lines.append(
        "  run                       created              gap pp  outcome gap  pass^k  tokens/task  route"
    )
    for row in history.runs:
        created = row["created_at"].strftime("%Y-%m-%d %H:%M") if row["created_at"] else numbers.NONE
        route = f"{row['base_url'] or numbers.NONE} {row['served_model'] or row['model'] or ''}".strip()
        lines.append(
            f"  {run_name(row)[:25]:<25} {created:<20} {numbers.num(row['answer_gap_pp']):>6}"
            f"  {numbers.num(row['outcome_gap_pp']):>11}  {numbers.num(row['pass_hat_k'], 2):>6}"
            f"  {numbers.num(row['tokens_per_task'], 0):>11}  {route}"
        )
    lines.append("  cost per task: not recorded (no log records a price)")
    if history.changes:
        lines += ["", "change points:"] + [f"  {change_phrase(c)}" for c in history.changes]
    moved = [t for t in history.labels if t.label != "stable"]
    lines += ["", f"tasks: {len(history.labels) - len(moved)} stable of {len(history.labels)}"]
    lines += [f"  {t.task_id}: {label_phrase(history, t.task_id)} ({_evidence(t)})" for t in moved]
    lines += ["", "trends (Theil-Sen slope per run, 95 % CI):"]
    lines += [f"  {FIGURE_NAMES[f]}: {trend_phrase(t)}" for f, t in history.trends.items()]
    lines += ["", f"rule: {RULE}"]
    if others:
        lines += ["", "other task sets in these logs (show one with --key):"]
        lines += [f"  {o['task_set']}: {numbers.counted(o['runs'], 'run')}" for o in others]
    return lines
