"""Metrics over the result and attempt frames: one small module per topic, all vectorised.

- `consistency`: answer clusters, consistency rate and gap, majority share, normalized entropy.
- `outcome`: Mean@n, Pass^k, Pass@k and the outcome gap, where results are graded.
- `tokens`: totals, per task and per round statistics, outliers, tokens of retried results.
- `retries`: attempts by outcome and status code, retries per result, Retry-After.
- `route_drift`: distinct route tuples, the pinned verdict, per-task drift, the inconsistent split.
- `flags`: tasks flagged for a re-run, with reasons.
- `summary_check`: the stored summary recomputed, disagreements with both numbers.
- `grouping`: integer task codes shared by the per-task functions.
- `answer_keys`, `answers`, `normalized`: the answer keys' names, what counts as the same answer
  under each, and the normalized text the finer keys start from.
- `semantic/`: the `semantic` key (answers clustered by meaning), its model and its guards.
- `stats`: the statistics behind every interval and verdict (exact tests, bootstrap, intervals).
- `intervals`: 95 % intervals over tasks for the headline figures.
- `attribution`: route or model per inconsistent task, from the log alone.
- `trajectories`, `divergence`: tool-call sequences across rounds, where they part, the tree's layout.
- `step_uncertainty`: a step resample's scores.

Every function takes frames from `analyzer.log.frames` (plus the columns `analyze` adds: `answer_key`,
`passed`, `cluster`, `retries`) and returns new frames or figures; no input is mutated.
"""
