"""A Rounds value out of range on New run or Re-run is said, in one line, with the count that will
run; the button shows that count (the browser used to refuse the number without a word)."""

from __future__ import annotations

from pathlib import Path

import app_kit
import pytest
from app_kit import plain


@pytest.mark.parametrize(
    ("view", "title", "key"), [("new_run", "New run", "newrun"), ("rerun", "Re-run", "rerun")]
)
def test_rounds_out_of_range_is_said(
    view: str, title: str, key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app_kit.sample_runs(tmp_path, monkeypatch, logs_only=True)
    monkeypatch.setenv("RERUNLENS_ALLOW_REMOTE_RUNS", "1")
    at = app_kit.open_view(f"views/{view}.py", "A_baseline.altk_runs.json", title)
    at.number_input(key=f"{key}.rounds").set_value(150).run()
    errors = [plain(e.value) for e in at.error]
    assert any(e.startswith("Rounds 150 is out of range (1 to 100") and "100 will run" in e for e in errors)
    assert "x 100 rounds" in at.button(key=f"{key}.start").label
    at.number_input(key=f"{key}.rounds").set_value(0).run()
    assert any(
        "Rounds 0 is out of range" in plain(e.value) and "1 will run" in plain(e.value) for e in at.error
    )
