"""Which key goes where is the user's choice only: a planted journal's key or base-URL rotation is
refused on resume, a trusted-hosts file anyone else could have written is ignored, and a look-alike
host is shown (and exported) only as its `xn--` name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fake_keys import FAKE_KEY
from hostile_endpoint import HostileEndpoint
from test_journal_resume import _journal
from test_log_route_consent import _ok

from analyzer.cli import main
from analyzer.errors import RerunLensWarning, RouteError
from analyzer.routes.profile import RouteProfile
from analyzer.runner.plan import plan_from_journal
from analyzer.runner.rerun_route import Consent, route_question
from analyzer.safety.trusted_hosts import origin_of, remember

LOOKALIKE = "https://api.open\u0430i.com/v1"
"""api.openai.com with a Cyrillic а."""


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("field", ["key_rotation", "base_url_rotation"])
def test_a_journals_rotation_is_refused_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_KEY[::-1])
    out = tmp_path / "r.altk_runs.json"
    with HostileEndpoint(_ok) as own, HostileEndpoint(_ok) as foreign:
        monkeypatch.setenv("OPENAI_BASE_URL", own.base_url)  # the journal's base URL is the user's own
        planted = {"key_rotation": ["GITHUB_TOKEN"], "base_url_rotation": [foreign.base_url]}[field]
        _journal(out, profile={"base_url": own.base_url, field: planted, "rounds": 1})
        assert main(["run", "--out", str(out), "--resume", "--quiet"]) == 2
        assert f"--{field.replace('_', '-')}" in _one_error(capsys)
        assert own.received == [] and foreign.received == []


def test_a_journal_alone_never_names_the_route(tmp_path: Path) -> None:
    out = tmp_path / "r.altk_runs.json"
    _journal(out, profile={"base_url": "https://evil.example/v1", "key_env": "GITHUB_TOKEN", "rounds": 1})
    with pytest.raises(RouteError, match="--base-url, --key-env; a journal never chooses"):
        plan_from_journal(out)


def _planted_store(tmp_path: Path, how: str) -> Path:
    store = tmp_path / "trusted_hosts.json"
    remember(origin_of("https://evil.example/v1"), "OPENAI_API_KEY", store)
    if how == "symlink":
        real = tmp_path / "elsewhere.json"
        store.rename(real)
        store.symlink_to(real)
    elif how == "world-writable":
        store.chmod(0o666)
    elif how == "group-writable":
        store.chmod(0o620)
    else:
        os.chown(store, 65534, 65534)
    return store


@pytest.mark.parametrize("how", ["symlink", "world-writable", "group-writable", "another user"])
def test_a_trust_store_others_could_write_is_ignored(tmp_path: Path, how: str) -> None:
    if how == "another user" and os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    store = _planted_store(tmp_path, how)
    profile = RouteProfile(base_url="https://evil.example/v1")
    with pytest.warns(RerunLensWarning, match="ignored, it is") as caught:
        question = route_question(profile, RouteProfile(), Consent(store=store))
    assert question is not None and question.origin == "https://evil.example:443"
    assert len(caught) == 1 and str(store) in str(caught[0].message)


def test_the_cli_prints_the_ignored_store_as_one_warning_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_log_route_consent import SAMPLE_A, _foreign_log

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    with HostileEndpoint(_ok) as ep:
        store = tmp_path / "config" / "rerunlens" / "trusted_hosts.json"
        remember(origin_of(ep.base_url), "OPENAI_API_KEY", store)
        store.chmod(0o666)
        log = _foreign_log(tmp_path, SAMPLE_A, ep.base_url, "OPENAI_API_KEY")
        argv = ["rerun", str(log), "--only", "shop-001", "--repeat", "1", "--out", str(tmp_path / "o.json")]
        assert main([*argv, "--quiet"]) == 2
        assert ep.received == []
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        err[0]
        == f"rerunlens: warning: {store}: ignored, it is writable by everyone: no host counts as confirmed"
    )
    assert err[-1].startswith("rerunlens: error: this log's route sends the key")


def test_a_lookalike_host_is_asked_about_in_its_xn_form() -> None:
    question = route_question(RouteProfile(base_url=LOOKALIKE), RouteProfile())
    assert question is not None and question.origin == "https://api.xn--openi-7ve.com:443"
    text = question.text()
    assert "\u0430" not in text and "xn--" in text and "non-ASCII" in text


def test_route_export_refuses_a_lookalike_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "config.toml"
    argv = ["route", "export", "--for", "codex", "--base-url", LOOKALIKE, "--out", str(out)]
    assert main(argv) == 2 and not out.exists()
    err = _one_error(capsys)
    assert "non_ascii_host" in err and "api.xn--openi-7ve.com" in err and "\u0430" not in err


def test_a_rerun_journals_key_rotation_is_refused_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_log_route_consent import SAMPLE_A

    from analyzer.importers import load_any
    from analyzer.runner.pinned_rerun import task_specs

    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", FAKE_KEY[::-1])
    specs = task_specs(load_any(SAMPLE_A).log, ["shop-001"], None)
    tasks = [spec.model_dump(mode="json", exclude_none=True) for spec in specs]
    out = tmp_path / "r.altk_runs.json"
    with HostileEndpoint(_ok) as own:
        monkeypatch.setenv("OPENAI_BASE_URL", own.base_url)
        profile = {"base_url": own.base_url, "key_rotation": ["GITHUB_TOKEN"], "rounds": 1}
        _journal(out, profile=profile, tasks=tasks)
        argv = ["rerun", str(SAMPLE_A), "--only", "shop-001", "--out", str(out), "--resume", "--quiet"]
        assert main(argv) == 2
        assert "--key-rotation ['GITHUB_TOKEN'] (given [])" in _one_error(capsys)
        assert own.received == []
