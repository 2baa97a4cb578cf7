"""Inspect AI imports (.eval archive and .json log of the same real run), against Inspect's own figures.

The fixture was made by inspect-ai 0.3.285 with its mock model, 3 samples x 4 epochs, one epoch
failing (tests/fixtures/foreign/inspect_ai/SOURCE.md). Inspect's per-sample reductions and its
accuracy are read from the log itself and compared with what RerunLens computes.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import zstandard

from analyzer.analysis import analyze
from analyzer.errors import LogError
from analyzer.importers import load_any, load_any_bytes

HERE = Path(__file__).parents[1] / "fixtures" / "foreign" / "inspect_ai"
EVAL = HERE / "mock_epochs.eval"
JSON = HERE / "mock_epochs.json"


def _own() -> dict:
    return json.loads(JSON.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", [EVAL, JSON], ids=["eval", "json"])
def test_success_rates_equal_inspect_reductions_and_accuracy(path: Path) -> None:
    own = _own()
    analysis = analyze(load_any(path).log)
    rates = dict(zip(analysis.tasks["task_id"], analysis.tasks["success_rate"], strict=True))
    reduced = {s["sample_id"]: s["value"] for s in own["reductions"][0]["samples"]}
    # Inspect's mean reducer: capital 4/4, sum 3/4, planet 2/3 (its errored epoch dropped)
    assert reduced == pytest.approx({"capital": 1.0, "sum": 0.75, "planet": 2 / 3})
    assert rates == pytest.approx(reduced)
    accuracy = own["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert analysis.headline.outcome is not None
    assert analysis.headline.outcome.mean_at_n == pytest.approx(accuracy, abs=1e-12)


@pytest.mark.parametrize("path", [EVAL, JSON], ids=["eval", "json"])
def test_errored_epoch_is_an_error_and_no_http_attempt(path: Path) -> None:
    loaded = load_any(path)
    headline = analyze(loaded.log).headline
    assert headline.errors == 1 and headline.results == 12 and headline.rounds == 4
    planet3 = next(r for r in loaded.log.runs[2] if r.task_id == "planet")
    assert planet3.status == "error" and planet3.error is not None
    assert planet3.error.type == "RuntimeError"
    assert "tool sandbox unreachable" in (planet3.error.message or "")
    # the solver raised before any model call, in both tries (retry_on_error=1): no HTTP request
    assert planet3.attempts is None and planet3.retries == 0
    assert headline.retries.results_with_retry == 0
    assert any("no model API error" in w for w in loaded.warnings)
    assert any("reducers skip errored epochs silently" in w for w in loaded.warnings)


def test_eval_archive_and_json_log_import_the_same_results() -> None:
    from_eval = load_any(EVAL).log
    from_json = load_any(JSON).log

    def fields(log):  # noqa: ANN001, ANN202
        return [
            (r.task_id, r.round, r.answer, r.success, r.score, r.total_tokens, r.status)
            for rnd in log.runs
            for r in rnd
        ]

    assert sorted(fields(from_eval), key=str) == sorted(fields(from_json), key=str)
    assert from_eval.runs[0][0].source_ref.startswith("samples/")


def test_tokens_route_and_provenance_from_the_log() -> None:
    own = _own()
    loaded = load_any(EVAL)
    headline = analyze(loaded.log).headline
    usage = own["stats"]["model_usage"]["mockllm/model"]
    assert headline.tokens.total == usage["total_tokens"] == 610
    route = loaded.log.route
    assert route is not None
    assert (route.model, route.temperature, route.seed) == ("mockllm/model", 0.0, 42)
    # the mock model records no base URL and no key: one model and one set of settings are not a
    # pinned route (a key or endpoint change would be invisible), so the verdict stays open
    assert headline.route.pinned is None and not headline.route.identity_recorded
    assert "no key or base URL" in headline.route.verdict
    prov = loaded.log.imported_from
    assert prov["format"] == "inspect-ai" and prov["version"] == "log v2, inspect_ai 0.3.285"
    assert loaded.log.label == "Inspect: rerunlens_fixture on mockllm/model"


def test_quoted_and_cased_paris_is_one_answer_under_normalized() -> None:
    log = load_any(JSON).log
    capital = [r.answer for rnd in log.runs for r in rnd if r.task_id == "capital"]
    assert capital == ["Paris", "paris", '"Paris"', "Paris."]
    exact = analyze(log, "exact").tasks.set_index("task_id")
    normalized = analyze(log, "normalized").tasks.set_index("task_id")
    assert exact.loc["capital", "n_clusters"] == 4
    assert normalized.loc["capital", "n_clusters"] == 1 and bool(normalized.loc["capital", "consistent"])
    assert analyze(log, "normalized").headline.answer_gap_pp == pytest.approx(200 / 3)


def test_truncated_eval_is_one_line_naming_the_file() -> None:
    data = EVAL.read_bytes()
    with pytest.raises(LogError, match=r"^cut\.eval: not a readable zip archive \(an Inspect \.eval") as info:
        load_any_bytes(data[: len(data) // 2], "cut.eval")
    assert "\n" not in str(info.value)


def test_damaged_entry_names_the_entry(tmp_path: Path) -> None:
    data = bytearray(EVAL.read_bytes())
    archive = zipfile.ZipFile(EVAL)
    entry = archive.getinfo("reductions.json")
    body = entry.header_offset + 30 + len(entry.filename) + len(entry.extra)
    data[body + 4 : body + 12] = b"\x00" * 8  # scramble the zstd frame header
    bad = tmp_path / "bad.eval"
    bad.write_bytes(bytes(data))
    with pytest.raises(LogError, match=r"bad\.eval: reductions\.json: ") as info:
        load_any(bad)
    assert "\n" not in str(info.value)


def test_zip_that_is_not_an_eval_log(tmp_path: Path) -> None:
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("readme.txt", "hello")
    with pytest.raises(LogError, match="not an Inspect AI .eval log"):
        load_any(other)


@pytest.mark.parametrize(
    ("change", "place"),
    [
        (lambda d: d["samples"][1].update(epoch=0), r"samples\[1\]\.epoch: expected an epoch number"),
        (lambda d: d["samples"][2].update(id=None), r"samples\[2\]\.id: expected a task id"),
        (lambda d: d.update(samples={"a": 1}), r"samples: expected a list, got an object"),
        (lambda d: d["samples"].__setitem__(0, 7), r"samples\[0\]: expected an object, got a number"),
        (
            lambda d: d["samples"][3]["model_usage"]["mockllm/model"].update(output_tokens="5"),
            r"samples\[3\]\.model_usage\.mockllm/model\.output_tokens: expected a count",
        ),
    ],
)
def test_wrong_shape_json_is_one_line_naming_the_place(change, place: str) -> None:  # noqa: ANN001
    own = _own()
    change(own)
    with pytest.raises(LogError, match=r"^log\.json: " + place):
        load_any_bytes(json.dumps(own).encode(), "log.json")


def test_unfinished_eval_reads_its_journal_and_says_so(tmp_path: Path) -> None:
    """An eval still running has no header.json yet; older Inspect deflated its entries."""
    partial = tmp_path / "running.eval"
    with zipfile.ZipFile(EVAL) as full, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as out:
        for info in full.infolist():
            if info.filename in ("header.json", "reductions.json", "summaries.json"):
                continue
            raw = EVAL.read_bytes()[info.header_offset :]
            start = 30 + int.from_bytes(raw[26:28], "little") + int.from_bytes(raw[28:30], "little")
            body = zstandard.ZstdDecompressor().decompress(
                raw[start : start + info.compress_size], max_output_size=info.file_size
            )
            out.writestr(info.filename, body)
    loaded = load_any(partial)
    assert any("status is 'started'" in w for w in loaded.warnings)
    assert analyze(loaded.log).headline.results == 12
    assert loaded.log.route is not None and loaded.log.route.model == "mockllm/model"


def test_a_reducer_other_than_mean_is_said() -> None:
    own = _own()
    own["eval"]["config"]["epochs_reducer"] = ["mode"]
    loaded = load_any_bytes(json.dumps(own).encode(), "log.json")
    assert any("reduced epochs with mode, not mean" in w for w in loaded.warnings)
    assert not any("reduced epochs with" in w for w in load_any(JSON).warnings)


def test_scores_that_grade_nothing_are_said_not_dropped_silently() -> None:
    own = _own()
    scored = [s for s in own["samples"] if not s.get("error") and s.get("scores")]
    for sample in scored[:2]:  # a multi-part scorer's value: an object, then a list
        name = next(iter(sample["scores"]))
        sample["scores"][name]["value"] = {"part_a": "C"} if sample is scored[0] else [1, 0]
    loaded = load_any_bytes(json.dumps(own).encode(), "log.json")
    said = [w for w in loaded.warnings if "left ungraded" in w]
    assert said == [
        "2 results scored with a value that is not a number, a boolean or C/I/P/N (a list or an object, "
        "as multi-part scorers give): left ungraded, so Mean@n, Pass^n and Pass@n leave them out"
    ]
    graded = analyze(loaded.log).headline.outcome
    assert graded is not None and graded.n_min < graded.n  # the two results are missing from the grades
    assert not any("left ungraded" in w for w in load_any(JSON).warnings)


def test_tool_calls_reach_the_actions_key() -> None:
    log = load_any(HERE / "mock_tools.eval").log
    second = [r for rnd in log.runs for r in rnd if r.task_id == "second"]
    assert [r.answer for r in second] == ["5", "5", "5"]
    calls = [[(s.name, s.arguments) for s in r.trajectory if s.type == "tool_call"] for r in second]
    assert calls == [[("add", {"x": 2, "y": 3})], [("add", {"x": 3, "y": 2})], [("add", {"x": 2, "y": 3})]]
    by_answer = analyze(log, "exact").tasks.set_index("task_id")
    by_actions = analyze(log, "actions").tasks.set_index("task_id")
    assert bool(by_answer.loc["second", "consistent"])  # the same answer every epoch
    assert not bool(by_actions.loc["second", "consistent"])  # but not the same actions
    assert by_actions.loc["second", "majority_share"] == pytest.approx(2 / 3)
    assert bool(by_actions.loc["first", "consistent"])
