"""Headline figures as one HTML row (app/widgets/figures.py): what a log wrote stays text (no tag,
no attribute, no link of its own), every figure reads back as drawn, an empty row draws nothing."""

from __future__ import annotations

from html.parser import HTMLParser

from app_kit import shown_figures
from streamlit.testing.v1 import AppTest

from app.widgets.figures import row_html

HOSTILE = '<img src=x onerror="alert(1)"> "quoted" & <a href="https://evil.example">link</a>'


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text, of a piece of markup."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.open.pop()

    def handle_data(self, data: str) -> None:
        if "style" not in self.open:
            self.text.append(data)


def parsed(markup: str) -> Tags:
    tags = Tags()
    tags.feed(markup)
    return tags


def test_log_text_in_a_label_value_or_help_stays_text() -> None:
    markup = row_html([(f"Mean {HOSTILE}", HOSTILE, f"help {HOSTILE}"), ("Tokens", "56,624")])
    tags = parsed(markup)
    assert {tag for tag, _ in tags.tags} == {"style", "div", "span"}  # no img, no a, no script
    assert all(not name.startswith("on") for _, attrs in tags.tags for name in attrs)
    assert not any("href" in attrs or "src" in attrs for _, attrs in tags.tags)
    [hostile, tokens] = [attrs for tag, attrs in tags.tags if "data-figure" in attrs]
    # the attributes hold exactly what the log wrote, unescaped by the parser: nothing broke out of them
    assert hostile["data-figure"] == f"Mean {HOSTILE}" and hostile["data-value"] == HOSTILE
    assert hostile["title"] == f"help {HOSTILE}"
    assert tokens == {"role": "listitem", "data-figure": "Tokens", "data-value": "56,624"}
    # label, help mark with its (hidden) tip, value
    assert "".join(tags.text) == f"Mean {HOSTILE}?help {HOSTILE}{HOSTILE}Tokens56,624"
    [mark] = [attrs for tag, attrs in tags.tags if attrs.get("class") == "rl-help"]
    [tip] = [attrs for tag, attrs in tags.tags if attrs.get("role") == "tooltip"]
    assert mark["tabindex"] == "0" and mark["aria-describedby"] == tip["id"]  # reachable by keyboard


def test_a_row_without_help_carries_no_style_and_no_focus_stop() -> None:
    tags = parsed(row_html([("Tokens", "56,624"), ("Route", "11")]))
    assert {tag for tag, _ in tags.tags} == {"div"}


def test_a_row_reads_back_as_drawn_and_an_empty_row_draws_nothing() -> None:
    def page() -> None:
        from app.widgets import figures

        figures.row([("Answer gap", "43.3 pp", "Share of tasks."), ("Route", "11"), ("Odd <label>", "a & b")])
        figures.row([])

    at = AppTest.from_function(page).run()
    assert not at.exception
    assert len(at.html) == 1
    assert shown_figures(at) == {"Answer gap": "43.3 pp", "Route": "11", "Odd <label>": "a & b"}
