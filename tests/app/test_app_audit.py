"""The Audit view: two logs the runner wrote against an honest and a substituted simulated route; the
page says the analyzer's verdict sentences first, then shows its evidence."""

from __future__ import annotations

from pathlib import Path

import pytest
from plan_kit import run_tasks
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.audit import audit_figures, audit_logs, token_rows
from analyzer.log.loader import load_path
from analyzer.log.model import TaskSpec
from analyzer.routes.profile import RouteProfile
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion, Substitute
from app import data
from app.widgets.messages import escape

TASKS = [
    TaskSpec(task_id=f"q{i}", prompt=f"Which of the {i % 5 + 2} gates in city {i} opens first? Name it.")
    for i in range(8)
]


def _group(tmp_path: Path, name: str, distortion: Distortion) -> data.Group:
    out = tmp_path / f"{name}.altk_runs.json"
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=distortion)
    with Simulator(scenario) as sim:
        profile = RouteProfile(base_url=sim.base_url, temperature=1.0, max_retries=0, concurrency=4)
        run_tasks(TASKS, profile, out, rounds=6, api_key="sim-key", run_id=name, label=name)
    loaded = load_path(out)
    return data.Group(label=name, source=str(out), loaded=loaded, analysis=analyze(loaded.log, "exact"))


def _script(sel: object) -> None:
    from app.views import audit

    audit.render(sel)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def groups(tmp_path_factory: pytest.TempPathFactory) -> list[data.Group]:
    tmp = tmp_path_factory.mktemp("audit_view")
    return [
        _group(tmp, "reference", Distortion()),
        _group(tmp, "gateway", Distortion(substitute=Substitute(shift=3.0), usage_factor=1.3)),
    ]


def test_the_verdicts_come_first_then_the_evidence(groups: list[data.Group]) -> None:
    sel = data.Selection(groups=groups, key="exact", focus=groups[0])
    at = AppTest.from_function(_script, kwargs={"sel": sel}, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    result = audit_logs(groups[0].loaded.log, groups[1].loaded.log)
    sentences = audit_figures(result)["sentences"]
    shown = [m.value for m in at.markdown]
    assert shown[: len(sentences)] == [escape(s) for s in sentences]
    assert "evidence, not proof of substitution" in shown[0]
    assert "overbilled" in shown[1]
    tables = [d.value for d in at.dataframe]
    assert list(tables[0]["prompt"]) == [p.task_id for p in result.identity.prompts[:5]]
    assert tables[1]["reported"].tolist() == [r["reported"] for r in token_rows(result)]


def test_one_log_asks_for_two(groups: list[data.Group]) -> None:
    sel = data.Selection(groups=groups[:1], key="exact", focus=groups[0])
    at = AppTest.from_function(_script, kwargs={"sel": sel}, default_timeout=60)
    at.run()
    assert not at.exception
    assert "Open two logs" in at.info[0].value
