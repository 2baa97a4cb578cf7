"""The single entry point: native logs unchanged, foreign logs found by content, `import_to_file`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from analyzer.analysis import analyze
from analyzer.errors import LogError
from analyzer.importers import detect_format, import_to_file, list_any_logs, load_any, load_any_bytes
from analyzer.log.loader import load_bytes, load_path

ROOT = Path(__file__).parents[2]
NATIVE = ROOT / "sample_runs" / "format1_plain_script.json"
FOREIGN = Path(__file__).parents[1] / "fixtures" / "foreign"
TAU = FOREIGN / "tau_bench" / "gpt-4o-airline.excerpt.json"
TAU2 = FOREIGN / "tau2_bench" / "airline_run1.excerpt.json"
EVAL = FOREIGN / "inspect_ai" / "mock_epochs.eval"
INSPECT_JSON = FOREIGN / "inspect_ai" / "mock_epochs.json"
PROMPTFOO = FOREIGN / "promptfoo" / "results.json"


def test_native_log_is_what_the_native_loader_returns() -> None:
    ours, theirs = load_any(NATIVE), load_path(NATIVE)
    assert ours.log == theirs.log and ours.warnings == theirs.warnings and ours.source == theirs.source
    data = NATIVE.read_bytes()
    assert load_any_bytes(data, "up.json").log == load_bytes(data, "up.json").log


def test_native_log_errors_are_the_native_loaders() -> None:
    bad = b'{"runs": [[{"task_id": 1, "answer": "x", "total_tokens": -3}]]}'
    with pytest.raises(LogError) as ours:
        load_any_bytes(bad, "n.json")
    with pytest.raises(LogError) as theirs:
        load_bytes(bad, "n.json")
    assert (
        str(ours.value)
        == str(theirs.value)
        == "n.json: runs[0][0].total_tokens: must not be negative (got -3)"
    )


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (TAU, "tau-bench"),
        (TAU2, "tau2-bench"),
        (EVAL, "inspect-ai"),
        (INSPECT_JSON, "inspect-ai"),
        (PROMPTFOO, "promptfoo"),
    ],
)
def test_format_found_from_content_not_name(path: Path, kind: str, tmp_path: Path) -> None:
    renamed = tmp_path / "notes.txt"
    shutil.copy(path, renamed)
    assert detect_format(renamed.read_bytes()) == kind
    loaded = load_any(renamed)
    assert loaded.log.imported_from["format"] == kind
    assert loaded.log.version == 2 and loaded.source == str(renamed)


def test_import_to_file_writes_a_native_log_with_provenance(tmp_path: Path) -> None:
    out = import_to_file(TAU, tmp_path / "tau.altk_runs.json")
    reread = load_path(out)  # the native loader reads it: nothing foreign is left
    assert reread.log.imported_from["format"] == "tau-bench"
    assert reread.log.imported_from["file"] == str(TAU)
    before = analyze(load_any(TAU).log).headline.outcome
    after = analyze(reread.log).headline.outcome
    assert before is not None and after is not None and after.pass_hat_k == before.pass_hat_k
    assert not list(tmp_path.glob(".*.tmp"))  # atomic write left no temporary file


def test_import_to_file_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "taken.json"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(LogError, match="already exists"):
        import_to_file(PROMPTFOO, target)
    assert target.read_text(encoding="utf-8") == "keep me"


def test_import_to_file_default_name_and_native_refused(tmp_path: Path) -> None:
    src = tmp_path / "results.json"
    shutil.copy(PROMPTFOO, src)
    assert import_to_file(src) == tmp_path / "results.altk_runs.json"
    with pytest.raises(LogError, match="already a RerunLens run log"):
        import_to_file(NATIVE, tmp_path / "copy.json")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"hello": "world"}', "up.json: top level: not a RerunLens run log (no `runs`) nor a log of"),
        (
            b'[{"task_id": 1, "reward": 1.0, "traj": [',
            "up.json: not valid JSON: Expecting value at line 1 column 41",
        ),
        (b"\xff\xfe garbage", "up.json: not UTF-8 text (byte 0xff at offset 0)"),
        (
            b'{"eval": {"model": "m"}, "version": 2, "samples": []}',
            "up.json: samples: the log has no samples",
        ),
        (
            b'[{"task_id": 1, "reward": NaN, "traj": []}]',
            "up.json: not valid JSON: NaN is not a number JSON allows",
        ),
    ],
)
def test_unreadable_input_is_one_line(data: bytes, message: str) -> None:
    with pytest.raises(LogError) as info:
        load_any_bytes(data, "up.json")
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="no such file"):
        load_any(tmp_path / "absent.json")
    with pytest.raises(LogError, match="is a folder"):
        load_any(tmp_path)


def test_native_log_mentioning_a_foreign_key_still_loads_natively() -> None:
    log = json.loads(NATIVE.read_text(encoding="utf-8"))
    log["runs"][0][0]["answer"] = 'the "reward" was "traj"'  # defeats the byte shortcut
    data = json.dumps(log).encode()
    assert load_any_bytes(data, "n.json").log == load_bytes(data, "n.json").log


def test_foreign_file_that_mentions_runs_is_still_imported() -> None:
    raw = json.loads(TAU2.read_text(encoding="utf-8"))
    raw["info"]["runs"] = 3  # a `"runs"` key deep inside: the native loader is tried first, then refuses
    loaded = load_any_bytes(json.dumps(raw).encode(), "results.json")
    assert loaded.log.imported_from["format"] == "tau2-bench"


def test_runs_folder_lists_native_and_foreign_logs_but_not_task_files(tmp_path: Path) -> None:
    for src in (NATIVE, TAU, TAU2, EVAL, INSPECT_JSON, PROMPTFOO):
        shutil.copy(src, tmp_path / src.name)
    shutil.copy(ROOT / "sample_runs" / "tasks.json", tmp_path / "tasks.json")
    (tmp_path / "sims").mkdir()
    (tmp_path / "sims" / "one.json").write_text(json.dumps({"id": "x", "task_id": "1"}), encoding="utf-8")
    (tmp_path / "notes.eval").write_bytes(b"PK\x03\x04 not really a zip")
    listed = [p.name for p in list_any_logs(tmp_path)]
    assert listed == sorted([NATIVE.name, TAU.name, TAU2.name, EVAL.name, INSPECT_JSON.name, PROMPTFOO.name])
    for path in list_any_logs(tmp_path):
        load_any(path)  # every listed file opens


@pytest.mark.parametrize("src", [TAU, TAU2, EVAL, INSPECT_JSON, PROMPTFOO], ids=lambda p: p.name)
def test_imported_file_reads_back_to_the_same_figures(src: Path, tmp_path: Path) -> None:
    out = import_to_file(src, tmp_path / "imported.json")
    for key in ("exact", "normalized", "actions"):
        direct = analyze(load_any(src).log, key).report()
        reread = analyze(load_path(out).log, key).report()
        assert reread == direct
