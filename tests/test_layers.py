"""Data flows one way: capture -> vision -> scoring -> api. Nothing imports upward.

Walks every module's imports with ast and fails on an edge the design does not allow.
"""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ["capture", "vision", "scoring", "api", "models", "hardware"]
ALLOWED = {
    "capture": set(),
    "scoring": set(),                           # the pure core
    "vision": {"capture", "scoring"},           # capture.frame; scoring's alphabets and Snapshot
    "models": {"vision", "scoring"},            # training reuses the crops and layouts
    "hardware": set(),                          # calls on_trigger(); api decides what a press means
    "api": {"capture", "vision", "scoring", "hardware"},  # reads the model as a file, never imports models/
}


# The demo films a rendered game: its "camera" is the synthetic renderer in models/synth.
EXCEPTIONS = {"api/demo/video.py": {"models"}}


def absolute_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def imports_of(path: Path) -> set[str]:
    """The tilecam packages a module imports (tilecam.vision.classify -> vision)."""
    return {m.split(".")[1] for m in absolute_imports(path)
            if m.startswith("tilecam.") and m.split(".")[1] in PACKAGES}


def test_every_import_of_our_packages_goes_through_the_tilecam_namespace():
    # a bare `import api` only works from the repo folder, and would collide with any other `api`
    bare = [f"{path.relative_to(REPO)} imports {m}"
            for path in sorted(REPO.glob("*/**/*.py")) if ".venv" not in path.parts
            for m in absolute_imports(path) if m.split(".")[0] in PACKAGES]
    assert bare == []


def test_no_upward_imports():
    bad = []
    for pkg in PACKAGES:
        for path in sorted((REPO / pkg).rglob("*.py")):
            extra = EXCEPTIONS.get(path.relative_to(REPO).as_posix(), set())
            for target in imports_of(path) - ALLOWED[pkg] - {pkg} - extra:
                bad.append(f"{path.relative_to(REPO)} imports {target}")
    assert bad == []


def test_scoring_imports_no_heavy_packages():
    heavy = {"cv2", "onnxruntime", "torch", "fastapi"}
    for path in sorted((REPO / "scoring").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module.split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, ast.ImportFrom) and n.module and n.level == 0}
        assert not names & heavy, f"{path.name} imports {names & heavy}"
