"""Each part of the scorekeeper owns its state: no module of scoring/scorekeeper/ writes another
object's private attributes (`sk._x = ...`, `sk._x.add(...)`, `del sk._x[...]`, `sk._append(...)`);
a part's fields change only through its own methods (`self._x = ...`).

Walks every module with ast, as tests/test_layers.py walks imports."""
from __future__ import annotations

import ast
from pathlib import Path

KEEPER = Path(__file__).resolve().parents[3] / "scoring" / "scorekeeper"


def _private(node: ast.AST) -> str | None:
    """`x._y` (x not `self`) or `x._y[...]`: the private attribute reached, as written; else None."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
            and not (isinstance(node.value, ast.Name) and node.value.id == "self"):
        return ast.unparse(node)
    return None


def reaches(source: str) -> list[str]:
    """Where `source` writes or mutates a private attribute of an object other than `self`: an
    assignment (plain, augmented, annotated, deleted) to one, a method called on one (its value
    changed in place), or a private method of another object called (its state changed out of its
    owner's hands)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            # sk._own.add(i) mutates sk._own; sk._append(e) is sk's private door
            targets = [node.func.value, node.func]
        flat = []
        for t in targets:
            flat += t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]
        found += [f"line {node.lineno}: {hit}" for t in flat if (hit := _private(t)) is not None]
    return found


def test_no_module_of_the_scorekeeper_writes_another_s_private_state():
    bad = [f"{path.name} {hit}" for path in sorted(KEEPER.glob("*.py"))
           for hit in reaches(path.read_text(encoding="utf-8"))]
    assert bad == []


def test_the_walk_finds_each_kind_of_write():
    source = """
sk._a = 1
sk._b += 1
sk.turns._c, x = 2, 3
del sk._d[0]
sk._e.add(1)
sk._f(1)
sk._g[2] = 1
"""
    assert sorted(h.split(": ", 1)[1] for h in reaches(source)) == [
        "sk._a", "sk._b", "sk._d", "sk._e", "sk._f", "sk._g", "sk.turns._c"]


def test_the_walk_lets_an_object_write_its_own_state_and_others_read():
    source = """
self._a = 1
self._b.add(1)
self._c(2)
x = sk._d
sk.e = sk._f + 1
sk.turns.end()
"""
    assert reaches(source) == []
