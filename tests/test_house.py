"""The house rules a reader relies on: no import circles among mapkit's modules, and the command line is
a layer nothing below it imports.

Imports are read from the source with ast (every import statement, at module level or inside a
function), so a circle hidden in a function-level import counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mapkit"


def _modules() -> dict[str, Path]:
    mods = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = p
    return mods


def _target(name: str, mods: dict) -> str | None:
    """The module an imported name lives in: the longest prefix of it that is a module of mapkit."""
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> nx.DiGraph:
    """Module -> module it imports, for mapkit's own modules. A module's import of its own package
    (`mapkit.sim.engine` importing from `mapkit.sim`) is left out: Python runs the package's
    __init__ first anyway, so it closes no circle of its own."""
    mods = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            for name in names:
                t = _target(name, mods)
                if t and t != mod and not (mod.startswith(t + ".") and mods[t].name == "__init__.py"):
                    g.add_edge(mod, t)
    return g


def test_the_graph_sees_imports():
    """The walk finds what it must: a known import, a function-level one, a relative one."""
    g = import_graph()
    assert g.has_edge("mapkit.validate", "mapkit.checks")
    assert len(g.edges) > 200


def test_a_circle_is_found():
    """The check below would see a circle: two modules importing each other form one component."""
    g = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c")])
    assert [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1] == [["a", "b"]]


def test_no_import_circles():
    g = import_graph()
    circles = sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)
    assert not circles, "import circles:\n" + "\n".join(", ".join(c) for c in circles)


def test_nothing_below_the_command_line_imports_it():
    g = import_graph()
    cli = {m for m in g if m == "mapkit.cli" or m.startswith("mapkit.cli.")}
    assert cli, "the command line is the package mapkit.cli"
    above = cli | {"mapkit.__main__"}
    wrong = sorted(f"{m} imports {t}" for m, t in g.edges if t in cli and m not in above)
    assert not wrong, "\n".join(wrong)
