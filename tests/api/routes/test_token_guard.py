"""One guard on every route that reads an operator token (issue 35), over real HTTP.

The routes are found by introspection (every route whose dependencies include
`deps.token_holder`), so a new route that reads a token is covered without a line here: a wrong
token is refused (401) and counted toward the address's back-off, after which even the right
token waits (429) on that route; never a quiet 200 that would answer a guess yes or no."""
from __future__ import annotations

import re

import httpx
import pytest
from fastapi.routing import APIRoute

from tilecam.api.deps import token_holder
from tilecam.api.security import TokenGuard

from apiserver import AUTH, LiveServer

WRONG = {"Authorization": "Bearer wrong-token-wrong-token"}


def reads_token(dependant) -> bool:
    return any(d.call is token_holder or reads_token(d) for d in dependant.dependencies)


def token_routes(app) -> list[tuple[str, str]]:
    """(method, path) of every route that reads a token (the app's own list nests the routers:
    `http_routes` is every route, as the 405's Allow reads them)."""
    return sorted({(method, r.path) for r in app.state.http_routes
                   if isinstance(r, APIRoute) and reads_token(r.dependant) for method in r.methods})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LiveServer(tmp_path_factory.mktemp("guard") / "games.sqlite3") as s, \
            httpx.Client(base_url=s.url, timeout=10) as c:
        s.gid = c.post("/api/games", json={"players": [{"name": "Ann"}, {"name": "Ben"}], "meta": {"table": "9"}},
                       headers=AUTH).json()["id"]
        yield s


# Values for the path parameters, by name: a game and a table that exist, a field that does.
PARAMS = {"game_id": None, "table": "9", "field": "rack1", "seq": "0", "index": "0",
          "station": "desk-1", "uid": "0" * 32}


def url_of(path: str, gid: int) -> str:
    return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: str(gid) if m[1] == "game_id" else PARAMS[m[1]], path)


def test_the_routes_that_read_a_token_are_found():
    from tilecam.api.app import create_app
    from tilecam.api.settings import Settings
    found = {p for _, p in token_routes(create_app(Settings()))}
    # the reads that show more to an operator, and the writes
    for path in ("/api/games/{game_id}/live", "/api/games/{game_id}/fields", "/api/games/{game_id}/fields/{field}",
                 "/api/games/{game_id}/moves", "/api/games/{game_id}/events", "/api/games/{game_id}.gcg",
                 "/api/games/{game_id}.json", "/api/games/{game_id}/racks/{seq}/frame.jpg",
                 "/api/tables/{table}/live", "/api/games", "/api/token"):
        assert path in found, path


def _route_ids():
    from tilecam.api.app import create_app
    from tilecam.api.settings import Settings
    return token_routes(create_app(Settings()))


@pytest.mark.parametrize("method, path", _route_ids())
def test_a_wrong_token_is_refused_and_counted_on_every_route_that_reads_one(server, method, path):
    server.app.state.guard = TokenGuard(max_failures=1, initial_s=30.0, max_s=60.0)
    url = url_of(path, server.gid)
    with httpx.Client(base_url=server.url, timeout=10) as c:
        with c.stream(method, url, headers=WRONG) as r:
            assert r.status_code == 401, (method, url, r.status_code)
            assert r.headers["www-authenticate"] == "Bearer"
        # counted: the address is in back-off, and even the right token waits here
        with c.stream(method, url, headers=AUTH) as r:
            assert r.status_code == 429 and int(r.headers["retry-after"]) > 0, (method, url, r.status_code)
    server.app.state.guard = TokenGuard(max_failures=5, initial_s=1.0, max_s=60.0)


def test_guesses_on_reads_share_the_writes_back_off_and_no_token_is_the_public_view(server):
    server.app.state.guard = TokenGuard(max_failures=3, initial_s=30.0, max_s=60.0)
    gid = server.gid
    with httpx.Client(base_url=server.url, timeout=10) as c:
        assert c.get(f"/api/games/{gid}/fields/rack2", headers=WRONG).status_code == 401
        assert c.get(f"/api/games/{gid}/live", headers=WRONG).status_code == 401
        assert c.post("/api/games", json={"players": [{"name": "A"}, {"name": "B"}]},
                      headers=WRONG).status_code == 401
        # three wrong tokens, on reads and a write: in back-off everywhere, whatever the token
        for url in (f"/api/games/{gid}/moves", f"/api/games/{gid}/fields/rack2", "/api/token"):
            assert c.get(url, headers=AUTH).status_code == 429, url
        # no token: the public view, neither counted nor held up
        for _ in range(5):
            assert c.get(f"/api/games/{gid}/fields/rack2").status_code == 200
            assert c.get(f"/api/games/{gid}/live").status_code == 200
    server.app.state.guard = TokenGuard(max_failures=5, initial_s=1.0, max_s=60.0)
