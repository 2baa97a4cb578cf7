"""What one kind of element adds to a warm page load: a bare Streamlit page (one title) against the
same page with one element more, in headless Chromium, in turns, in the same run.

    python scripts/bench_elements.py [--repeat 7]

Each variant is its own one-page app, served at the same path by its own server; every visit starts
from a blank page (as in bench_dashboard.py). Printed: each variant's median and its ratio to the bare
page's median in the same rounds, and the load average before and after. No assertions: it tells
where a view's render time goes, so that a view spends it where it matters (BENCHMARKS.md, "What one
element costs").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_dashboard import _drawn, load_average  # noqa: E402
from browser_kit import CHROMIUM, CHROMIUM_FLAGS, streamlit_server  # noqa: E402

HEAD = """import numpy as np
import pandas as pd
import streamlit as st

TABLE = pd.DataFrame({
    "task": [f"shop-{i:03d}" for i in range(30)],
    "cause": ["route", "model", None] * 10,
    "results": [10] * 30,
    "consistent": [True, False] * 15,
    "majority": np.linspace(0.3, 1, 30),
    "tokens": [700] * 30,
    "drifted": [True] * 30,
})
st.title("Baseline")
"""
NAVIGATION = """st.navigation([
    st.Page(lambda: None, title=f"View {{n}}", url_path=f"v{{n}}", default=n == 0{icon}) for n in range(10)
]).run()
"""
SIDEBAR = """with st.sidebar:
    st.subheader("Run logs")
    for label in ("Log: baseline.altk_runs.json", "Upload logs", "Answer key: exact", "Group labels"):
        with st.popover(label, width="stretch"{icon}):
            st.text(label)
"""
VARIANTS = {
    "bare page": "",
    "a text line": 'st.text("https://api.example.com/v1 -> calls https://api.example.com/v1/chat/completions")\n',
    "a text in a bordered box": (
        "with st.container(border=True):\n"
        '    st.text("https://api.example.com/v1 -> calls https://api.example.com/v1/chat/completions")\n'
    ),
    "a code block": 'st.code("https://api.example.com/v1 -> calls https://api.example.com/v1/chat/completions")\n',
    "four metrics in columns": 'for col in st.columns(4):\n    col.metric("Drifted tasks", "30")\n',
    "fifteen metrics, three to a row": (
        "for _ in range(5):\n    for col in st.columns(3):\n"
        '        col.metric("Drifted tasks", "30", help="Tasks.")\n'
    ),
    "fifteen figures as five rows (app/widgets/figures)": (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom app.widgets import figures\n"
        "for _ in range(5):\n    figures.row([('Drifted tasks', '30', 'Tasks.')] * 3)\n"
    ),
    "fifteen figures as one markdown table": (
        "st.markdown('| figure | value |\\n| --- | ---: |\\n'\n"
        "            + '\\n'.join(['| Drifted tasks | 30 |'] * 15))\n"
    ),
    "five download buttons": (
        "for n in range(5):\n"
        '    st.download_button(f"Download {n}", b"x", file_name=f"{n}.txt", on_click="ignore")\n'
    ),
    "four page links": (
        'for n in range(4):\n    st.page_link(f"https://example.com/{n}", label=f"Show them {n} →")\n'
    ),
    "a 30-row dataframe": "st.dataframe(TABLE, hide_index=True)\n",
    "a 30-row dataframe with row selection": (
        'st.dataframe(TABLE, hide_index=True, on_select="rerun", selection_mode="multi-row", key="t")\n'
    ),
    "two 30-row dataframes": "st.dataframe(TABLE, hide_index=True)\nst.dataframe(TABLE, hide_index=True)\n",
    "a 30-row st.table": "st.table(TABLE)\n",
    "a 30-row markdown table, four columns": (
        "rows = [list(TABLE.columns[:4]), ['---'] * 4] + TABLE.iloc[:, :4].astype(str).values.tolist()\n"
        "st.markdown('\\n'.join('| ' + ' | '.join(r) + ' |' for r in rows))\n"
    ),
    "a 30-row markdown table": (
        "rows = [list(TABLE.columns), ['---'] * 7] + TABLE.astype(str).values.tolist()\n"
        "st.markdown('\\n'.join('| ' + ' | '.join(r) + ' |' for r in rows))\n"
    ),
    "a 30-row html table": "st.html(TABLE.to_html(index=False))\n",
    "a 30-row table of app/widgets/static_table, four columns": (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom app.widgets import static_table\n"
        "static_table.render(TABLE.iloc[:, :4], key='t')  # narrow enough for HTML, not a dataframe\n"
    ),
    "a 30-row boxed table of twelve columns (Tasks' list, app/widgets/static_table)": (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom app.widgets import static_table\n"
        "wide = pd.concat([TABLE, TABLE.iloc[:, 1:6].add_suffix(' 2')], axis=1).astype(str)\n"
        "static_table.boxed(wide, 420, marked=0)\n"
    ),
    "two buttons and a popover in a row (Tasks' stepper)": (
        "with st.container(horizontal=True):\n"
        "    st.button('Previous', icon=':material/arrow_back:')\n"
        "    st.button('Next', icon=':material/arrow_forward:')\n"
        "    with st.popover('Open another task', icon=':material/list:'):\n"
        "        st.selectbox('Task', list(TABLE['task']))\n"
    ),
    "two popovers in a row (Tasks' filter and download)": (
        "with st.container(horizontal=True):\n"
        "    with st.popover('Filter and sort', icon=':material/filter_list:'):\n"
        "        st.text('filters')\n"
        "    with st.popover('Download', icon=':material/download:'):\n"
        "        st.text('downloads')\n"
    ),
    "ten captions (markdown)": (
        "for n in range(10):\n"
        "    st.caption(f'Showing log **A: baseline** · sample_runs/A.json · answer key **exact** {n}')\n"
    ),
    "ten captions as st.html": (
        "for n in range(10):\n"
        '    st.html(f\'<p style="font-size:0.875rem;opacity:0.6">Showing log <b>A: baseline</b> · '
        "sample_runs/A.json · answer key <b>exact</b> {n}</p>')\n"
    ),
    "ten text lines (st.text)": (
        "for n in range(10):\n"
        "    st.text(f'Showing log A: baseline · sample_runs/A.json · answer key exact {n}')\n"
    ),
    "an expander, closed": 'st.expander("More")\n',
    "two tabs": 'st.tabs(["One", "Two"])\n',
    "a plotly line chart": (
        "import plotly.graph_objects as go\n"
        "st.plotly_chart(go.Figure(go.Scatter(x=list(range(30)), y=TABLE['majority'])))\n"
    ),
    "a vega-lite line chart": "st.line_chart(TABLE, y='majority')\n",
    "navigation, 10 pages": NAVIGATION.format(icon=""),
    "navigation, 10 pages, icons": NAVIGATION.format(icon=', icon=":material/dashboard:"'),
    "four sidebar popovers": SIDEBAR.format(icon=""),
    "four sidebar popovers, icons": SIDEBAR.format(icon=', icon=":material/rule:"'),
}
"""Variant name to the code drawn after the title."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", nargs="+", default=[], help="variants whose name holds one of these words")
    args = parser.parse_args()
    variants = {
        name: code
        for name, code in VARIANTS.items()
        if name == "bare page" or not args.only or any(word in name for word in args.only)
    }
    if CHROMIUM is None:
        sys.exit("bench_elements: Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    print(f"one element beside a bare page, warm, headless Chromium at 1400x1000, {load_average()} before:")
    with tempfile.TemporaryDirectory(prefix="rerunlens-elements-") as tmp, ExitStack() as stack:
        urls = {}
        for n, (name, code) in enumerate(variants.items()):
            script = Path(tmp) / f"variant_{n}.py"
            script.write_text(HEAD + code, encoding="utf-8")
            urls[name] = stack.enter_context(streamlit_server(Path(tmp), script=script))
        pw = stack.enter_context(sync_playwright())
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        for url in urls.values():  # each server's first run and the browser's script cache, untimed
            _drawn(page, url)
        times: dict[str, list[float]] = {name: [] for name in urls}
        for _ in range(args.repeat):
            for name, url in urls.items():
                times[name].append(_drawn(page, url))
        browser.close()
    bare = statistics.median(times["bare page"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<26} {median:.3f} s = {median / bare:.2f}x (+{median - bare:.3f} s)")
    print(f"  {load_average()} after (medians of {args.repeat} rounds taken in turns)")


if __name__ == "__main__":
    main()
