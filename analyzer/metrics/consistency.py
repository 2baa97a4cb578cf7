"""Answer clusters and consistency: rate, gap, majority share and normalized entropy per task.

For task t with n_t results that did not error (docs/metrics.md):
consistent when n_t >= 2 and one cluster; rate = consistent / tasks with n_t >= 2;
gap (pp) = (1 - rate) x 100; majority share = largest cluster / n_t;
normalized entropy = -sum p log2 p / log2 n_t (0 when n_t = 1).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pandas as pd

from analyzer.metrics.grouping import per_task_count, sorted_distinct, task_codes


def task_order(results: pd.DataFrame) -> pd.Index:
    """Task ids in order of first appearance in the log.

    Args:
        results: Result frame with a `task_id` column.
    """
    return task_codes(results)[0]


def assign_clusters(results: pd.DataFrame) -> pd.DataFrame:
    """A copy of `results` with `cluster`: 0 is the task's largest cluster, `<NA>` for errors.

    Clusters of equal size are numbered by first appearance (earlier round first).

    Args:
        results: Result frame with `task_id` and `answer_key` (`<NA>` for errored results).
    """
    _, tasks = task_codes(results)
    key_codes, key_values = pd.factorize(results["answer_key"])
    keyed = key_codes >= 0
    width = len(key_values) + 1
    pair = tasks[keyed] * width + key_codes[keyed]
    pairs, first, inverse, size = np.unique(pair, return_index=True, return_inverse=True, return_counts=True)
    pair_task = pairs // width
    ranked = np.lexsort((first, -size, pair_task))  # by task, then largest, then earliest
    block_start = np.searchsorted(pair_task[ranked], pair_task[ranked], side="left")
    rank = np.empty(len(pairs), dtype="int64")
    rank[ranked] = np.arange(len(pairs)) - block_start
    cluster = np.full(len(results), -1, dtype="int64")
    cluster[keyed] = rank[inverse.reshape(-1)]
    out = results.copy()
    out["cluster"] = pd.array(np.where(cluster >= 0, cluster, 0), dtype="Int64")
    out.loc[cluster < 0, "cluster"] = pd.NA
    return out


def task_consistency(results: pd.DataFrame) -> pd.DataFrame:
    """One row per task (first-appearance order) with its consistency figures.

    Columns: task_id, n_results, n_ok, n_errors, n_no_answer (results that did not error but gave
    no answer), n_clusters, consistent (`<NA>` when fewer than 2 answers have a key),
    majority_share and entropy (`<NA>` when none has).

    Args:
        results: Result frame with `task_id`, `status` and `cluster` (from `assign_clusters`), and
            optionally `no_answer` (from `analyzer.metrics.answers.no_answer`).
    """
    order, tasks = task_codes(results)
    n_tasks = len(order)
    ok = (results["status"] == "ok").to_numpy(dtype=bool)
    clustered = results["cluster"].notna().to_numpy(dtype=bool)
    n_results = per_task_count(tasks, n_tasks)
    n_ok = per_task_count(tasks, n_tasks, ok)
    blank = results["no_answer"].to_numpy(dtype=bool) if "no_answer" in results else np.zeros(len(ok), bool)
    n_no_answer = per_task_count(tasks, n_tasks, ok & blank)

    cluster = results["cluster"].to_numpy(dtype="int64", na_value=-1)
    width = int(cluster.max()) + 1 if len(cluster) else 1
    pairs, size = np.unique(tasks[clustered] * width + cluster[clustered], return_counts=True)
    pair_task = pairs // width
    n_clusters = np.bincount(pair_task, minlength=n_tasks)
    largest = np.zeros(n_tasks, dtype="int64")
    np.maximum.at(largest, pair_task, size)
    # answers that have a key: the same as n_ok for text keys; fewer for `actions`, whose results
    # without a recorded trajectory have no key and so are not measured
    n = per_task_count(tasks, n_tasks, clustered).astype("float64")
    p = size / np.maximum(n[pair_task], 1.0)
    plogp = np.bincount(pair_task, weights=p * np.log2(p), minlength=n_tasks)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = np.where(n > 1, -plogp / np.log2(np.where(n > 1, n, 2.0)), 0.0)
        majority = np.where(n > 0, largest / n, np.nan)
    entropy = np.where(n == 0, np.nan, np.abs(entropy))  # abs turns -0.0 into 0.0

    consistent = pd.array(n_clusters == 1, dtype="boolean")
    consistent[n < 2] = pd.NA
    return pd.DataFrame(
        {
            "task_id": order,
            "n_results": n_results,
            "n_ok": n_ok,
            "n_errors": n_results - n_ok,
            "n_no_answer": n_no_answer,
            "n_clusters": n_clusters.astype("int64"),
            "consistent": consistent,
            "majority_share": pd.array(majority, dtype="Float64"),
            "entropy": pd.array(entropy, dtype="Float64"),
        }
    )


def consistency_rate(tasks: pd.DataFrame) -> float | None:
    """Consistent tasks / tasks with at least 2 answers; None when no task has 2.

    Args:
        tasks: Frame from `task_consistency` (needs `consistent`).
    """
    measured = tasks["consistent"].dropna()
    if measured.empty:
        return None
    return float(measured.sum()) / float(len(measured))


def answer_gap_pp(tasks: pd.DataFrame) -> float | None:
    """The answer consistency gap in percentage points, (1 - rate) x 100; None when no task has 2 answers.

    Computed as inconsistent / measured x 100 so that 1 of 5 reads 20.0, not 19.999999999999996.

    Args:
        tasks: Frame from `task_consistency` (needs `consistent`).
    """
    measured = tasks["consistent"].dropna()
    if measured.empty:
        return None
    return 100.0 * float((~measured.astype(bool)).sum()) / float(len(measured))


def cluster_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, cluster): size, share of the task's answers, a representative answer, rounds.

    The representative is the cluster's most frequent answer as written (stripped), ties to the
    earliest; `rounds` lists the rounds it appeared in, e.g. "1, 3, 5". Rows come in task order
    (first appearance), clusters largest first.
    Columns: task_id, cluster, size, share, representative, rounds, tokens_mean, successes.

    Args:
        results: Result frame with `task_id`, `round`, `answer`, `cluster`, `total_tokens`, `passed`.
    """
    clustered = results["cluster"].notna().to_numpy(dtype=bool)
    ok = results.loc[clustered]
    order, codes = task_codes(results)
    task = codes[clustered]
    cluster = ok["cluster"].to_numpy(dtype="int64")
    width = int(cluster.max()) + 1 if len(cluster) else 1
    group = task * width + cluster  # sorts by task order, then cluster
    keys, inverse, size = np.unique(group, return_inverse=True, return_counts=True)
    n_groups = len(keys)
    tokens = ok["total_tokens"].to_numpy(dtype="float64", na_value=np.nan)
    known = ~np.isnan(tokens)
    token_sum = np.bincount(inverse[known], weights=tokens[known], minlength=n_groups)
    token_n = np.bincount(inverse[known], minlength=n_groups)
    graded = ok["passed"].notna().to_numpy()
    wins = ok["passed"].fillna(False).to_numpy(dtype=bool)
    successes = np.bincount(inverse[wins], minlength=n_groups)
    n_graded = np.bincount(inverse[graded], minlength=n_groups)
    task_of = keys // width
    task_total = np.bincount(task_of, weights=size, minlength=len(order))[task_of]

    shown = ok["answer"].fillna("").str.strip()
    answer_code, answers = pd.factorize(shown)
    pair = inverse.astype("int64") * (len(answers) + 1) + answer_code
    pairs, first_row, counts = np.unique(pair, return_index=True, return_counts=True)
    pair_group = pairs // (len(answers) + 1)
    best = np.lexsort((first_row, -counts, pair_group))  # per group: most frequent, then earliest
    pick = best[np.r_[True, pair_group[best][1:] != pair_group[best][:-1]]] if len(best) else best
    representative = answers[pairs[pick] % (len(answers) + 1)]

    rounds = ok["round"].to_numpy(dtype="int64")
    r_pairs = sorted_distinct(
        inverse.astype("int64") * (int(rounds.max()) + 1 if len(rounds) else 1) + rounds
    )
    r_width = int(rounds.max()) + 1 if len(rounds) else 1
    r_group, r_round = r_pairs // r_width, [str(r) for r in (r_pairs % r_width).tolist()]
    bounds = [0, *(np.flatnonzero(np.diff(r_group)) + 1).tolist(), len(r_round)]
    joined = [", ".join(r_round[a:b]) for a, b in pairwise(bounds)] if len(r_pairs) else []

    with np.errstate(invalid="ignore", divide="ignore"):
        tokens_mean = np.where(token_n > 0, token_sum / np.maximum(token_n, 1), np.nan)
    return pd.DataFrame(
        {
            "task_id": pd.array(np.asarray(order)[task_of], dtype="string"),
            "cluster": (keys % width).astype("int64"),
            "size": size.astype("int64"),
            "share": size / task_total,
            "representative": pd.array(np.asarray(representative, dtype=object), dtype="string"),
            "rounds": pd.array(joined, dtype="string"),
            "tokens_mean": pd.array(tokens_mean, dtype="Float64"),
            "successes": pd.array(np.where(n_graded > 0, successes, 0), dtype="Int64").copy(),
        }
    ).assign(successes=lambda f: f["successes"].mask(n_graded == 0))
