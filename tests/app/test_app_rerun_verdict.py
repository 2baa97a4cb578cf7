"""The Re-run page's default is `rerunlens rerun`'s default, and its verdict says the same as the CLI
prints; every task it lists as agreed reads consistent in the before/after table beneath it.

Sample A is re-run twice on the built-in simulator, through the CLI and through the page's one button,
each left at its default (no `--only`, no `--repeat`; nothing ticked or typed): the same tasks for the
same rounds each, the plan `rerun --dry-run --json` prints; the simulator answers alike to the same
route and seed, so both re-runs reach the same verdicts.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import app_kit
import pytest
from app_kit import assert_clean, plain, shown_figures, wait_for
from plan_kit import job_before_after
from streamlit.testing.v1 import AppTest

from analyzer.cli import main
from analyzer.jobs.manager import get_manager
from analyzer.log.loader import load_path

PARENT = "A_baseline.altk_runs.json"
BOXES = ("success", "warning", "info")


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return app_kit.sample_runs(tmp_path, monkeypatch)


def cli_rerun(parent: Path, out: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, Any]:
    """What `rerunlens rerun PARENT --json` prints, with `flags` (none: the CLI's default re-run)."""
    assert main(["rerun", str(parent), "--out", str(out), "--quiet", "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


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


def test_the_pages_default_plan_is_the_clis_dry_run(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dry = cli_rerun(runs / PARENT, tmp_path / "dry.altk_runs.json", capsys, "--dry-run")
    assert not (tmp_path / "dry.altk_runs.json").exists()  # a dry run sends nothing
    cli_rounds = {t["task_id"]: t["rounds"] for t in dry["tasks"]}
    assert len(set(cli_rounds.values())) > 1  # sample A: the planner's rounds differ per task

    at = open_page()
    plan = next(df.value for df in at.dataframe if "needs" in df.value.columns)
    runs_ = plan[plan["decides"] != "not run"]
    assert dict(zip(runs_["task_id"], runs_["rounds"].astype(int), strict=True)) == cli_rounds
    left = [t["task_id"] for t in dry["left_out"]]  # said, with what would run them
    assert left and plan.loc[plan["decides"] == "not run", "task_id"].tolist() == left
    ticked = next(df.value for df in at.dataframe if "rerun" in df.value.columns)
    assert sorted(ticked.loc[ticked["rerun"], "task_id"]) == sorted([*cli_rounds, *left])  # the selection
    assert all(t["decides"] is True for t in dry["tasks"])  # no round sent for nothing
    captions = [plain(c.value) for c in at.caption]
    assert all(sentence in captions for sentence in dry["sentences"])  # the plan, why, and the cost
    fewest, most = min(cli_rounds.values()), max(cli_rounds.values())
    assert (
        at.button(key="rerun.start").label
        == f"Re-run {len(cli_rounds)} tasks x {fewest} to {most} rounds on this route"
    )


def test_the_page_and_the_cli_say_the_same_verdict_true_to_the_table(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = cli_rerun(runs / PARENT, tmp_path / "cli.altk_runs.json", capsys)  # the CLI's default
    said = printed["verdict"]
    assert any("agreed on the pinned route and their answers follow a route factor" in s for s in said)

    at = page_rerun(open_page())  # the page's default
    shown = boxes_in_order(at)
    assert said[0] in shown, "\n".join(shown)
    start = shown.index(said[0])
    assert shown[start : start + len(said)] == said  # the same sentences, in the same order
    job = get_manager(runs).latest("rerun", parent=runs / PARENT)
    assert job is not None
    page = job_before_after(get_manager(runs), job.job_id).set_index("task_id")["verdict"].to_dict()
    assert page == {t["task_id"]: t["verdict"] for t in printed["tasks"]}  # task by task
    rerun_log = load_path(job.out).log
    cli_log = load_path(printed["path"]).log
    assert Counter(str(r.task_id) for _, r in rerun_log.results()) == Counter(
        str(r.task_id) for _, r in cli_log.results()
    )  # the same rounds of each task

    table = next(df.value for df in at.dataframe if "verdict_text" in df.value.columns).set_index("task_id")
    agreed = [s for s in said if "agreed on the pinned route" in s]
    for sentence in agreed:
        count, ids = listed(sentence)
        assert count == len(ids) and set(ids) <= set(table.index), sentence
        for task in ids:  # "agreed on the pinned route" beside "... -> no" is what a user catches
            assert table.loc[task, "consistent"].endswith("→ yes"), (task, table.loc[task, "consistent"])
            assert table.loc[task, "clusters"].endswith("→ 1"), (task, table.loc[task, "clusters"])
    for sentence in said[1:]:
        if sentence.startswith("(") or not re.match(r"\d+ ", sentence):
            continue
        count, ids = listed(sentence)
        assert count == len(ids)
    turned = int(said[0].split(" of ")[0])
    assert turned == sum(value.startswith("no") and value.endswith("yes") for value in table["consistent"])
