"""Watch a run: follow a run started from the command line (or another tab) through its journal.

Read-only: the page reads the journal's bytes every second (analyzer.jobs.watch), takes no lock and
writes nothing, so the run goes on exactly as if nobody watched.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analyzer.errors import RerunLensError
from analyzer.jobs.watch import RunProgress, running_journals, watch
from analyzer.proxy.watch import proxy_journals
from app import data, fmt, log_folders
from app.widgets import figures, harness_runs, job_panel
from app.widgets.messages import escape

POLL_S = 1.0
PICK = "watch.journal"
ANSWER_COLUMNS = {
    "task_id": st.column_config.TextColumn("task"),
    "rounds_done": st.column_config.NumberColumn("rounds done", format="%d"),
    "distinct_answers": st.column_config.NumberColumn(
        "distinct answers",
        format="%d",
        help="Different answers so far (exact match); 2 or more: inconsistent.",
    ),
    "errors": st.column_config.NumberColumn("errors", format="%d"),
    "retries": st.column_config.NumberColumn("retries", format="%d"),
    "latest_answer": st.column_config.TextColumn("latest answer", width="large"),
}


def render(selection: data.Selection | None = None) -> None:
    """Pick a running run's journal (or type its path); its progress and answers so far, live."""
    del selection  # a run being written is not an open log yet
    st.title("Watch a run")
    st.caption(
        "Follow a run while it runs, e.g. one started with `rerunlens run --out runs/NAME.altk_runs.json`: "
        "the page reads its journal every second, read-only, and never slows or locks the run."
    )
    folder = log_folders.runs_dir()
    journals = [str(p) for p in running_journals(folder)] + [str(p) for p in proxy_journals(folder)]
    picked = st.selectbox(
        "Runs in your runs folder",
        journals,
        key=PICK,
        format_func=lambda p: job_panel.relative_to_runs(p) or p,
        placeholder="No run in progress",
        index=0 if journals else None,
    )
    typed = st.text_input(
        "Or the path of a run's log or journal",
        key="watch.path",
        placeholder="runs/mine.altk_runs.json",
        help="The --out of the run (its journal sits beside it as NAME.journal.jsonl until it finishes).",
    ).strip()
    if typed.endswith(".proxy.jsonl") or (not typed and (picked or "").endswith(".proxy.jsonl")):
        harness_runs.follow(typed or str(picked))  # a wrapped harness run: its proxy journal
        return
    chosen = _journal_of(typed) if typed else picked
    if not chosen:
        st.info(f"No run is being written in {escape(folder)} right now. Start one, or give its path.")
        return
    _live(chosen, folder)


def _journal_of(path: str) -> str:
    """A log path (`--out`) or a journal path, as the journal's path."""
    p = Path(path).expanduser()
    if p.name.endswith(".journal.jsonl"):
        return str(p)
    stem = p.name.removesuffix(".json")
    return str(p.with_name(stem + ".journal.jsonl"))


def _live(journal: str, folder: str | Path) -> None:
    @st.fragment(run_every=POLL_S)
    def progress() -> None:
        try:
            state = watch(journal, within=folder)
        except RerunLensError as exc:
            st.error(escape(exc.message), icon=":material/error:")
            return
        _show(state)

    progress()


def _show(state: RunProgress) -> None:
    done = f"{state.done:,} / {state.total:,}"
    status = "finished" if state.finished else "running (or stopped: its journal stays until it ends)"
    st.progress(min(state.fraction, 1.0), text=f"{escape(state.label or state.run_id)} · {status}")
    figures.row(
        [
            ("Results", done),
            ("Tokens", fmt.count(state.tokens)),
            ("Retries", fmt.count(state.retries), "HTTP attempts beyond each result's first."),
            ("Errored results", fmt.count(state.errors)),
        ]
    )
    answers = state.answers
    differ = int((answers["distinct_answers"] > 1).sum()) if len(answers) else 0
    st.caption(
        f"Run {escape(state.run_id)} · {fmt.count(state.tasks)} tasks x {fmt.count(state.rounds)} "
        f"rounds · {fmt.count(differ)} of {fmt.counted(len(answers), 'task')} started have given "
        "different answers so far"
    )
    st.dataframe(
        answers,
        placeholder=fmt.NONE,
        column_config=ANSWER_COLUMNS,
        hide_index=True,
        height=min(38 + 35 * max(len(answers), 1), 560),
        key="watch.answers",
    )
    if state.finished:
        st.success(escape(f"Finished: {state.out} is written."), icon=":material/check_circle:")
        if job_panel.relative_to_runs(state.out) is not None:
            st.button(
                "Open it in the dashboard",
                key="watch.open",
                icon=":material/open_in_new:",
                on_click=job_panel.open_log,
                args=(state.out,),
            )


if __name__ == "__main__":
    render()
