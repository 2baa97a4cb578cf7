"""The Audit view: two logs the runner wrote against an honest and a substituted simulated route; the
page says the analyzer's verdict sentences first, then shows its evidence."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import openai
import pytest
from app_kit import wait_for
from fake_keys import FAKE_KEY
from plan_kit import run_tasks
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from analyzer.analysis import analyze
from analyzer.audit import audit_figures, audit_logs, token_rows
from analyzer.audit.journal_ledger import journal_ledger
from analyzer.audit.journal_report import journal_figures
from analyzer.importers import load_any, native_text
from analyzer.log.loader import load_path
from analyzer.log.model import TaskSpec
from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.routes.profile import RouteProfile
from analyzer.runner.transport import KeyRing
from analyzer.simulator import Scenario, Simulator
from analyzer.simulator.scenario import Distortion, Substitute
from app import data
from app.log_folders import RUNS_DIR_ENV
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


def _proxy_group(tmp_path: Path) -> tuple[data.Group, Path]:
    """A harness's calls through the recording proxy to an over-reporting route; its journal opened."""
    journal = tmp_path / "gateway.proxy.jsonl"
    scenario = Scenario(latency_ms=(0.0, 0.5), billing="o200k_base", distortion=Distortion(usage_factor=1.3))
    with Simulator(scenario) as sim:
        config = ProxyConfig(upstream=sim.base_url, keys=KeyRing([FAKE_KEY]), journal=str(journal))
        with RecordingProxy(config) as proxy:
            client = openai.OpenAI(base_url=proxy.base_url, api_key=proxy.token, max_retries=0)
            for task in TASKS:
                messages = [{"role": "user", "content": task.prompt}]
                client.chat.completions.create(model="gpt-4o-mini", messages=messages, temperature=1)
    loaded = load_any(journal)
    group = data.Group(
        label="gateway", source=str(journal), loaded=loaded, analysis=analyze(loaded.log, "exact")
    )
    return group, journal


def test_a_proxy_journal_shows_the_cli_token_verdict_and_its_chart(tmp_path: Path) -> None:
    group, journal = _proxy_group(tmp_path)
    sel = data.Selection(groups=[group], key="exact", focus=group)
    at = AppTest.from_function(_script, kwargs={"sel": sel}, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    figures = journal_figures(journal_ledger(journal))
    shown = [m.value for m in at.markdown]
    assert escape(figures["sentence"]) in shown
    assert "overbilled" in figures["sentence"]
    table = at.dataframe[0].value
    assert table["reported"].tolist() == [
        figures["tokens"]["prompt"]["reported"],
        figures["tokens"]["completion"]["reported"],
    ]
    assert table["reported"][0] > table["counted"][0]  # the gateway reports 1.3 times the prompt


def test_a_wrapped_log_shows_the_ledger_of_the_journal_it_names(
    tmp_path: Path, groups: list[data.Group]
) -> None:
    journal_group, journal = _proxy_group(tmp_path)
    wrapped = tmp_path / "run.altk_runs.json"
    log = journal_group.loaded.log
    wrapped.write_text(native_text(log.model_copy(update={"wrapped": {"journal": journal.name}})))
    loaded = load_any(wrapped)
    group = data.Group(
        label="wrapped", source=str(wrapped), loaded=loaded, analysis=analyze(loaded.log, "exact")
    )
    sel = data.Selection(groups=[groups[0], group], key="exact", focus=groups[0])
    at = AppTest.from_function(_script, kwargs={"sel": sel}, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    sentence = journal_figures(journal_ledger(journal))["sentence"]
    assert escape(sentence) in [m.value for m in at.markdown]
    assert escape("Tokens through the recording proxy: wrapped") in [h.value for h in at.subheader]


def _live_page(groups: list[data.Group], runs: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv(RUNS_DIR_ENV, str(runs))
    sel = data.Selection(groups=groups[:1], key="exact", focus=groups[0])
    at = AppTest.from_function(_script, kwargs={"sel": sel}, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_live_audit_runs_in_the_background_writes_both_logs_and_says_its_verdict(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    at.selectbox(key="audit.live.candidate.sim").select("another model, 1.3 x the tokens reported")
    at.number_input(key="audit.live.samples").set_value(4).run()
    captions = " ".join(c.value for c in at.caption).replace("\\", "")  # markdown escapes
    assert "Live audit: 144 requests (18 prompts x 4 samples x 2 routes)" in captions
    at.button(key="audit.live.start").click().run()
    wait_for(at, lambda a: any("Wrote " in c.value for c in a.caption))
    logs = sorted((tmp_path / "runs").glob("audit-*/audit-*.altk_runs.json"))
    assert [p.name for p in logs] == ["audit-candidate.altk_runs.json", "audit-reference.altk_runs.json"]
    expected = audit_figures(audit_logs(load_path(logs[1]).log, load_path(logs[0]).log))["sentences"]
    shown = [m.value for m in at.markdown]
    assert [escape(s) for s in expected] == shown[-len(expected) :]
    assert "differ" in expected[0] and "overbilled" in expected[1]


def test_a_live_audit_can_be_cancelled_and_says_so(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    at.number_input(key="audit.live.samples").set_value(100).run()
    at.button(key="audit.live.start").click().run()
    [cancel] = [b for b in at.button if b.label == "Cancel"]
    cancel.click().run()
    wait_for(at, lambda a: any("Live audit cancelled" in w.value for w in a.warning))
    assert not list((tmp_path / "runs").glob("audit-*/*.altk_runs.json"))


def test_a_key_variable_the_servers_route_does_not_name_is_refused(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    at.text_input(key="audit.live.candidate.url").input("https://gateway.example/v1").run()
    at.text_input(key="audit.live.candidate.env").input("HOME").run()
    assert any("HOME" in e.value for e in at.error)
    assert not [b for b in at.button if b.key == "audit.live.start"]


def test_another_host_needs_a_click_before_the_audit_can_start(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no host confirmed before
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    at.text_input(key="audit.live.candidate.url").input("https://gateway.example/v1").run()
    assert at.button(key="audit.live.start").disabled
    [question] = [w.value for w in at.warning if "gateway\\.example" in w.value]
    assert question.startswith("This audit's candidate route sends the key in") and "log" not in question
    at.button(key="audit.live.confirm.candidate").click().run()
    assert not at.button(key="audit.live.start").disabled


def test_a_dashboard_bound_beyond_loopback_starts_no_live_audit(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RERUNLENS_ALLOW_REMOTE_RUNS", raising=False)
    before = st_config.get_option("server.address")
    st_config.set_option("server.address", "0.0.0.0")
    try:
        at = _live_page(groups, tmp_path / "runs", monkeypatch)
    finally:
        st_config.set_option("server.address", before)
    assert any("Live audits are off" in e.value and "0\\.0\\.0\\.0" in e.value for e in at.error)
    assert not [b for b in at.button if b.key == "audit.live.start"]


def test_a_failed_live_audit_says_what_to_do_on_the_page_beside_its_continue_button(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with Simulator(Scenario()) as gone:  # a gateway that has gone away: nothing answers at its URL
        url = gone.base_url
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    at.text_input(key="audit.live.candidate.url").input(url).run()
    if [b for b in at.button if b.key == "audit.live.confirm.candidate"]:
        at.button(key="audit.live.confirm.candidate").click().run()
    at.button(key="audit.live.start").click().run()
    wait_for(at, lambda a: any("Live audit failed" in w.value for w in a.warning))
    [said] = [w.value.replace("\\", "") for w in at.warning if "Live audit failed" in w.value]
    assert "the candidate route could not be reached" in said
    assert said.endswith("press Continue this audit to send only the rest") and "--out" not in said
    assert "start the same audit" not in said
    assert [b for b in at.button if b.label == "Continue this audit"]


def _unfinished(runs: Path, base_url: str = "") -> tuple[Path, dict[str, dict[tuple[str, int], object]]]:
    """An audit folder left unfinished by a process that is gone (as after a server restart): run
    in-process, cancelled mid-way, its job never registered with the page. With `base_url`, its
    `audit.json` is then edited to send the candidate's key there (someone else's folder)."""
    from analyzer.audit.live import SIMULATED_ROUTES, run_live
    from analyzer.audit.live_folder import LiveAudit, LiveRoute
    from analyzer.audit.probes import probe_tasks
    from analyzer.errors import RerunLensError
    from analyzer.runner.journal import read_journal

    env = RouteProfile().key_env
    out = runs / "audit-20260101-000000-000000"
    routes = [
        LiveRoute(label, "", env, scenario)
        for label, scenario in zip(("reference", "candidate"), SIMULATED_ROUTES.values(), strict=True)
    ]
    live = LiveAudit(probe_tasks(), 3, *routes, "gpt-4o-mini", 1.0, out)
    stop = threading.Event()
    with pytest.raises(RerunLensError, match="cancelled"):
        run_live(live, stop, lambda done, _total: done >= 30 and stop.set())
    kept = {
        label: {
            k: r.started_at
            for k, r in read_journal(out / f"audit-{label}.altk_runs.journal.jsonl").results.items()
        }
        for label in ("reference", "candidate")
    }
    if base_url:  # its candidate had sent nothing yet, so no journal disagrees with the edit
        (out / "audit-candidate.altk_runs.journal.jsonl").unlink()
        kept["candidate"] = {}
        manifest = json.loads((out / "audit.json").read_text())
        manifest["candidate"] = {"base_url": base_url, "key_env": env}
        (out / "audit.json").write_text(json.dumps(manifest))
    return out, kept


def test_an_unfinished_audit_found_in_the_runs_folder_continues_from_the_page(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, kept = _unfinished(tmp_path / "runs")
    n_kept = sum(map(len, kept.values()))
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    said = [m.value.replace("\\", "") for m in at.markdown]
    assert f"{out.name}: {n_kept} of 108 results written" in said
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert any(c.startswith(f"Left to send: {108 - n_kept} requests, about ") for c in captions), captions
    assert any(c.endswith("model gpt-4o-mini, 3 samples per prompt at temperature 1") for c in captions)
    at.button(key=f"audit.live.resume.{out.name}").click().run()
    wait_for(at, lambda a: any("Wrote " in c.value for c in a.caption))
    for label, before in kept.items():
        log = load_path(out / f"audit-{label}.altk_runs.json").log
        started = {(str(r.task_id), r.round): r.started_at for rnd in log.runs for r in rnd}
        assert len(started) == 54 and all(started[k] == when for k, when in before.items())
    assert not [m for m in at.markdown if out.name in m.value]  # finished: no longer listed


def test_an_unfinished_audit_naming_another_host_waits_for_the_user_to_confirm_it(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no host confirmed before
    out, _kept = _unfinished(tmp_path / "runs", base_url="https://gateway.example/v1")
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    assert at.button(key=f"audit.live.resume.{out.name}").disabled
    said = [w.value.replace("\\", "") for w in at.warning]
    [question] = [w for w in said if "gateway.example" in w]
    assert question.startswith(f"The candidate route that {out / 'audit.json'} names sends the key in")
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert any("candidate https://gateway.example/v1 with key variable" in c for c in captions)
    at.button(key=f"audit.live.resume.{out.name}.confirm.candidate").click().run()
    assert not at.button(key=f"audit.live.resume.{out.name}").disabled


def test_an_unfinished_audit_naming_a_variable_the_user_does_not_is_refused(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, _kept = _unfinished(tmp_path / "runs")
    manifest = json.loads((out / "audit.json").read_text())
    manifest["candidate"] = {"base_url": "https://gateway.example/v1", "key_env": "HOME"}
    (out / "audit.json").write_text(json.dumps(manifest))
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    assert any("HOME" in e.value for e in at.error)
    assert not [b for b in at.button if b.key == f"audit.live.resume.{out.name}"]


def test_an_unfinished_audit_whose_key_changed_says_what_to_do_on_the_page(
    tmp_path: Path, groups: list[data.Group], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, _kept = _unfinished(tmp_path / "runs")
    env = RouteProfile().key_env
    monkeypatch.setenv(env, "sim-a-key-the-audit-was-not-sent-with")
    at = _live_page(groups, tmp_path / "runs", monkeypatch)
    [said] = [e.value.replace("\\", "") for e in at.error]
    assert said.startswith(f"audit: the reference route's results in {out} were sent with the key sha256:")
    assert said.endswith(
        f"set {env} to that key in the dashboard server's environment (then restart it) to continue, "
        "or start a new live audit"
    )
    assert "--" not in said and "sim-a-key" not in said
    assert not [b for b in at.button if b.key == f"audit.live.resume.{out.name}"]
