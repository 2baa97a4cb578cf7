"""Read-only tables as one HTML table (app/widgets/static_table.py): log text stays plain text, a
cell keeps to its row, numbers read in the one number style, a column of short identifiers stays on
one line, long tables become dataframes."""

from __future__ import annotations

import numpy as np
import pandas as pd
from app_kit import TableMarkup, shown_tables, table_markup
from streamlit.testing.v1 import AppTest

from app.widgets.static_table import (
    NOWRAP_CHARS,
    ROW_CAP,
    WIDE_CHARS,
    WIDTH_CHARS,
    html_table,
    narrowest_chars,
)


def parsed(frame: pd.DataFrame) -> TableMarkup:
    return table_markup(html_table(frame))


def rows(markup: TableMarkup) -> list[list[tuple[str, str]]]:
    [table] = markup.tables
    return table


def texts(markup: TableMarkup) -> list[list[str]]:
    return [[text for text, _ in row] for row in rows(markup)]


def test_every_cell_is_plain_text_and_keeps_to_its_row() -> None:
    hostile = '<img src=x onerror="alert(1)"> <a href="https://evil.example">link</a>'
    frame = pd.DataFrame(
        {
            "served model": ["gpt-4o | mini", "line one\nline two", "**bold** [link](http://x.example)"],
            "key <b>": ["sha256:ab12", ":material/home: :red[x]", hostile],
        }
    )
    markup = parsed(frame)
    assert {tag for tag, _ in markup.tags} == {"style", "table", "thead", "tbody", "tr", "th", "td"}
    names = [name for _, attrs in markup.tags for name in attrs]
    assert all(not name.startswith("on") and name not in ("href", "src") for name in names)
    assert texts(markup) == [
        ["served model", "key <b>"],
        ["gpt-4o | mini", "sha256:ab12"],
        ["line one line two", ":material/home: :red[x]"],  # a line break never ends the row
        ["**bold** [link](http://x.example)", hostile],  # exactly what the log wrote, as text
    ]


def test_numbers_missing_values_and_flags_in_the_number_style() -> None:
    frame = pd.DataFrame(
        {
            "results": [56624, 3],
            "mean tokens": [1304.5, 0.0],
            "p": [0.0321, np.nan],
            "pinned": [True, False],
            "field": [None, "x"],
        }
    )
    markup = parsed(frame)
    assert texts(markup)[1:] == [["56,624", "1,304.5", "0.032", "yes", "—"], ["3", "0", "—", "no", "x"]]
    header = rows(markup)[0]
    assert ["num" in classes for _, classes in header] == [True, True, True, False, False]  # numbers right


def test_a_column_of_short_identifiers_stays_on_one_line_and_counts_whole() -> None:
    frame = pd.DataFrame(
        {"task": ["shop-001", "cal-002"], "served model": ["gpt-4o-mini-2026-01-15, gpt-4o", None]}
    )
    markup = parsed(frame)
    [header, first, _] = rows(markup)
    assert "one" in first[0][1] and "one" not in first[1][1]  # "shop-001" never breaks after "shop-"
    assert "one" not in header[0][1]  # headers wrap between their words
    # the task column at its longest cell; the served model's longest word after a hyphen ("mini-")
    assert narrowest_chars(frame) == len("shop-001") + 2 + len("served") + 2
    long_id = pd.DataFrame({"task": ["x" * (NOWRAP_CHARS + 1), "cal-002"]})
    assert "one" not in rows(parsed(long_id))[1][0][1]
    # a short value of several words reads as one value too: a date never breaks after its year
    dates = pd.DataFrame(
        {"date": ["2026-12-02 00:56", "—"], "parent": ["resample of E", "re-run of A: baseline"]}
    )
    [_, first, _] = rows(parsed(dates))
    assert "one" in first[0][1] and "one" not in first[1][1]
    assert narrowest_chars(dates) == len("2026-12-02 00:56") + 2 + len("baseline") + 2


def test_an_empty_table_still_has_its_headers() -> None:
    empty = pd.DataFrame({"task": pd.Series([], dtype=object)})
    assert texts(parsed(empty)) == [["task"]]


def draw(rows: int, word: str = "t", scroll: bool = False) -> None:
    import pandas as pd

    from app.widgets import static_table

    static_table.render(pd.DataFrame({"task": [f"{word}{n}" for n in range(rows)]}), key="t", scroll=scroll)


def test_a_short_table_is_html_and_a_long_one_a_dataframe() -> None:
    short = AppTest.from_function(draw, args=(ROW_CAP,)).run()
    assert not short.exception and not short.dataframe
    [table] = shown_tables(short)
    assert table["task"].tolist() == [f"t{n}" for n in range(ROW_CAP)]
    long = AppTest.from_function(draw, args=(ROW_CAP + 1,)).run()
    assert not long.exception and not long.html
    assert long.dataframe[0].value["task"].tolist() == [f"t{n}" for n in range(ROW_CAP + 1)]


def test_words_too_long_to_wrap_make_a_dataframe_not_a_table_wider_than_the_page() -> None:
    url = "https://gateway.example.com/openai/deployments/gpt4o20240806/v1/chat"  # no hyphen to break at
    fits = AppTest.from_function(draw, args=(3, "x" * (WIDTH_CHARS - 4))).run()
    assert not fits.exception and fits.html and not fits.dataframe
    wide = AppTest.from_function(draw, args=(3, url)).run()
    assert not wide.exception and not wide.html
    assert wide.dataframe[0].value["task"].tolist() == [f"{url}{n}" for n in range(3)]


def test_a_table_that_fits_only_a_wide_window_scrolls_in_its_box_when_asked() -> None:
    wide = "x" * (WIDTH_CHARS + 10)  # fits at 1400 px, not at 1024 px
    boxed = AppTest.from_function(draw, args=(3, wide, True)).run()
    assert not boxed.exception and not boxed.dataframe
    assert boxed.html[0].value.startswith('<div style="overflow-x:auto">')
    assert shown_tables(boxed)[0]["task"].tolist() == [f"{wide}{n}" for n in range(3)]
    assert AppTest.from_function(draw, args=(3, wide)).run().dataframe  # not asked: a dataframe
    wider = "x" * (WIDE_CHARS + 1)  # not even at 1400 px: a dataframe either way
    assert AppTest.from_function(draw, args=(3, wider, True)).run().dataframe


def test_a_column_of_formatted_numbers_is_right_aligned_and_text_is_not() -> None:
    frame = pd.DataFrame({"task": ["a-1", "b-2"], "share": ["50.0 %", "—"], "tokens": ["1,304", "12"]})
    header, *body = rows(parsed(frame))
    assert [cls for _, cls in header] == ["", "num", "num"]
    assert all("num" not in row[0][1] and "num" in row[1][1] and "num" in row[2][1] for row in body)


def draw_boxed(rows: int) -> None:
    import pandas as pd

    from app.widgets import static_table

    frame = pd.DataFrame({"task": [f"t-{n}" for n in range(rows)], "note": ["<b>x</b>"] * rows})
    static_table.boxed(frame, 300, marked=2)


def test_a_boxed_table_highlights_one_row_and_scrolls_whatever_its_length() -> None:
    at = AppTest.from_function(draw_boxed, args=(ROW_CAP * 3,)).run()
    assert not at.exception and not at.dataframe  # never a dataframe, however long
    markup = at.html[0].value
    assert 'class="rl-box" style="max-height:300px;animation:rl-snap-2 0.8s"' in markup
    assert "@keyframes rl-snap-2{from,to{scroll-snap-type:y mandatory}}" in markup  # snaps once, to row 2
    assert markup.count('<tr class="on">') == 1 and '<tr class="on"><td class="one">t-2</td>' in markup
    assert "<b>x</b>" not in markup and "&lt;b&gt;x&lt;/b&gt;" in markup
    assert shown_tables(at)[0]["task"].tolist() == [f"t-{n}" for n in range(ROW_CAP * 3)]
