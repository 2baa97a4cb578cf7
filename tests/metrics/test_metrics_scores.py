"""Mean reward or score per task and overall, with an interval that keeps its coverage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from analyzer.analysis import analyze
from analyzer.importers import load_any, load_any_bytes
from analyzer.log.model import RunLog
from analyzer.metrics.scores import score_figures, task_scores

INSPECT = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai"


def _log(*rounds: list[dict[str, Any]]) -> RunLog:
    return RunLog.model_validate({"runs": list(rounds)})


def _r(task_id: str, score: float | None, **extra: Any) -> dict[str, Any]:
    return {"task_id": task_id, "answer": "x", "score": score, **extra}


def test_mean_score_per_task_then_over_tasks() -> None:
    # a: 0.5, 1.0 -> 0.75; b: 0.2, (error) -> 0.2; c: no score -> not scored
    log = _log(
        [_r("a", 0.5), _r("b", 0.2), _r("c", None)],
        [_r("a", 1.0), _r("b", None, status="error", error={"type": "t", "message": "m"}), _r("c", None)],
    )
    a = analyze(log)
    by_task = a.tasks.set_index("task_id")
    assert by_task.loc["a", "score_mean"] == 0.75 and by_task.loc["b", "score_mean"] == 0.2
    assert pd.isna(by_task.loc["c", "score_mean"]) and by_task["scored"].tolist() == [2, 1, 0]
    s = a.headline.score
    assert s is not None and s.name == "score"
    assert s.mean == pytest.approx((0.75 + 0.2) / 2) and s.tasks == 2 and s.results == 3
    assert s.fractional == 2 and s.scale == [0.0, 1.0] and not s.scale_seen  # 0.5 and 0.2


@pytest.mark.parametrize("version", ["0.3.100", "0.3.285"])
def test_inspect_f1_scores_equal_inspects_own_mean(version: str) -> None:
    path = INSPECT / f"scores_{version}.json"
    own = json.loads(path.read_text(encoding="utf-8"))
    a = analyze(load_any(path).log)
    reduced = {s["sample_id"]: s["value"] for s in own["reductions"][0]["samples"]}
    assert reduced == pytest.approx({"city": 0.835, "fruit": 0.4})
    assert dict(zip(a.tasks["task_id"], a.tasks["score_mean"], strict=True)) == pytest.approx(reduced)
    s = a.headline.score
    assert s is not None and s.mean == pytest.approx(own["results"]["scores"][0]["metrics"]["mean"]["value"])
    # two tasks, mean 0.6175: Wilson of the mean (z = 1.96) is 0.5402 -+ 0.4016 -> [0.1386, 0.9418],
    # wider than the bootstrap over two tasks ([0.4, 0.835])
    assert s.mean_ci == pytest.approx([0.1386, 0.9418], abs=5e-4)


def test_tau_bench_fractional_rewards_are_the_average_reward() -> None:
    rows = [
        {"task_id": 0, "trial": 0, "reward": 0.5, "info": {}, "traj": []},
        {"task_id": 0, "trial": 1, "reward": 1.0, "info": {}, "traj": []},
        {"task_id": 1, "trial": 0, "reward": 0.25, "info": {}, "traj": []},
        {"task_id": 1, "trial": 1, "reward": 0.0, "info": {}, "traj": []},
    ]
    a = analyze(load_any_bytes(json.dumps(rows).encode(), "results.json").log)
    s = a.headline.score
    # tau-bench's average reward: (0.5 + 1 + 0.25 + 0) / 4 = 0.4375 (equal trials: mean of task means)
    assert s is not None and s.name == "reward" and s.mean == pytest.approx(0.4375)
    assert s.fractional == 2
    # success only at reward 1 (tau-bench's is_successful): Pass^2 = 0 (no task passes both trials)
    assert a.headline.outcome is not None and a.headline.outcome.mean_at_n == 0.25
    assert a.headline.outcome.pass_hat_k[2] == 0.0


def test_scores_outside_zero_to_one_use_the_range_seen() -> None:
    log = _log([_r("a", 2.0), _r("b", 10.0)], [_r("a", 4.0), _r("b", 10.0)])
    s = analyze(log).headline.score
    assert s is not None and s.scale == [2.0, 10.0] and s.scale_seen and s.mean == 6.5
    assert 2.0 <= s.mean_ci[0] < 6.5 < s.mean_ci[1] <= 10.0


def test_no_score_no_figure() -> None:
    assert analyze(_log([_r("a", None)], [_r("a", None)])).headline.score is None


# Per-task mean scores from populations with a known mean: symmetric, skewed, mostly 0 with rare
# partial credit (a bootstrap alone gives [0, 0] on most draws of these), mostly 1.
POPULATIONS = {
    "u-shaped": (lambda rng, n: rng.beta(0.5, 0.5, n), 0.5),
    "skewed": (lambda rng, n: rng.beta(0.2, 3.0, n), 0.2 / 3.2),
    "rare partial": (lambda rng, n: rng.choice([0.0, 0.5], n, p=[0.95, 0.05]), 0.025),
    "mostly full": (lambda rng, n: rng.choice([1.0, 0.8], n, p=[0.9, 0.1]), 0.98),
}


@pytest.mark.parametrize("population", list(POPULATIONS))
@pytest.mark.parametrize("n_tasks", [3, 10, 30])
def test_interval_keeps_its_coverage(population: str, n_tasks: int) -> None:
    draw, truth = POPULATIONS[population]
    rng = np.random.default_rng(7)
    reps, hits = 200, 0
    for _ in range(reps):
        values = draw(rng, n_tasks)
        results = pd.DataFrame(
            {
                "task_id": pd.array([str(i) for i in range(n_tasks)], dtype="string"),
                "status": "ok",
                "score": values,
            }
        )
        low, high = score_figures(results, task_scores(results)).mean_ci  # type: ignore[union-attr]
        hits += low - 1e-9 <= truth <= high + 1e-9
    # 95 % stated; 200 draws of an interval with exactly 95 % would fall below 0.92 with p < 0.03
    assert hits / reps >= 0.92
