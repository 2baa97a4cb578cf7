"""Every route and backend field of a log as a person reads it (`key_fingerprint` is "key"): the
one vocabulary of headers, drift texts and route sentences."""

from __future__ import annotations

FIELD_LABELS: dict[str, str] = {
    "base_url": "base URL",
    "key_fingerprint": "key",
    "model": "model",
    "temperature": "temperature",
    "top_p": "top p",
    "seed": "seed",
    "max_tokens": "max tokens",
    "timeout_s": "timeout (s)",
    "max_retries": "max retries",
    "served_model": "served model",
    "system_fingerprint": "backend",
    "results": "results",
    "attempts": "HTTP attempts",
    "n_attempts": "HTTP attempts",
}


def field_label(field: str) -> str:
    """`key_fingerprint` -> `key`; an unknown field with its underscores as spaces."""
    return FIELD_LABELS.get(field, field.replace("_", " "))
