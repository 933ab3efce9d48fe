"""api/routes/pages.py over real HTTP: the recount and the replay of a game that exists (an unknown
game is a 404 with its message, never an empty page). /tournament and its filters:
tests/api/service/test_tournament.py; the favicon: tests/api/test_app_http.py."""
from __future__ import annotations

import pytest

from apiserver import api, client, new_game  # noqa: F401  (fixtures)


@pytest.mark.parametrize("page, marker", [("recount", "recount.js"), ("replay", "replay.js")])
def test_a_game_s_page_is_served_only_for_a_game_that_exists(client, page, marker):
    gid = new_game(client)
    r = client.get(f"/{page}/{gid}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html") and marker in r.text
    missing = client.get(f"/{page}/{gid + 1000}")
    assert missing.status_code == 404 and str(gid + 1000) in missing.json()["detail"]
    assert client.get(f"/{page}/abc").status_code == 422
