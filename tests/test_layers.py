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


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return "tilecam." + ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph() -> dict[str, set[str]]:
    """tilecam module -> the tilecam modules it imports, anywhere in the file (an import inside
    a function is still an edge: deferring an import hides a cycle, it does not remove it)."""
    paths = {module_name(p): p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            edges.update(t for t in targets if t in paths and t != name)
        if path.name == "__init__.py":
            edges.update(t for t in (f"{name}.{m}" for m in lazy_face(path)) if t in paths)
        graph[name] = edges
    return graph


def lazy_face(path: Path) -> set[str]:
    """The modules a package's face loads on first use (its `_FACE` name -> module map and its
    `_MODULES`, as vision/__init__.py and scoring/__init__.py keep them): import_module is an import."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ("_FACE", "_MODULES")
                                                for t in node.targets):
            values = node.value.values if isinstance(node.value, ast.Dict) else getattr(node.value, "elts", [])
            found.update(v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    assert cycles(module_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# The station (api/station/) is built on the web's service and store; the web never reaches back up
# into it. Who may import the station: the station itself, the commands and the demo (what runs one).
# The settings tree holds the station's sections itself (api/settings.py: RecorderConfig, LostConfig).
STATION = "tilecam.api.station"
MAY_IMPORT_STATION = ("api/station/", "api/commands/", "api/demo/", "api/cli.py")


def test_the_web_does_not_import_the_station():
    graph = module_graph()
    bad = [f"{module_name(p).removeprefix('tilecam.')} imports {t}"
           for p in sorted((REPO / "api").rglob("*.py"))
           if not p.relative_to(REPO).as_posix().startswith(MAY_IMPORT_STATION)
           for t in sorted(graph[module_name(p)]) if t == STATION or t.startswith(STATION + ".")]
    assert bad == []


def reaching(graph: dict[str, set[str]], modules: list[str], targets: tuple[str, ...]) -> list[str]:
    """'module imports target' for each of `modules` importing one of `targets` (a module, or any
    module of a package)."""
    return [f"{m.removeprefix('tilecam.')} imports {t}" for m in modules for t in sorted(graph[m])
            if any(t == x or t.startswith(x + ".") for x in targets)]


def test_the_reach_finder_finds_a_module_and_a_package_s_module():
    graph = {"tilecam.api.service.a": {"tilecam.api.schemas", "tilecam.api.schemas_x"},
             "tilecam.api.routes.b": {"tilecam.hardware.triggers", "tilecam.api.service.types"}}
    assert reaching(graph, sorted(graph), ("tilecam.api.schemas", "tilecam.hardware")) == [
        "api.routes.b imports tilecam.hardware.triggers", "api.service.a imports tilecam.api.schemas"]


# The game service is the core the web, the station and the CLI call: it answers in its own types
# (api/service/types.py, which api/schemas.py re-exports for the routes), never in the web's.
WEB = ("tilecam.api.app", "tilecam.api.deps", "tilecam.api.routes", "tilecam.api.schemas", "tilecam.api.security")


def test_the_game_service_does_not_import_the_web():
    service = [module_name(p) for p in sorted((REPO / "api" / "service").rglob("*.py"))]
    assert reaching(module_graph(), service, WEB) == []


# What a press means is the station's table (api/station/triggers.py); hardware only reports presses,
# and the web hands an HTTP press to the station as JSON (app.state.on_trigger). Who may import
# hardware in api/: the station, the commands and the demo (what run one), and api/settings.py (the
# tree holds the buttons' and the LEDs' sections, defined next to their code).
MAY_IMPORT_HARDWARE = ("api/station/", "api/commands/", "api/demo/", "api/settings.py")


def test_only_the_station_reaches_hardware():
    others = [module_name(p) for p in sorted((REPO / "api").rglob("*.py"))
              if not p.relative_to(REPO).as_posix().startswith(MAY_IMPORT_HARDWARE)]
    assert reaching(module_graph(), others, ("tilecam.hardware",)) == []


def test_a_store_is_opened_in_one_place():
    # the engine's factory is called by the station's boot (every command) and by the app's lifespan
    # only when it was given no store (tests serving the app alone); the station's forwarder follows
    # the store on a connection of its own, which it opens through the boot too
    calls = []
    for path in sorted((REPO / "api").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel.startswith("api/store/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                if name in ("open_store", "open_engine"):
                    calls.append(rel)
    assert sorted(set(calls)) == ["api/app.py", "api/commands/record.py", "api/commands/serve.py",
                                  "api/station/boot.py", "api/station/forwarder.py", "api/station/station.py"]
    # ... and every caller but the app's lifespan takes it from the station's boot
    for rel in ("api/commands/record.py", "api/commands/serve.py", "api/station/forwarder.py",
                "api/station/station.py"):
        assert "open_store" in {a.name for n in ast.walk(ast.parse((REPO / rel).read_text(encoding="utf-8")))
                                if isinstance(n, ast.ImportFrom) and (n.module or "").endswith("boot")
                                for a in n.names}, rel


def test_the_recorder_touches_no_pixels():
    # preview drawing and evidence encoding are sinks the station plugs in (api/station/sinks.py)
    tree = ast.parse((REPO / "api" / "station" / "recorder.py").read_text(encoding="utf-8"))
    modules = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in modules if m.split(".")[0] == "cv2" or m.endswith((".draw", ".sinks"))}
    called = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    assert not called & {"array_equal", "draw_grid", "encode_jpeg", "imencode", "warpPerspective"}


# Scoring's face (scoring/__init__.py, `__all__`): product code outside scoring imports the game's
# rules from `tilecam.scoring` only, so the modules behind it can move. One other face is allowed:
# `tilecam.scoring.gcg`, the record's file format, a package with its own `__all__` (reader, writer,
# notation) that the CLI, the demo and the service's exports use as a format, not as rules. Tests
# and benches may import scoring's modules.
SCORING_FACES = ("tilecam.scoring", "tilecam.scoring.gcg")


def scoring_imports_outside_the_faces() -> list[str]:
    import importlib
    faces = {f: set(importlib.import_module(f).__all__) for f in SCORING_FACES}
    bad = []
    for pkg in PACKAGES:
        if pkg == "scoring":
            continue
        for path in sorted((REPO / pkg).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    bad += [f"{rel} imports {a.name}" for a in node.names if a.name.startswith("tilecam.scoring")]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith(
                        "tilecam.scoring"):
                    if node.module not in faces:
                        bad.append(f"{rel} imports {node.module}")
                    else:
                        bad += [f"{rel} imports {node.module}.{a.name}, not in its __all__"
                                for a in node.names if a.name not in faces[node.module]]
    return bad


def test_product_code_imports_scoring_through_its_face():
    assert scoring_imports_outside_the_faces() == []


def test_every_name_of_a_face_loads_and_none_is_hidden_by_a_module():
    # A face name that is also one of the package's module names is shadowed once that module is
    # imported (the import sets the package's attribute; the face's __getattr__ is never asked):
    # `from tilecam.scoring import recount` gave the module, not the function.
    import importlib
    import pkgutil
    for face in ("tilecam.scoring", "tilecam.vision"):
        package = importlib.import_module(face)
        modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        whole = set(getattr(package, "_MODULES", ()))
        assert (set(package.__all__) - whole) & modules == set(), face
        for name in package.__all__:
            assert getattr(package, name) is not None, f"{face}.{name}"


def test_a_face_loads_nothing_until_a_name_is_asked():
    # the faces are lazy (names load on first use): importing one, or vision's, must not pull in
    # the modules behind it, or every `from tilecam.scoring import DISTRIBUTIONS` pays for them all
    import subprocess
    import sys
    code = ("import sys, tilecam.scoring, tilecam.vision; a = sorted(m for m in sys.modules if m.startswith("
            "('tilecam.scoring.', 'tilecam.vision.'))); from tilecam.scoring import DISTRIBUTIONS; "
            "b = sorted(m for m in sys.modules if m.startswith('tilecam.scoring.')); print(a, b)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[] ['tilecam.scoring.errors', 'tilecam.scoring.tiles']"


# The web draws nothing: a route serves the bytes the service hands it (an evidence photo's board
# view is drawn by vision, asked by the game service: api/service/evidence.py). No module of the web
# imports vision, OpenCV, numpy or an imaging library, deferred or not. No exception list.
DRAWING = ("tilecam.vision", "cv2", "numpy", "PIL")


def web_drawing_imports() -> list[str]:
    bad = []
    for path in sorted((REPO / "api" / "routes").rglob("*.py")):
        for m in sorted(absolute_imports(path)):
            if any(m == d or m.startswith(d + ".") for d in DRAWING):
                bad.append(f"{path.relative_to(REPO)} imports {m}")
    return bad


def test_the_web_draws_nothing():
    assert web_drawing_imports() == []


# api/ sees vision through its face only (`tilecam.vision`, vision/__init__.py's `__all__`), so the
# modules behind it can move: no `tilecam.vision.<module>`, in an import at the top, one deferred
# into a function, or a name given to import_module. No exception list.
def vision_imports_behind_the_face(root: Path) -> list[str]:
    bad = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) \
                    == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
                names = [str(node.args[0].value)]
            else:
                continue
            bad += [f"{rel} imports {n}" for n in names if n.startswith("tilecam.vision.")]
    return bad


def test_api_imports_vision_through_its_face_only():
    assert vision_imports_behind_the_face(REPO / "api") == []


def test_the_face_finder_finds_a_module_behind_the_face(tmp_path):
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "probe.py").write_text("import tilecam.vision\nfrom tilecam.vision import build_reader\n"
                     "def f():\n    from tilecam.vision.draw import draw_grid\n"
                     "    import importlib; importlib.import_module('tilecam.vision.rack')\n", encoding="utf-8")
    assert vision_imports_behind_the_face(tmp_path / "api") == [
        "api/probe.py imports tilecam.vision.draw", "api/probe.py imports tilecam.vision.rack"]
