"""The code's shape limits (docs/ARCHITECTURE.md): short functions, short parameter lists, no import circle.

Imports inside functions count as imports: hiding one there does not break a circle, it hides it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("analyzer", "app")
MAX_FUNCTION_LINES = 80
MAX_PARAMETERS = 8


def _modules() -> dict[str, tuple[Path, ast.Module]]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = (path, ast.parse(path.read_text(encoding="utf-8")))
    return found


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _imports(name: str, tree: ast.Module, known: set[str]) -> set[str]:
    """Project modules a module imports, wherever the import statement stands."""
    deps: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            deps |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            deps |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
    return {d for d in deps if d in known and d != name and not name.startswith(d + ".")}


def test_no_function_is_longer_than_80_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}:{fn.lineno} {fn.name} ({fn.end_lineno - fn.lineno + 1} lines)"
        for path, tree in _modules().values()
        for fn in _functions(tree)
        if (fn.end_lineno or fn.lineno) - fn.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_no_parameter_list_is_longer_than_8() -> None:
    def count(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
        a = fn.args
        return len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)

    wide = [
        f"{path.relative_to(ROOT)}:{fn.lineno} {fn.name} ({count(fn)} parameters)"
        for path, tree in _modules().values()
        for fn in _functions(tree)
        if count(fn) > MAX_PARAMETERS
    ]
    assert wide == []


def test_no_import_circle() -> None:
    modules = _modules()
    graph = {name: _imports(name, tree, set(modules)) for name, (_, tree) in modules.items()}
    state: dict[str, int] = {}
    circles: list[str] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                circles.append(" -> ".join([*path[path.index(dep) :], dep]))
            elif dep not in state:
                visit(dep, [*path, dep])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert circles == []


def test_the_limits_see_what_they_check() -> None:
    """The checks above read real code: the runner's plan module is found, with functions and imports."""
    modules = _modules()
    path, tree = modules["analyzer.runner.plan"]
    assert any(fn.name == "new_plan" for fn in _functions(tree))
    assert "analyzer.safety.keys" in _imports("analyzer.runner.plan", tree, set(modules))


LAYERS = (
    ("analyzer.errors", "analyzer.atomic", "analyzer.formats", "analyzer.child_process", "analyzer.numbers"),
    ("analyzer.safety",),
    ("analyzer.log",),
    ("analyzer.routes",),
    ("analyzer.metrics",),
    ("analyzer.importers",),
    ("analyzer.analysis",),
    ("analyzer.verdicts",),
    ("analyzer.report",),
    ("analyzer.simulator",),
    ("analyzer.runner",),
    ("analyzer.audit",),
    ("analyzer.proxy",),
    ("analyzer.history",),
    ("analyzer.coding_tools",),
    ("analyzer.jobs",),
    ("analyzer.cli",),
    ("app",),
)
"""The analyzer's topics from the bottom up (docs/ARCHITECTURE.md): a module imports only from its own
topic or one below it. A root module (`errors`, `atomic`, `formats`, `numbers`, `analysis`) is a topic
of its own."""


def _topic(module: str) -> str:
    for layer in LAYERS:
        for topic in layer:
            if module == topic or module.startswith(topic + "."):
                return topic
    return module


def _level(topic: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if topic in layer)


def test_every_module_belongs_to_a_topic() -> None:
    known = {t for layer in LAYERS for t in layer}
    unplaced = [m for m in _modules() if m != "analyzer" and _topic(m) not in known]
    assert unplaced == []


def test_no_import_runs_back_up_and_no_circle_between_folders() -> None:
    modules = _modules()
    upward = sorted(
        f"{name} -> {dep}"
        for name, (_, tree) in modules.items()
        if name != "analyzer"
        for dep in _imports(name, tree, set(modules))
        if _topic(dep) != _topic(name) and _level(_topic(dep)) >= _level(_topic(name))
    )
    assert upward == []
