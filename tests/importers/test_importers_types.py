"""A field of the wrong type in a foreign file is one line naming the file and the place, never a
silently changed figure (a result turned ungraded, an answer or success turned unknown); a field the
source tool's own schema lets be null or absent stays accepted."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from analyzer.cli import main
from analyzer.errors import LogError
from analyzer.importers import load_any_bytes

FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"
FILES = {
    "inspect": FOREIGN / "inspect_ai" / "mock_epochs.json",
    "promptfoo": FOREIGN / "promptfoo" / "results.json",
    "tau": FOREIGN / "tau_bench" / "gpt-4o-airline.excerpt.json",
    "tau2": FOREIGN / "tau2_bench" / "airline_run1.excerpt.json",
    "altk": FOREIGN / "altk_evolve" / "consistency_score_card_7f3a9c21.json",
}
Edit = Callable[[Any], None]


def _edited(kind: str, edit: Edit) -> bytes:
    data = json.loads(FILES[kind].read_text(encoding="utf-8"))
    edit(data)
    return json.dumps(data).encode()


def _sample(data: dict, i: int) -> dict:
    return data["samples"][i]


def _row(data: dict, i: int) -> dict:
    return data["results"]["results"][i]


WRONG = [
    (
        "inspect",
        lambda d: d["eval"].update(model_generate_config="t=0"),
        r"eval\.model_generate_config: expected an object, got a string",
    ),
    (
        "tau2",
        lambda d: d["info"].update(agent_info="gpt-4o"),
        r"info\.agent_info: expected an object, got a string",
    ),
    ("altk", lambda d: d.update(task=5), r"task: expected a string, got a number"),
    ("inspect", lambda d: _sample(d, 2).update(scores=[1, 2]), r"samples\[2\]\.scores: expected an object"),
    (
        "inspect",
        lambda d: _sample(d, 2)["scores"].update(includes="C"),
        r"samples\[2\]\.scores\.includes: expected an object, got a string",
    ),
    ("inspect", lambda d: _sample(d, 1).update(error="boom"), r"samples\[1\]\.error: expected an object"),
    (
        "inspect",
        lambda d: _sample(d, 1)["output"].update(completion=42),
        r"samples\[1\]\.output\.completion: expected a string, got a number",
    ),
    ("inspect", lambda d: _sample(d, 1).update(output="Paris"), r"samples\[1\]\.output: expected an object"),
    (
        "inspect",
        lambda d: _sample(d, 1).update(model_usage={"mockllm/model": 12}),
        r"samples\[1\]\.model_usage\.mockllm/model: expected an object, got a number",
    ),
    (
        "inspect",
        lambda d: _sample(d, 1).update(total_time="1s"),
        r"samples\[1\]\.total_time: expected a number",
    ),
    (
        "promptfoo",
        lambda d: _row(d, 4).update(response="text"),
        r"results\.results\[4\]\.response: expected an object, got a string",
    ),
    (
        "promptfoo",
        lambda d: _row(d, 4).update(success="yes"),
        r"results\.results\[4\]\.success: expected true or false, got a string",
    ),
    (
        "promptfoo",
        lambda d: _row(d, 4).update(testIdx="a"),
        r"results\.results\[4\]\.testIdx: expected a whole number, got a string",
    ),
    (
        "promptfoo",
        lambda d: _row(d, 4).update(failureReason="2"),
        r"results\.results\[4\]\.failureReason: expected a whole number",
    ),
    (
        "promptfoo",
        lambda d: _row(d, 4).update(latencyMs="fast"),
        r"results\.results\[4\]\.latencyMs: expected a number",
    ),
    (
        "promptfoo",
        lambda d: _row(d, 4).update(cost="free"),
        r"results\.results\[4\]\.cost: expected a number",
    ),
    (
        "promptfoo",
        lambda d: _row(d, 4)["response"].update(tokenUsage={"prompt": "5", "total": 9}),
        r"results\.results\[4\]\.response\.tokenUsage\.prompt: expected a count",
    ),
    ("tau", lambda d: d[3].update(info="none"), r"\[3\]\.info: expected an object, got a string"),
    (
        "tau",
        lambda d: d[3]["info"].update(task="book"),
        r"\[3\]\.info\.task: expected an object, got a string",
    ),
    (
        "tau2",
        lambda d: d["simulations"][2].update(termination_reason=3),
        r"simulations\[2\]\.termination_reason: expected a string, got a number",
    ),
    (
        "tau2",
        lambda d: d["simulations"][2].update(reward_info=1.0),
        r"simulations\[2\]\.reward_info: expected an object, got a number",
    ),
    (
        "tau2",
        lambda d: d["simulations"][2].update(agent_cost="0.1"),
        r"simulations\[2\]\.agent_cost: expected a number",
    ),
    (
        "tau2",
        lambda d: d["simulations"][2].update(duration="10s"),
        r"simulations\[2\]\.duration: expected a number",
    ),
    (
        "tau2",
        lambda d: d["simulations"][2].update(trial="1"),
        r"simulations\[2\]\.trial: expected a trial number",
    ),
]


@pytest.mark.parametrize(("kind", "edit", "place"), WRONG, ids=[w[2][:48] for w in WRONG])
def test_a_wrong_type_is_one_line_naming_the_place(kind: str, edit: Edit, place: str) -> None:
    with pytest.raises(LogError, match=rf"^{kind}\.json: {place}") as info:
        load_any_bytes(_edited(kind, edit), f"{kind}.json")
    assert "\n" not in str(info.value)


def test_the_cli_exits_2_with_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "results.json"
    bad.write_bytes(_edited("promptfoo", lambda d: _row(d, 4).update(response="text")))
    out = tmp_path / "out.altk_runs.json"
    assert main(["import", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{bad}: results.results[4].response: expected an object, got a string")
    assert len(err.splitlines()) == 1 and not out.exists()


def test_inspect_null_scores_leave_the_epoch_ungraded() -> None:
    """Inspect's `EvalSample.scores` is optional: null is an unscored sample, not an error."""
    log = load_any_bytes(_edited("inspect", lambda d: _sample(d, 2).update(scores=None)), "i.json").log
    sample = json.loads(FILES["inspect"].read_text(encoding="utf-8"))["samples"][2]
    result = next(r for r in log.runs[sample["epoch"] - 1] if r.task_id == sample["id"])
    assert result.success is None and result.score is None and result.status != "error"


def test_promptfoo_null_success_and_response_are_accepted() -> None:
    def edit(d: dict) -> None:
        _row(d, 4).update(success=None, response=None, testIdx=None)

    log = load_any_bytes(_edited("promptfoo", edit), "p.json").log
    assert sum(len(run) for run in log.runs) == len(
        json.loads(FILES["promptfoo"].read_text(encoding="utf-8"))["results"]["results"]
    )


def test_tau2_null_trial_is_trial_0_and_said() -> None:
    """tau2's `SimulationRun.trial` is `Optional[int]`: null is allowed, taken as trial 0, with a warning."""
    loaded = load_any_bytes(_edited("tau2", lambda d: d["simulations"][2].update(trial=None)), "t.json")
    assert len(loaded.log.runs) == 1
    assert any("1 simulation with no trial number" in w and "trial 0" in w for w in loaded.warnings)


def test_tau_bench_without_info_still_imports() -> None:
    loaded = load_any_bytes(_edited("tau", lambda d: d[3].pop("info")), "t.json")
    assert sum(len(run) for run in loaded.log.runs) == len(
        json.loads(FILES["tau"].read_text(encoding="utf-8"))
    )
