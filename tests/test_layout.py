"""The architecture stays visible: no import cycle, no private name across modules, passes on the public API.

Reads the source of every project module (``passman/``, ``passes/``,
``recipes/``, ``backends/``, ``stubs/``) with :mod:`ast`; imports inside
functions count (an import moved into a function to dodge a cycle is still a
cycle), imports under ``if TYPE_CHECKING:`` do not (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: source folder -> the package it installs as
PACKAGES = {
    "passman": "passman",
    "passes": "passman.passes",
    "recipes": "passman.recipes",
    "backends": "passman.backends",
    "stubs": "passman.stubs",
}
#: core modules a pass may import (the rest of ``passman`` is internal)
PUBLIC_CORE = {"passman", "passman.astutil", "passman.printer", "passman.lazy", "passman.deadline",
               "passman.errors", "passman.loop", "passman.templating", "passman.machine"}
#: attributes of the workspace a pass must not touch (``ws.rm``, ``ws._labels`` ...)
INTERNAL_ATTRIBUTES = ("rm", "_labels", "_versions", "_clock")


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT / folder).with_suffix("").parts
            is_package = rel[-1] == "__init__"
            parts = package.split(".") + list(rel[:-1] if is_package else rel)
            out[".".join(parts)] = (path, is_package)
    return out


MODULES = _modules()


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _known(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> list[tuple[str, str, int]]:
    """``(imported module, imported name or "", line)`` of every runtime import of ``module``."""
    path, is_package = MODULES[module]
    tree = ast.parse(path.read_text())
    skipped: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test):
            skipped |= {id(x) for stmt in n.body for x in ast.walk(stmt)}
    out = []
    for n in ast.walk(tree):
        if id(n) in skipped:
            continue
        if isinstance(n, ast.Import):
            out += [(a.name, "", n.lineno) for a in n.names]
        elif isinstance(n, ast.ImportFrom) and n.module != "__future__":
            base = _resolve(module, is_package, n)
            for a in n.names:
                sub = f"{base}.{a.name}"
                out.append((sub, "", n.lineno) if sub in MODULES else (base, a.name, n.lineno))
    return out


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(MODULES)
    for m in MODULES:
        for target, _, _ in _imports(m):
            t = _known(target)
            if t is not None and t != m and not m.startswith(t + "."):  # a package's own parents
                g.add_edge(m, t)
    return g


def test_the_module_table_sees_the_layout():
    assert "passman.workspace" in MODULES and "passman.passes.poly.schedule" in MODULES
    families = {m.split(".")[2] for m in MODULES if m.startswith("passman.passes.") and m.count(".") >= 3}
    assert {"analysis", "cfacts", "loops", "scalar", "interproc", "parallel", "poly"} <= families


def test_no_import_cycle_among_project_modules():
    cycles = [sorted(c) for c in nx.strongly_connected_components(_graph()) if len(c) > 1]
    assert not cycles, f"import cycles: {cycles}"


def test_the_cycle_check_sees_imports_inside_functions(tmp_path, monkeypatch):
    """The check would fail on a cycle hidden in a function (not only on top-level imports)."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from . import fake_b\n")
    b.write_text("def f():\n    from . import fake_a\n")
    monkeypatch.setitem(MODULES, "passman.fake_a", (a, False))
    monkeypatch.setitem(MODULES, "passman.fake_b", (b, False))
    g = _graph()
    assert g.has_edge("passman.fake_a", "passman.fake_b") and g.has_edge("passman.fake_b", "passman.fake_a")


def test_no_private_name_is_imported_from_another_module():
    bad = [
        f"{MODULES[m][0].relative_to(ROOT)}:{line}: {name} from {target}"
        for m in MODULES
        for target, name, line in _imports(m)
        if name.startswith("_") and not name.startswith("__") and _known(target) is not None
    ]
    assert not bad, "\n".join(bad)


def _pass_modules() -> list[str]:
    return sorted(m for m in MODULES if m.startswith("passman.passes"))


@pytest.mark.parametrize("module", _pass_modules())
def test_a_pass_uses_only_the_public_core(module):
    path = MODULES[module][0]
    for target, _, line in _imports(module):
        t = _known(target)
        if t is not None and t.startswith("passman.") and not t.startswith("passman.passes"):
            assert t in PUBLIC_CORE, f"{path.name}:{line}: imports {t}, internal to the core"
    tree = ast.parse(path.read_text())
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute) and n.value.attr == "ws":
            assert n.attr not in INTERNAL_ATTRIBUTES, f"{path.name}:{n.lineno}: reaches ws.{n.attr}"
        if isinstance(n, ast.Attribute) and n.attr in INTERNAL_ATTRIBUTES and isinstance(n.value, ast.Name) \
                and n.value.id == "ws":
            raise AssertionError(f"{path.name}:{n.lineno}: reaches ws.{n.attr}")
