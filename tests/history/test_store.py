"""The run store on SQLite and PostgreSQL: incremental, one transaction per log, rebuilt from the logs,
task sets kept apart, and a database password never shown."""

from __future__ import annotations

import os
from pathlib import Path

import postgres_kit
import pytest
from alembic import command
from alembic.config import Config
from history_kit import Nightly
from postgres_kit import PASSWORD, Server

import analyzer.history.store as store_module
from analyzer.cli.main import main
from analyzer.history import HistoryError, RunStore
from analyzer.history.migrate import MIGRATIONS

TASKS = [f"t{i:02d}" for i in range(6)]


def _always(task: str, run: int, r: int) -> bool:
    return True


def test_a_log_indexed_and_unchanged_is_not_read_again(tmp_path: Path, db_url: str) -> None:
    folder = tmp_path / "runs"
    paths = Nightly(TASKS, _always, runs=3).save(folder)
    store = RunStore(db_url)
    assert sorted(store.index([folder]).read) == sorted(str(p.resolve()) for p in paths)
    again = store.index([folder])
    assert again.read == [] and again.unchanged == 3
    os.utime(paths[0], ns=(1, 1))  # touched, same bytes: hashed, not analysed again
    assert store.index([folder]).read == []
    new = Nightly(TASKS, _always, runs=4).save(folder, runs=[3])
    assert store.index([folder]).read == [str(new[0].resolve())]
    assert [r["run_id"] for r in store.runs()] == ["nightly-01", "nightly-02", "nightly-03", "nightly-04"]
    store.close()


def test_a_changed_log_is_read_again_and_a_removed_one_forgotten(tmp_path: Path, db_url: str) -> None:
    folder = tmp_path / "runs"
    paths = Nightly(TASKS, _always, runs=3).save(folder)
    store = RunStore(db_url)
    store.index([folder])
    Nightly(TASKS, lambda t, run, r: t != "t00", runs=3).save(folder, runs=[1])
    paths[2].unlink()
    report = store.index([folder])
    assert report.read == [str(paths[1].resolve())] and report.removed == 1
    runs = store.runs()
    assert [r["run_id"] for r in runs] == ["nightly-01", "nightly-02"]
    tasks = {t["task_id"]: t for t in store.tasks_of([runs[1]["id"]])}
    assert tasks["t00"]["successes"] == 0 and tasks["t01"]["successes"] == 5
    store.close()


def test_a_crash_mid_index_leaves_every_log_whole_or_absent(
    tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "runs"
    Nightly(TASKS, _always, runs=3).save(folder)
    real, calls = store_module.log_figures, []

    def dies_on_the_second(log):  # type: ignore[no-untyped-def]
        calls.append(log.run_id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(log)

    monkeypatch.setattr(store_module, "log_figures", dies_on_the_second)
    store = RunStore(db_url)
    with pytest.raises(KeyboardInterrupt):
        store.index([folder])
    runs = store.runs()
    assert [r["run_id"] for r in runs] == ["nightly-01"]
    assert len(store.tasks_of([runs[0]["id"]])) == len(TASKS)
    monkeypatch.setattr(store_module, "log_figures", real)
    assert len(store.index([folder]).read) == 2
    assert len(store.runs()) == 3
    store.close()


def test_rebuild_makes_the_same_history_from_the_logs(tmp_path: Path, db_url: str) -> None:
    folder = tmp_path / "runs"
    Nightly(TASKS, lambda t, run, r: run < 2 or t != "t01", runs=4).save(folder)
    store = RunStore(db_url)
    store.index([folder])
    before = [(r["run_id"], r["answer_gap_pp"]) for r in store.runs()]
    store.close()
    rebuilt = RunStore(db_url, rebuild=True)
    assert rebuilt.runs() == []
    assert len(rebuilt.index([folder]).read) == 4
    assert [(r["run_id"], r["answer_gap_pp"]) for r in rebuilt.runs()] == before
    rebuilt.close()


def test_a_damaged_sqlite_file_is_one_line_naming_rebuild_and_rebuild_repairs_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "runs"
    Nightly(TASKS, _always, runs=3).save(folder)
    (folder / "rerunlens-history.sqlite3").write_bytes(b"this is not a database" * 100)
    assert main(["history", str(folder)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--rebuild" in err
    assert main(["history", str(folder), "--rebuild", "--json"]) == 0
    assert '"run_id": "nightly-03"' in capsys.readouterr().out


def test_logs_that_share_ids_but_not_prompts_are_never_one_history(tmp_path: Path, db_url: str) -> None:
    folder = tmp_path / "runs"
    Nightly(TASKS, _always, runs=3, name="math").save(folder)
    Nightly(TASKS, _always, runs=2, name="poems", prompt_prefix="Write a poem about").save(folder)
    store = RunStore(db_url)
    store.index([folder])
    keys = {r["run_id"]: r["task_set_key"] for r in store.runs()}
    assert len({keys["math-01"], keys["math-02"], keys["math-03"]}) == 1
    assert keys["poems-01"] == keys["poems-02"] != keys["math-01"]
    store.close()


def test_the_database_password_never_reaches_output_or_an_error(
    tmp_path: Path, postgres: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "runs"
    Nightly(TASKS, _always, runs=2).save(folder)
    url = postgres.new_database()
    assert main(["history", str(folder), "--db", url]) == 0
    out = capsys.readouterr()
    assert PASSWORD not in out.out + out.err and f"{postgres.port}" in out.out and "***" in out.out
    wrong = "Wr0ng/pass word"
    bad = url.replace(PASSWORD, "Wr0ng%2Fpass%20word")
    assert main(["history", str(folder), "--db", bad]) == 2
    err = capsys.readouterr().err
    assert "password authentication failed" in err and len(err.strip().splitlines()) == 1
    assert wrong not in err and "Wr0ng%2Fpass%20word" not in err and "Wr0ng" not in err


def test_an_unknown_kind_of_database_is_refused_by_name() -> None:
    with pytest.raises(HistoryError, match="only SQLite and PostgreSQL"):
        RunStore("mysql://someone:hunter2@db/history")
    with pytest.raises(HistoryError) as caught:
        RunStore("mysql://someone:hunter2@db/history")
    assert "hunter2" not in str(caught.value)


def test_without_a_server_the_postgres_tests_fail_in_ci_and_skip_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(postgres_kit, "BIN_DIRS", [])
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="cannot run in CI"):
        next(postgres_kit.start_server())
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception):
        next(postgres_kit.start_server())


def test_a_history_from_a_newer_schema_is_refused_in_one_line(db_url: str) -> None:
    RunStore(db_url).close()
    store = RunStore(db_url)
    with store.engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = 'r9999'")
    store.close()
    with pytest.raises(HistoryError, match="written by a newer RerunLens") as caught:
        RunStore(db_url)
    assert PASSWORD not in str(caught.value)


def test_a_history_of_the_first_schema_is_migrated_and_its_logs_read_again_to_fill_the_new_columns(
    tmp_path: Path, db_url: str
) -> None:
    folder = tmp_path / "runs"
    Nightly(TASKS, lambda t, run, r: not (t == "t00" and r == 0), runs=2).save(folder)
    store = RunStore(db_url)
    store.index([folder])
    with store.engine.begin() as conn:  # back to revision r0001, as an older RerunLens left it
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = conn
        command.downgrade(config, "r0001")
    store.close()
    migrated = RunStore(db_url)
    assert len(migrated.index([folder]).read) == 2  # read again once, to fill the intervals
    [first, _] = migrated.runs()
    assert first["answer_gap_pp"] == pytest.approx(100 / 6)
    assert first["answer_gap_pp_low"] < first["answer_gap_pp"] < first["answer_gap_pp_high"]
    assert migrated.index([folder]).read == []
    migrated.close()
