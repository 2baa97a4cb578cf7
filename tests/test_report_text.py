"""The terminal report shows every interval and the cause of each inconsistent task."""

from __future__ import annotations

from pathlib import Path

from analyzer.analysis import analyze
from analyzer.compare import compare
from analyzer.loader import load_path
from analyzer.report_text import render_comparison, render_report

SAMPLES = Path(__file__).resolve().parents[1] / "sample_runs"


def test_report_shows_intervals_and_attribution() -> None:
    analysis = analyze(load_path(SAMPLES / "A_baseline.altk_runs.json").log)
    text = render_report(analysis, "A")
    h = analysis.headline
    low, high = h.answer_gap_ci
    assert f"answer gap {h.answer_gap_pp:.1f} pp (95 % interval {low:.1f} to {high:.1f} pp)" in text
    assert h.outcome is not None
    low, high = h.outcome.outcome_gap_ci
    assert f"outcome gap {h.outcome.outcome_gap_pp:.1f} pp (95 % interval {low:.1f} to {high:.1f} pp)" in text
    low, high = h.outcome.pass_hat_k_ci
    assert f"pass^5 53.3% (95 % interval {100 * low:.1f}% to {100 * high:.1f}%)" in text
    causes = [a.cause for a in h.attribution]
    assert (
        f"Cause, from the log alone ({len(causes)} inconsistent task(s)): {causes.count('route')} route, "
        f"{causes.count('model')} model, {causes.count('unclear')} unclear"
    ) in text
    model = next(a for a in h.attribution if a.cause == "model")
    assert f"  {model.task_id}: model: answers differ within one route" in text


def test_comparison_says_each_difference_in_a_sentence() -> None:
    a = analyze(load_path(SAMPLES / "A_baseline.altk_runs.json").log)
    c = analyze(load_path(SAMPLES / "C_pinned.altk_runs.json").log)
    text = render_comparison(compare([("A", a), ("C", c)]))
    assert "Differences against the first group (paired over shared tasks)" in text
    assert "C's answer gap is 30.0 pp lower than A's over 30 shared tasks" in text
    assert "p = 0.012" in text
