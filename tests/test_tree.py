"""The tests mirror the product tree (docs/testing.md, "The test tree").

Every product module `<layer>/.../<module>.py` has its tests in `tests/<layer>/.../test_<module>.py`
(or `test_<module>_<aspect>.py` beside it), or a line in docs/testing.md's list of the modules
without a test file of their own, saying where they are tested instead and why.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
LAYERS = ("capture", "vision", "scoring", "api", "models", "hardware")
LISTED = re.compile(r"^- `(?P<module>[\w/]+\.py)`: \S")  # docs/testing.md: "- `api/x.py`: why"
FACE = {"__getattr__", "__dir__"}  # a package's face: lazy re-exports, no logic of its own


def has_logic(init: Path) -> bool:
    """An __init__.py that defines something beyond its face is a module like the others."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name not in FACE
               for node in tree.body)


def product_modules() -> list[str]:
    found = []
    for layer in LAYERS:
        for path in sorted((REPO / layer).rglob("*.py")):
            if "__pycache__" in path.parts or (path.name == "__init__.py" and not has_logic(path)):
                continue
            found.append(path.relative_to(REPO).as_posix())
    return found


def mirrored(module: str) -> bool:
    """tests/<folder>/test_<name>.py or test_<name>_*.py; a package's __init__ is named after the package."""
    path = Path(module)
    name = path.parent.name if path.name == "__init__.py" else path.stem
    folder = TESTS / path.parent
    return (folder / f"test_{name}.py").is_file() or any(folder.glob(f"test_{name}_*.py"))


def listed() -> dict[str, str]:
    text = (REPO / "docs" / "testing.md").read_text(encoding="utf-8")
    return {m["module"]: line for line in text.splitlines() if (m := LISTED.match(line))}


def test_every_module_has_a_mirrored_test_or_a_line_saying_why():
    missing = [m for m in product_modules() if not mirrored(m) and m not in listed()]
    assert not missing, ("modules with neither tests/<path>/test_<module>.py nor a line in docs/testing.md's "
                         f"list (\"- `path.py`: where it is tested and why\"): {missing}")


def test_the_list_names_only_modules_still_without_a_test_file():
    modules = set(product_modules())
    stale = [m for m in listed() if m not in modules or mirrored(m)]
    assert not stale, f"docs/testing.md lists modules that are gone or now have a mirrored test file: {stale}"


def test_test_file_names_are_unique():
    """pytest imports a test module by its file name (no __init__.py under tests/): two alike collide."""
    seen: dict[str, list[str]] = {}
    for path in TESTS.rglob("test_*.py"):
        seen.setdefault(path.name, []).append(path.relative_to(REPO).as_posix())
    assert not {name: paths for name, paths in seen.items() if len(paths) > 1}
