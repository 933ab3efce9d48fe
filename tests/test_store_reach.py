"""The store is reached only through the game service (beside test_layers.py, which guards layers).

The SQLite engine is chosen in one place, api/store's open_store; routes, commands and the recorder
call the service (service.game, service.entries, ...), never a store's methods. The composition root
(api/station/) opens a store through open_store for the commands (api/station/boot.py), and the app
opens its own only when given none (api/app.py, for tests); then they hand it over.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tilecam.api.store import Store

REPO = Path(__file__).resolve().parents[1]
ENGINE = "tilecam.api.store.sqlite"
# Who may name the engine: the store package itself, the service and the composition root.
MAY_IMPORT_ENGINE = ("api/store/", "api/service/", "api/station/")
MAY_CALL_STORE = ("api/store/", "api/service/")
STORE_METHODS = {name for name in vars(Store) if not name.startswith("_")}


def api_modules():
    for path in sorted((REPO / "api").rglob("*.py")):
        yield path.relative_to(REPO).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def imported(rel: str, tree: ast.AST) -> set[str]:
    package = ("tilecam/" + rel).rsplit("/", 1)[0].replace("/", ".")
    if rel.endswith("__init__.py"):
        package = "tilecam." + rel.rsplit("/", 1)[0].replace("/", ".")
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


def test_the_guard_knows_the_store_methods():
    assert {"append", "entries", "count", "game", "update_game", "frame", "changes", "table_games"} <= STORE_METHODS


def test_only_the_store_the_service_and_the_composition_root_import_the_sqlite_engine():
    bad = [rel for rel, tree in api_modules() if not rel.startswith(MAY_IMPORT_ENGINE)
           and any(m == ENGINE or m.startswith(ENGINE + ".") or m.endswith(".SqliteStore")
                   for m in imported(rel, tree))]
    assert bad == []


def test_routes_commands_and_the_recorder_call_the_service_not_the_store():
    # `x.store.append(...)`, `service.store.game(...)`, `store.count(...)`: a store's method called
    # outside the service. (settings.store.db_path is a setting, not a method.)
    bad = []
    for rel, tree in api_modules():
        if rel.startswith(MAY_CALL_STORE):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in STORE_METHODS - {"close"}):
                owner = node.func.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                if name == "store":
                    bad.append(f"{rel}:{node.lineno} store.{node.func.attr}")
    assert bad == []
