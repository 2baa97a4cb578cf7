"""Read-only tables as markdown (app/widgets/static_table.py): log text stays plain text, a cell
never splits or ends a row, numbers read in the one number style, long tables become dataframes."""

from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from app.widgets.static_table import ROW_CAP, WIDTH_CHARS, markdown_table, narrowest_chars


def test_every_cell_is_plain_text_and_keeps_to_its_row() -> None:
    frame = pd.DataFrame(
        {
            "served model": ["gpt-4o | mini", "line one\nline two", "**bold** [link](http://x.example)"],
            "key": ["sha256:ab12", ":material/home: :red[x]", "<b>tag</b>"],
        }
    )
    lines = markdown_table(frame).splitlines()
    assert len(lines) == 2 + len(frame)  # header, alignment, one line per row
    header, align, first, second, third = lines
    assert header == "| served model | key |"
    assert align == "| --- | --- |"
    # a | inside a cell is escaped, so each row still has exactly three unescaped separators
    for line in lines:
        assert line.replace("\\|", "").count("|") == 3
    assert "gpt\\-4o \\| mini" in first and "sha256\\:ab12" in first
    assert "line one line two" in second
    # a URL is a literal code span, never a live link a log chose
    assert "\\*\\*bold\\*\\* \\[link\\]\\(`http://x.example`\\)" in third and "\\<b\\>tag\\</b\\>" in third
    assert "\\:material/home\\:" in second and "\\:red\\[x\\]" in second


def test_a_pipe_inside_a_url_does_not_end_its_cell() -> None:
    frame = pd.DataFrame({"base URL": ["https://gw.example/v1?route=a|b"], "results": [2]})
    row = markdown_table(frame).splitlines()[2]
    assert row == "| `https://gw.example/v1?route=a\\|b` | 2 |"


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
    lines = markdown_table(frame).splitlines()
    assert lines[1] == "| ---: | ---: | ---: | --- | --- |"  # numbers to the right, flags and text left
    assert lines[2] == "| 56,624 | 1,304\\.5 | 0\\.032 | yes | — |"  # escaped as all text is: reads 1,304.5
    assert lines[3] == "| 3 | 0 | — | no | x |"


def test_an_empty_table_still_has_its_headers() -> None:
    empty = pd.DataFrame({"task": pd.Series([], dtype=object)})
    assert markdown_table(empty).splitlines() == ["| task |", "| --- |"]


def draw(rows: int, word: str = "t") -> None:
    import pandas as pd

    from app.widgets import static_table

    static_table.render(pd.DataFrame({"task": [f"{word}{n}" for n in range(rows)]}), key="t")


def test_a_short_table_is_markdown_and_a_long_one_a_dataframe() -> None:
    short = AppTest.from_function(draw, args=(ROW_CAP,)).run()
    assert not short.exception and not short.dataframe
    assert short.markdown[0].value.startswith("| task |") and f"| t{ROW_CAP - 1} |" in short.markdown[0].value
    long = AppTest.from_function(draw, args=(ROW_CAP + 1,)).run()
    assert not long.exception and not long.markdown
    assert long.dataframe[0].value["task"].tolist() == [f"t{n}" for n in range(ROW_CAP + 1)]


def test_the_narrowest_width_is_each_columns_longest_word() -> None:
    frame = pd.DataFrame(
        {"task": ["shop-001", "cal-002"], "served model": ["gpt-4o-mini-2026-01-15, gpt-4o", None]}
    )
    # "shop-" (a line may break after a hyphen) and "served"/"model" headers vs "mini-", "2026-"
    assert narrowest_chars(frame) == len("shop-") + 2 + len("served") + 2


def test_words_too_long_to_wrap_make_a_dataframe_not_a_table_wider_than_the_page() -> None:
    url = "https://gateway.example.com/openai/deployments/gpt4o20240806/v1/chat"  # no hyphen to break at
    fits = AppTest.from_function(draw, args=(3, "x" * (WIDTH_CHARS - 4))).run()
    assert not fits.exception and fits.markdown and not fits.dataframe
    wide = AppTest.from_function(draw, args=(3, url)).run()
    assert not wide.exception and not wide.markdown
    assert wide.dataframe[0].value["task"].tolist() == [f"{url}{n}" for n in range(3)]
