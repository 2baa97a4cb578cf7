"""Suite-wide safety: no test ever sees the developer's real key, base URL or route settings.

Tests that need a route set their own variables with monkeypatch; everything else talks to the
embedded simulator on loopback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# The shared test kits (fake_keys, plan_kit, app_kit, ...) sit here; tests live in one folder per topic.
sys.path.insert(0, str(Path(__file__).resolve().parent))

ROUTE_ENV_PREFIXES = ("OPENAI_", "ALTK_")


@pytest.fixture(autouse=True)
def private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The semantic key's embedding cache in a temporary folder, never the user's."""
    monkeypatch.setenv("RERUNLENS_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "rerunlens-cache"))


@pytest.fixture(autouse=True)
def offline_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Clear every OPENAI_* and ALTK_* variable for the duration of each test, and keep the user's
    config folder (the hosts confirmed for a log's route) out of reach."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("RERUNLENS_KEY_VARIABLES", raising=False)
    for name in list(os.environ):
        if name.startswith(ROUTE_ENV_PREFIXES):
            monkeypatch.delenv(name, raising=False)
