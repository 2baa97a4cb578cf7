"""Recognisable fake API keys for the leak tests.

They are assembled at import time so that no key-shaped literal sits in the source: secret
scanners (and our own pre-stop check) flag `sk-...` strings, and a real key must stand out.
"""

from __future__ import annotations

FAKE_KEY = "-".join(["sk", "test", "DO", "NOT", "LEAK", "1234567890abcdef"])
"""A key that must never appear in any file, page, URL or message."""

SESSION_KEY = "-".join(["sk", "test", "SESSION", "ONLY", "0987654321fedcba"])
"""A key typed into the dashboard for one session only."""

SHOWN_KEY = "-".join(["sk", "test", "DO", "NOT", "SHOW", "0123456789"])
"""A key planted in a log, which no view may show."""
