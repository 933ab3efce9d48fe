"""What the app answers whatever the route, over real HTTP: a method a path does not take (405 with
every method it does take in Allow), and the favicon every page asks for."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from apiserver import api, client, new_game  # noqa: F401  (fixtures)


@pytest.mark.parametrize("method, path, allow", [
    ("DELETE", "/api/games", "GET, POST"),          # two routes on one path: Starlette named the first's only
    ("PATCH", "/api/games/{gid}/clock", "POST"),
    ("DELETE", "/api/games/{gid}/players", "PUT"),
    ("POST", "/tournament", "GET"),
])
def test_a_405_lists_every_method_the_path_takes(client, method, path, allow):
    gid = new_game(client)
    url = path.format(gid=gid)
    r = client.request(method, url)
    assert r.status_code == 405, r.text
    assert r.headers["allow"] == allow
    assert r.json()["detail"] == f"{method} is not allowed on {url}; it takes {allow}"
    for other in allow.split(", "):  # each method named is taken (an answer other than 405)
        assert client.request(other, url, json={}).status_code != 405, other


def test_other_http_errors_keep_fastapi_s_answer(client):
    r = client.get("/no/such/page")
    assert r.status_code == 404 and r.json() == {"detail": "Not Found"}


def test_the_favicon_every_page_asks_for_is_served(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"] == "image/x-icon"
    icon = Image.open(io.BytesIO(r.content))
    assert icon.format == "ICO" and icon.size[0] >= 16
