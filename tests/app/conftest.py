"""Dashboard tests: every test starts from the project's own streamlit settings.

Streamlit parses `.streamlit/config.toml` from the working directory once per process, on the first
option read, and keeps it. A test that changes directory before any other test has read an option
(the session test works in a fresh folder) would leave every later test without the project's
settings: no loopback address, so every page is refused and draws no title.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit import config as st_config

ROOT = Path(__file__).resolve().parents[2]
PROJECT_ADDRESS = "127.0.0.1"  # .streamlit/config.toml's [server] address


def parse_project_config() -> None:
    """Parse streamlit's settings from the project root, whatever the working directory."""
    here = Path.cwd()
    os.chdir(ROOT)
    try:
        st_config.get_config_options(force_reparse=True)
    finally:
        os.chdir(here)


@pytest.fixture(autouse=True)
def project_streamlit_config() -> Iterator[None]:
    """The project's settings before each test; after it, a test that changed one and left it
    changed fails here rather than every test that runs after it."""
    parse_project_config()
    yield
    assert st_config.get_option("server.address") == PROJECT_ADDRESS, (
        "a test left streamlit's settings changed"
    )
