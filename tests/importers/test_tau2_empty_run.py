"""An empty tau2-bench run (its `simulations` list empty: nothing ran) is told so in one line, not sent
to look for a simulations/ folder beside it; a directory-layout file (no list at all) still is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyzer.errors import RerunLensError
from analyzer.importers import load_any_bytes

SOLO = Path(__file__).resolve().parents[1] / "fixtures" / "foreign" / "tau2_bench" / "solo_stop.json"


def _message(data: dict[str, object]) -> str:
    with pytest.raises(RerunLensError) as caught:
        load_any_bytes(json.dumps(data).encode(), "results.json")
    return caught.value.message


def test_an_empty_run_says_nothing_ran() -> None:
    real = json.loads(SOLO.read_bytes())
    message = _message({**real, "simulations": []})
    assert message == (
        "results.json: simulations: this tau2-bench run holds no simulations (its list is empty): nothing ran"
    )
    assert "folder" not in message


def test_a_directory_layout_file_still_points_to_its_folder() -> None:
    real = json.loads(SOLO.read_bytes())
    layout = {k: v for k, v in real.items() if k != "simulations"}
    assert "simulations/ folder beside this file" in _message(layout)
