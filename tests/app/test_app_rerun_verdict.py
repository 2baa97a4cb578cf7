"""The re-run's verdict says the same on the Re-run page as `rerunlens rerun` prints, and every task it
lists as agreed reads consistent in the before/after table beneath it.

Sample A is re-run twice on the built-in simulator, through the CLI and through the page's one button,
with the same tasks (the inconsistent ones) and the planner's rounds; the simulator answers alike to
the same route and seed, so both re-runs reach the same verdicts.
"""

from __future__ import annotations

import re
from pathlib import Path

import app_kit
import pytest
from app_kit import assert_clean, plain, shown_figures, wait_for
from streamlit.testing.v1 import AppTest

from analyzer.cli import main

PARENT = "A_baseline.altk_runs.json"
BOXES = ("success", "warning", "info")


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return app_kit.sample_runs(tmp_path, monkeypatch)


def cli_sentences(parent: Path, rounds: int, out: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The verdict's sentences `rerunlens rerun` prints: the lines between the table and the reasons."""
    argv = [
        "rerun",
        str(parent),
        "--only",
        "inconsistent",
        "--repeat",
        str(rounds),
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    after_table = printed[printed.index("") + 1 :]
    return [line for line in after_table[: after_table.index("")] if not line.startswith("  ")]


def boxes_in_order(at: AppTest) -> list[str]:
    """The text of every coloured box on the page, top to bottom, without the page's escapes."""
    out: list[str] = []

    def walk(node: object) -> None:
        if getattr(node, "type", None) in BOXES:
            out.append(plain(node.value))  # type: ignore[attr-defined]
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def open_page() -> AppTest:
    return app_kit.open_view("views/rerun.py", PARENT, "Re-run")


def page_rerun(at: AppTest) -> AppTest:
    at.button(key="rerun.start").click().run()
    assert_clean(at)
    return wait_for(at, lambda page: "Route (beyond chance)" in shown_figures(page), 120.0)


def listed(sentence: str) -> tuple[int, list[str]]:
    """The count a sentence opens with and the task ids it lists after its last colon."""
    count = re.match(r"(\d+) ", sentence)
    assert count, sentence
    return int(count.group(1)), sentence.rsplit(": ", 1)[1].split(", ")


def test_the_page_and_the_cli_say_the_same_verdict_true_to_the_table(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    at = open_page()
    rounds = int(at.number_input(key="rerun.rounds").value)  # the page's default: the planner's rounds
    said = cli_sentences(runs / PARENT, rounds, tmp_path / "cli.altk_runs.json", capsys)
    assert said[0].split(";")[0].endswith("inconsistent tasks turned consistent on the pinned route")
    assert any("agreed on the pinned route and their answers follow a route factor" in s for s in said)

    page_rerun(at)
    shown = boxes_in_order(at)
    assert said[0] in shown, "\n".join(shown)
    start = shown.index(said[0])
    assert shown[start : start + len(said)] == said  # the same sentences, in the same order

    table = next(df.value for df in at.dataframe if "verdict_text" in df.value.columns).set_index("task_id")
    agreed = [s for s in said if "agreed on the pinned route" in s]
    for sentence in agreed:
        count, ids = listed(sentence)
        assert count == len(ids) and set(ids) <= set(table.index), sentence
        for task in ids:  # "agreed on the pinned route" beside "... -> no" is what a user catches
            assert table.loc[task, "consistent"].endswith("→ yes"), (task, table.loc[task, "consistent"])
            assert table.loc[task, "clusters"].endswith("→ 1"), (task, table.loc[task, "clusters"])
    for sentence in said[1:]:
        count, ids = listed(sentence)
        assert count == len(ids)
    turned = int(said[0].split(" of ")[0])
    assert turned == sum(value.startswith("no") and value.endswith("yes") for value in table["consistent"])
