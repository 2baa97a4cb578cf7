"""`.streamlit/config.toml`: local only, XSRF on, no usage statistics, no tracebacks on the page, and
an upload limit equal to the analyzer's limit for an upload (`MAX_UPLOAD_BYTES`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from analyzer.log.loader import MAX_UPLOAD_BYTES

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def test_config_is_safe_by_default() -> None:
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert config["server"]["address"] in {"127.0.0.1", "localhost"}
    assert config["server"]["enableXsrfProtection"] is True
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["showErrorDetails"] == "none"


def test_upload_limit_matches_the_loader() -> None:
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] * 2**20 == MAX_UPLOAD_BYTES


def test_both_themes_are_defined() -> None:
    config = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    assert {"light", "dark"} <= set(config["theme"])


def test_every_registered_view_draws_itself_when_streamlit_runs_it() -> None:
    """Streamlit runs a page's file as `__main__`: a view without the guard that calls `render()` is a
    blank page in a browser, while AppTest (which calls `render` itself) still passes."""
    import re

    root = Path(__file__).resolve().parents[2]
    main = (root / "app" / "main.py").read_text(encoding="utf-8")
    pages = re.findall(r'st\.Page\(\s*VIEWS / "([a-z_]+\.py)"', main)
    assert len(pages) >= 12 and "audit.py" in pages and "history.py" in pages
    guard = 'if __name__ == "__main__":\n    render()'
    blank = [p for p in pages if guard not in (root / "app" / "views" / p).read_text(encoding="utf-8")]
    assert blank == []
