"""AppWorld experiment outputs (StonyBrookNLP/appworld): one experiment folder per round.

Field map, per experiment folder (a round) and task:
- success and score: `evaluations/<dataset>.json` `individual[task_id]` (`success`; score = passed
  tests / `num_tests`), as `appworld.evaluator.evaluate_dataset` writes it; where a task is not in
  any evaluations file, its `tasks/<id>/evaluation/report.md` (`Num Passed Tests`, `Num Total Tests`).
- answer: the `answer` of the agent's `apis.supervisor.complete_task(...)` call, which AppWorld's
  request log (`tasks/<id>/logs/api_calls.jsonl`) records as `POST /supervisor/message`.
- trajectory: every API call of that log as a tool call (`POST /venmo/auth/token`), with its data;
  access tokens are left out (new at every login) and passwords masked.
- errors: a task that never ran code (no `logs/` files: the agent crashed before its first step)
  and a task that was never evaluated.
AppWorld records no tokens, model, key, retries or times in its outputs.
"""

from __future__ import annotations

import json
import re
from typing import Any

from analyzer.importers.appworld_tree import Tree, experiments
from analyzer.importers.common import Provenance, Row, Source, member_obj, parse_json, plural

FORMAT = "appworld"
COMPLETE_TASK_URLS = frozenset({"/supervisor/message", "/supervisor/complete_task"})
"""Where `apis.supervisor.complete_task` posts (its API doc's path is `/message` in the supervisor
app); the second spelling is accepted for outputs of other AppWorld versions."""
HIDDEN_ARGUMENTS = frozenset({"access_token"})
"""Request data left out of the trajectory: a fresh token at every login would make every run's
actions differ, and it is a credential."""
MASKED_ARGUMENTS = frozenset({"password"})
_REPORT_COUNT = re.compile(r"^Num (Passed|Total)\s+Tests\s*:\s*(\d+)\s*$", re.MULTILINE)


def read(tree: Tree) -> tuple[list[Row], Provenance]:
    """Rows and provenance from AppWorld outputs: each experiment folder is a round."""
    prefixes = experiments(tree)
    if not prefixes:
        Source(tree.name).fail("", "no AppWorld experiment outputs (evaluations/ or tasks/) in it")
    rows: list[Row] = []
    counts = {"crashed": 0, "unevaluated": 0, "unanswered": 0}
    warnings: list[str] = []
    for number, prefix in enumerate(prefixes, start=1):
        graded = _graded(tree, prefix, warnings)
        for task_id in sorted(graded.keys() | _task_folders(tree, prefix)):
            row = _row(tree, prefix, task_id, graded.get(task_id), number)
            status = row.fields.get("error", {}).get("type")
            counts["crashed"] += status == "crashed"
            counts["unevaluated"] += status == "not_evaluated"
            counts["unanswered"] += "trajectory" in row.fields and row.fields.get("answer") is None
            rows.append(row)
    warnings.extend(_warnings(prefixes, counts))
    prov = Provenance(
        format=FORMAT,
        version=_version(tree),
        importer=__name__,
        label=f"AppWorld: {tree.name.rstrip('/').rsplit('/', 1)[-1]} ({plural(len(prefixes), 'experiment')})",
        warnings=warnings,
    )
    return rows, prov


def _warnings(prefixes: list[str], counts: dict[str, int]) -> list[str]:
    out = []
    if len(prefixes) == 1:
        out.append(
            "one experiment folder is one round: to measure consistency, open the folder that holds "
            "the experiment folders of all repeated runs"
        )
    if counts["crashed"]:
        out.append(
            f"{plural(counts['crashed'], 'result')} never ran any code (no logs: the agent crashed before "
            "its first step) and count as errors; AppWorld's evaluation grades them as failures, so its "
            "task_goal_completion is lower by that"
        )
    if counts["unevaluated"]:
        out.append(
            f"{plural(counts['unevaluated'], 'result')} ran but were never evaluated (in no evaluations "
            "file and with no evaluation/report.md) and count as errors"
        )
    if counts["unanswered"]:
        out.append(
            f"{plural(counts['unanswered'], 'result')} never called apis.supervisor.complete_task: "
            "their answer is unknown (the actions key still compares what they did)"
        )
    out.append("AppWorld records no tokens, model, key, retries or times: those figures are unknown")
    return out


def _graded(tree: Tree, prefix: str, warnings: list[str]) -> dict[str, tuple[dict[str, Any], str]]:
    """Per task, its evaluation entry and place, from every `evaluations/*.json` of one experiment."""
    out: dict[str, tuple[dict[str, Any], str]] = {}
    names = sorted(n for n in tree.files if re.fullmatch(re.escape(prefix) + r"evaluations/[^/]+\.json", n))
    for name in names:
        source = Source(f"{tree.name}/{name}")
        data = source.obj(parse_json(tree.files[name], source), "top level")
        if "individual" not in data:
            warnings.append(f"{name} holds aggregate figures only (evaluated with aggregate_only)")
            continue
        for task_id, entry in source.obj(data["individual"], "individual").items():
            out.setdefault(
                task_id, (source.obj(entry, f"individual.{task_id}"), f"{name}: individual.{task_id}")
            )
    return out


def _task_folders(tree: Tree, prefix: str) -> set[str]:
    pattern = re.compile(re.escape(prefix) + r"tasks/([^/]+)/")
    return {m.group(1) for n in tree.files if (m := pattern.match(n))}


def _row(
    tree: Tree, prefix: str, task_id: str, graded: tuple[dict[str, Any], str] | None, number: int
) -> Row:
    base = f"{prefix}tasks/{task_id}/"
    place = graded[1] if graded else base.rstrip("/")
    fields: dict[str, Any] = _outcome(tree, base, graded)
    calls = _calls(tree, base + "logs/api_calls.jsonl")
    ran = calls is not None or (base + "logs/environment_io.md") in tree.files
    has_folder = any(n.startswith(base) for n in tree.files)
    if calls is not None:
        fields["trajectory"] = [_step(c) for c in calls]
        fields["answer"] = _answer(calls)
    if has_folder and not ran:
        fields = {"status": "error", "error": {"type": "crashed", "message": "no code ran (no logs/)"}}
    elif "success" not in fields:
        fields = {**fields, "status": "error", "answer": None}
        fields["error"] = {"type": "not_evaluated", "message": "no evaluation of this task"}
    return Row(task_id=task_id, round=number, fields=fields, place=place)


def _outcome(tree: Tree, base: str, graded: tuple[dict[str, Any], str] | None) -> dict[str, Any]:
    """`success` and `score` from the evaluations entry, else from the task's report.md; {} if none."""
    if graded is not None:
        entry, place = graded
        source = Source(f"{tree.name}/{place.split(':', 1)[0]}")
        where = place.split(": ", 1)[1]
        success = entry.get("success", entry.get("passes_fully"))  # the older name, as Metric reads it
        if not isinstance(success, bool):
            source.fail(f"{where}.success", "expected true or false")
        passes = source.items(entry.get("passes", []), f"{where}.passes")
        tests = source.count(entry.get("num_tests"), f"{where}.num_tests")
        if len(passes) > tests > 0:
            source.fail(f"{where}.passes", f"{len(passes)} passes but num_tests is {tests}")
        return {"success": success, "score": len(passes) / tests if tests else float(success)}
    report = tree.files.get(base + "evaluation/report.md")
    if report is None:
        return {}
    counts = dict(_REPORT_COUNT.findall(report.decode("utf-8", "replace")))
    if "Passed" not in counts or "Total" not in counts:
        Source(f"{tree.name}/{base}evaluation/report.md").fail("Overall Stats", "no test counts")
    passed, total = int(counts["Passed"]), int(counts["Total"])
    return {"success": passed == total, "score": passed / total if total else 1.0}


def _calls(tree: Tree, name: str) -> list[dict[str, Any]] | None:
    """The request log's entries, or None when there is no log."""
    raw = tree.files.get(name)
    if raw is None:
        return None
    source = Source(f"{tree.name}/{name}")
    calls = []
    for number, line in tree.lines(name):
        call = source.obj(parse_json(line, source, f"line {number}"), f"line {number}")
        if not isinstance(call.get("url"), str) or not isinstance(call.get("method"), str):
            source.fail(f"line {number}", "expected a request with `method` and `url`")
        source.optional_obj(call.get("data"), f"line {number}.data")
        calls.append(call)
    return calls


def _step(call: dict[str, Any]) -> dict[str, Any]:
    data = member_obj(call, "data")
    arguments = {
        k: ("***" if k in MASKED_ARGUMENTS and v is not None else v)
        for k, v in data.items()
        if k not in HIDDEN_ARGUMENTS
    }
    return {"type": "tool_call", "name": f"{call['method'].upper()} {call['url']}", "arguments": arguments}


def _answer(calls: list[dict[str, Any]]) -> str | None:
    """The answer of the first complete_task call (the task is no longer active after it); `null`,
    AppWorld's own text for no answer, when it was called without one; None when never called."""
    for call in calls:
        if call["method"].lower() == "post" and call["url"] in COMPLETE_TASK_URLS:
            data = member_obj(call, "data")
            answer = data.get("answer")
            if answer is None:
                return "null"
            return answer if isinstance(answer, str) else json.dumps(answer)
    return None


def _version(tree: Tree) -> str | None:
    for name in sorted(tree.files):
        if name.endswith("/version/code.txt") or name.endswith("/evaluation/version.txt"):
            text = tree.files[name].decode("utf-8", "replace").strip()
            if text:
                return f"appworld {text}"
    return None
