"""Helpers for the tests that drive a run-starting view (Re-run, New run) through the whole app with
AppTest.from_file against the embedded simulator: a temporary runs folder copied from sample_runs/,
opening a view, waiting on the page, and its checks; and reading a page's headline figures.

Plain functions, not conftest fixtures: they belong to the dashboard's run views, not to the whole
suite (tests/conftest.py keeps only the suite-wide `offline_env`). pytest puts tests/ on sys.path,
so a test module does `import app_kit`.
"""

from __future__ import annotations

import html
import re
import shutil
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analyzer.log.loader import list_logs
from app import log_folders, sidebar

ROOT = Path(__file__).resolve().parents[1]
MAIN = ROOT / "app" / "main.py"
SAMPLES = ROOT / "sample_runs"


def sample_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, logs_only: bool = False) -> Path:
    """A temporary copy of sample_runs/ set as the runs folder (the repo's copy is never written):
    the whole folder, or with `logs_only` just its logs. Returns the resolved folder."""
    folder = tmp_path / "runs"
    if logs_only:
        folder.mkdir()
        for path in list_logs(SAMPLES):
            shutil.copy(path, folder / path.name)
    else:
        shutil.copytree(SAMPLES, folder)
    monkeypatch.setenv(log_folders.RUNS_DIR_ENV, str(folder))
    return folder.resolve()


def open_view(script: str, log: str, title: str) -> AppTest:
    """The app opened on `log`, switched to the page `script` (views/...py), clean and titled `title`."""
    at = AppTest.from_file(str(MAIN), default_timeout=60)
    at.query_params.update({"log": [log]})
    at.run()
    at.switch_page(script).run()
    assert_clean(at)
    assert [t.value for t in at.title] == [title]
    return at


def logs_box(at: AppTest) -> Any:
    """The sidebar's multiselect of open logs (its key changes whenever code changes the logs)."""
    return next(w for w in at.multiselect if w.label == sidebar.LOGS_LABEL)


def focus_box(at: AppTest) -> Any:
    """The sidebar's choice of the log shown in single-log views (its key changes likewise)."""
    return next(w for w in at.selectbox if w.label == sidebar.FOCUS_LABEL)


def key_box(at: AppTest) -> Any:
    """The sidebar's answer key radio (its key changes likewise)."""
    return next(w for w in at.radio if w.label == "Answer key")


FIGURE = re.compile(r'data-figure="([^"]*)" data-value="([^"]*)"')


def shown_figures(at: AppTest) -> dict[str, str]:
    """Label to value, as shown, of every headline figure on the page (`app/widgets/figures` rows)."""
    pairs = (pair for el in at.html for pair in FIGURE.findall(el.value))
    return {html.unescape(label): html.unescape(value) for label, value in pairs}


class TableMarkup(HTMLParser):
    """Every start tag with its attributes, and the rows of each HTML table, a cell as its text (as
    a person reads it) and its class attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[list[list[tuple[str, str]]]] = []
        self.cell: tuple[list[str], str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ([], dict(attrs).get("class") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append(("".join(self.cell[0]), self.cell[1]))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell[0].append(data)


def table_markup(markup: str) -> TableMarkup:
    parsed = TableMarkup()
    parsed.feed(markup)
    return parsed


def shown_tables(at: AppTest) -> list[pd.DataFrame]:
    """Every static table on the page (`app/widgets/static_table`), its cells as strings."""
    frames = []
    for el in at.html:
        for rows in table_markup(el.value).tables:
            texts = [[text for text, _ in row] for row in rows]
            frames += [pd.DataFrame(texts[1:], columns=texts[0])] if texts else []
    return frames


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def plain(text: str) -> str:
    """Page text without the markdown escapes the app adds to text from files."""
    return text.replace("\\", "")


def wait_for(at: AppTest, ready: Callable[[AppTest], bool], timeout: float = 90.0) -> AppTest:
    """Rerun the page (as the progress fragment would) until `ready(at)`, each run clean."""
    deadline = time.monotonic() + timeout
    while True:
        at.run()
        assert_clean(at)
        if ready(at):
            return at
        assert time.monotonic() < deadline, "the page never got there"
        time.sleep(0.3)
