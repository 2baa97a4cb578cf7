"""The price table a user gives (`--prices FILE`) to compute a cost where a log records only tokens.

A JSON object, one entry per model name exactly as the log's route names it, prices in US dollars
per million tokens:

    {"gpt-4o-mini": {"prompt": 0.15, "completion": 0.60, "cached": 0.075}}

`prompt` and `completion` are required, `cached` (prompt tokens served from the provider's cache)
optional. RerunLens ships no prices and never guesses one: a model missing from the table has no
computed cost ("not recorded").
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

from analyzer.errors import PriceFileError
from analyzer.safety.bounded_read import read_file

MAX_PRICE_FILE_BYTES = 1024 * 1024
_FIELDS = ("prompt", "completion", "cached")


@dataclass(frozen=True)
class Price:
    """One model's prices, US dollars per million tokens."""

    prompt: float
    completion: float
    cached: float | None = None


PriceTable = dict[str, Price]
"""Model name -> its prices."""


def load_prices(path: str | os.PathLike[str]) -> PriceTable:
    """The price table in a file; a bad one is one line naming the file and the place."""
    data = read_file(path, MAX_PRICE_FILE_BYTES, "price table", PriceFileError)
    return parse_prices(data, str(path))


def parse_prices(data: bytes | str, name: str) -> PriceTable:
    """The price table in some JSON text (see the module's docstring)."""
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise PriceFileError(f"{name}: not valid JSON ({exc})") from None
    if not isinstance(parsed, dict) or not parsed:
        raise PriceFileError(f"{name}: expected an object of model -> prices per million tokens")
    return {str(model): _price(entry, f"{name}: {model}") for model, entry in parsed.items()}


def _price(entry: object, place: str) -> Price:
    if not isinstance(entry, dict):
        raise PriceFileError(f"{place}: expected an object with prompt and completion prices")
    unknown = sorted(set(entry) - set(_FIELDS))
    if unknown:
        raise PriceFileError(f"{place}: unknown field {unknown[0]!r} (prompt, completion, cached)")
    values = {}
    for field in _FIELDS:
        value = entry.get(field)
        if value is None and field != "cached":
            raise PriceFileError(f"{place}: no {field} price")
        if value is not None and (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise PriceFileError(
                f"{place}.{field}: expected a price of 0 or more (US dollars per million tokens)"
            )
        values[field] = None if value is None else float(value)
    return Price(
        prompt=values["prompt"] or 0.0, completion=values["completion"] or 0.0, cached=values["cached"]
    )
