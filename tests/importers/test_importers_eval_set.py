"""An Inspect eval-set folder written by inspect-ai 0.3.285's `eval_set` (one task, two models, two
epochs; tests/fixtures/foreign/inspect_ai/SOURCE.md): its `logs.json` lists the logs, each a group.

Inspect's own figure per log is its headline `accuracy` in that log's header (as `logs.json` repeats
it): the mean over samples of the epochs' mean (`mean` reducer) of `value_to_float(value)`
(inspect_ai/scorer/_metrics/accuracy.py lines 29-38), which equals RerunLens's Mean@n per group.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.errors import LogError
from analyzer.importers import load_any
from analyzer.importers.experiments import experiment_groups

EVAL_SET = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai" / "eval_set"


def _accuracy(header: dict) -> float:
    scores = header["results"]["scores"][0]["metrics"]
    return scores["accuracy"]["value"]


def test_an_eval_set_folder_opens_as_its_listed_logs_each_a_group() -> None:
    listing = json.loads((EVAL_SET / "logs.json").read_text(encoding="utf-8"))
    loaded = load_any(EVAL_SET)
    groups = experiment_groups(loaded)
    assert [label for label, _ in groups] == [
        f"{h['eval']['task']} on {h['eval']['model']}" for h in listing.values()
    ]
    for (_, group), header in zip(groups, listing.values(), strict=True):
        log = group.log
        assert {str(r.task_id) for rnd in log.runs for r in rnd} == set(
            header["eval"]["dataset"]["sample_ids"]
        )
        assert len(log.runs) == header["eval"]["config"]["epochs"]
        assert all(r.route.model == header["eval"]["model"] for rnd in log.runs for r in rnd)
        outcome = analyze(log).headline.outcome
        assert outcome is not None
        assert outcome.mean_at_n == pytest.approx(_accuracy(header), abs=1e-9)
    verdict = analyze(loaded.log).headline.route.verdict
    assert verdict.startswith("Experiment groups, not route drift") and "each on its own route" in verdict


def test_a_listing_that_names_a_file_outside_the_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "logs.json").write_text(json.dumps({"../elsewhere.eval": {}}), encoding="utf-8")
    with pytest.raises(
        LogError, match=r"logs\.json: '\.\./elsewhere\.eval': not a log file name in this folder"
    ):
        load_any(tmp_path)
