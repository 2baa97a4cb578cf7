"""Metrics over the result and attempt frames: one small module per topic, all vectorised pandas.

Every function takes frames from `analyzer.frames` (plus columns `analyze` adds: `answer_key`,
`cluster`, `passed`) and returns new frames or figures; no input is mutated.
"""
