"""The log format's JSON Schema (`rerunlens schema`), each field described by its docstring.

The models do not collect their own attribute docstrings (pydantic's `use_attribute_docstrings`):
on Python 3.11 pydantic finds each class's source by asking `inspect.getmodule` about every frame,
which scans every loaded module, some 50 ms on each start of every command. The schema is the only
reader of those descriptions, so it takes them here, from the same source, when it is asked for.
"""

from __future__ import annotations

import ast
import inspect
from typing import Any

from analyzer.log import model
from analyzer.log.model import RunLog

__all__ = ["attribute_docstrings", "log_json_schema"]


def log_json_schema() -> dict[str, Any]:
    """`RunLog`'s JSON Schema with every documented field's docstring as its description."""
    schema = RunLog.model_json_schema()
    documented = attribute_docstrings(inspect.getsource(model))
    for name, definition in [(RunLog.__name__, schema), *schema.get("$defs", {}).items()]:
        properties = definition.get("properties", {})
        for cls in reversed(getattr(model, name, object).__mro__):  # a subclass's own text wins
            for field, text in documented.get(cls.__name__, {}).items():
                if field in properties:
                    properties[field]["description"] = text
    return schema


def attribute_docstrings(source: str) -> dict[str, dict[str, str]]:
    """Class name -> field -> the string literal right below the field's annotated assignment."""
    found: dict[str, dict[str, str]] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        fields = found.setdefault(node.name, {})
        for first, second in zip(node.body, node.body[1:], strict=False):
            if (
                isinstance(first, ast.AnnAssign)
                and isinstance(first.target, ast.Name)
                and isinstance(second, ast.Expr)
                and isinstance(second.value, ast.Constant)
                and isinstance(second.value.value, str)
            ):
                fields[first.target.id] = inspect.cleandoc(second.value.value)
    return found
