"""Hostile page inputs through the whole app, driven with AppTest.

Duplicate sources (`?log=X&log=X`, two uploads both named `altk_runs.json`) open as distinct groups
without a duplicate widget key; markdown in file names and log labels (links, images, bare URLs,
colour directives) is shown as plain text wherever the page renders markdown.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import app_kit
import pytest
from app_kit import shown_tables
from streamlit.testing.v1 import AppTest

from app import data, log_folders
from app.widgets.messages import escape

ROOT = Path(__file__).resolve().parents[2]
MAIN = ROOT / "app" / "main.py"
FIXTURES = ROOT / "tests" / "fixtures" / "app"
VIEWS = ["overview", "tasks", "tokens", "retries", "routes", "compare"]

HOSTILE_LABEL = (
    "see https://evil.example and www.evil.example, [click](https://evil.example) "
    "![img](https://evil.example/i.png) :red[alarm] :material/home: <b>bold</b> a@evil.example"
)
HOSTILE_NAME = (
    "[click](https://evil.example) ![img](https://evil.example/x.png) :red[x] https://evil.example.json"
)

_LIVE = [
    (r"\]\(", "a link or image"),
    (r"!\[", "an image"),
    (r"https?://", "an autolinked URL"),
    (r"www\.", "an autolinked www. address"),
    (r":[a-z]+\[", "a colour directive"),
    (r":material/", "an icon"),
    (r"<[a-z/]", "an HTML tag"),
    (r"[\w.]+@[\w.]+", "an e-mail autolink"),
]


def live_markup(markdown: str) -> list[str]:
    """What in a markdown text would render as markup: escaped characters and code spans are literal."""
    literal = re.sub(r"`[^`]*`", "", re.sub(r"\\.", "_", markdown))
    return [what for pattern, what in _LIVE if re.search(pattern, literal)]


def shown_markdown(at: AppTest) -> list[str]:
    """Every markdown-rendered text on the page and in the sidebar: bodies, captions, alerts, labels."""
    texts = [
        e.value
        for kind in ("markdown", "caption", "error", "warning", "success", "info")
        for e in at.get(kind)
    ]
    texts += [w.label for kind in ("text_input", "multiselect", "selectbox", "radio") for w in at.get(kind)]
    texts += [e.proto.label for e in at.get("expandable")]
    return [str(t) for t in texts]


def app(query: dict[str, object] | None = None) -> AppTest:
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    if query:
        at.query_params.update(query)
    return at.run()


def clean(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("drift_v2.json", "pinned_v2.json"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    hostile = json.loads((FIXTURES / "pinned_v2.json").read_text()) | {"label": HOSTILE_LABEL}
    (tmp_path / "hostile.json").write_text(json.dumps(hostile))
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(tmp_path))
    return tmp_path


# 4. duplicate sources ----------------------------------------------------------------------------


def test_a_log_named_twice_in_the_url_opens_once(runs: Path) -> None:
    at = clean(app({"log": ["drift_v2.json", "drift_v2.json", "pinned_v2.json", "drift_v2.json"]}))
    assert app_kit.logs_box(at).value == ["drift_v2.json", "pinned_v2.json"]
    assert app_kit.focus_box(at).options == ["A: shared proxy", "B: pinned route"]
    for view in VIEWS:
        clean(at.switch_page(f"views/{view}.py").run())


def test_two_uploads_with_one_name_are_two_groups_labelled_apart(runs: Path) -> None:
    at = app({"log": ["pinned_v2.json"]})
    at.file_uploader(key=data.UPLOADS).set_value(
        [
            ("altk_runs.json", (FIXTURES / "drift_v2.json").read_bytes(), "application/json"),
            ("altk_runs.json", (FIXTURES / "plain_v1.json").read_bytes(), "application/json"),
            ("altk_runs.json", (FIXTURES / "plain_v1.json").read_bytes(), "application/json"),
        ]
    ).run()
    clean(at)
    assert app_kit.focus_box(at).options == [
        "B: pinned route",
        "A: shared proxy (uploaded)",
        "altk_runs (uploaded)",
        "altk_runs (uploaded) (2)",
    ]
    boxes = [w.label for w in at.text_input]
    assert boxes == [
        "pinned\\_v2\\.json",
        "altk\\_runs\\.json \\(upload\\)",
        "altk\\_runs\\.json \\#2 \\(upload\\)",
        "altk\\_runs\\.json \\#3 \\(upload\\)",
    ]
    at.text_input(key=data.LABEL + "altk_runs.json #3 (upload)").set_value("third").run()
    assert app_kit.focus_box(clean(at)).options[-1] == "third"
    at.switch_page("views/compare.py").run()
    labels = app_kit.focus_box(clean(at)).options
    at.multiselect(key="compare.logs").set_value(labels).run()  # Compare opens on logs sharing tasks
    [table] = [t for t in shown_tables(clean(at)) if "answer gap" in t.columns]
    assert len(table) == 4 and len(set(table["group"])) == 4
    for view in VIEWS:
        clean(at.switch_page(f"views/{view}.py").run())


# 10. markdown in labels and file names -------------------------------------------------------------


def test_live_markup_detector_sees_what_it_must() -> None:
    assert live_markup("[a](https://x)") and live_markup("see www.x.org") and live_markup(":red[x]")
    assert live_markup(escape(HOSTILE_LABEL)) == [] and live_markup(escape(HOSTILE_NAME)) == []
    assert live_markup("`https://x` and \\[a\\]\\(b\\)") == []


@pytest.mark.parametrize("view", VIEWS)
def test_hostile_labels_and_file_names_render_as_plain_text(view: str, runs: Path) -> None:
    at = app({"log": ["hostile.json", "drift_v2.json"], "focus": [HOSTILE_LABEL]})
    at.file_uploader(key=data.UPLOADS).set_value(
        [(HOSTILE_NAME, (FIXTURES / "plain_v1.json").read_bytes(), "application/json")]
    ).run()
    app_kit.focus_box(at).set_value(HOSTILE_LABEL).run()  # a new upload takes the focus
    at.switch_page(f"views/{view}.py").run()
    clean(at)
    shown = [t for t in shown_markdown(at) if "evil" in t]
    assert any("click" in t for t in shown), "the hostile file name is not on the page at all"
    if view != "compare":  # single-log views caption the focused log: the hostile label
        assert any("img" in t and "material" in t for t in shown), "the hostile label is not shown"
    for text in shown:
        assert live_markup(text) == [], (live_markup(text), text)
