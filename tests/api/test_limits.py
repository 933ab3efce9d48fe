"""Bounded input over real HTTP: body sizes per route, evidence frames that really decode,
text fields and query parameters with a length, and every refusal as one `{"detail": str}`."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from tilecam.api import limits as lim
from tilecam.api.schemas import PlayIn
from tilecam.hardware.triggers import Trigger
from apiserver import AUTH, api, client, new_game  # noqa: F401  (fixtures)
from tilecam.scoring.gcg import word_cells
from tilecam.scoring.tiles import DISTRIBUTIONS

JSON = {**AUTH, "Content-Type": "application/json"}


def moves(client, gid):
    return client.get(f"/api/games/{gid}/moves").json()


def jpeg(h: int = 48, w: int = 64) -> bytes:
    rng = np.random.default_rng(7)
    return cv2.imencode(".jpg", rng.integers(0, 255, (h, w, 3), np.uint8))[1].tobytes()


class Upload:
    """A chunked body of `total` bytes that counts what the client managed to send."""

    def __init__(self, total: int, chunk: int = 64 * 1024) -> None:
        self.total, self.chunk, self.sent = total, bytes(chunk), 0

    def __iter__(self):
        while self.sent < self.total:
            self.sent += len(self.chunk)
            yield self.chunk


# ---- body sizes ------------------------------------------------------------------------
def test_limits_body_past_the_route_limit_is_413_and_not_stored(client):
    gid = new_game(client)
    message = "the request body is larger than the 64 KiB this route accepts"
    declared = client.post(f"/api/games/{gid}/passes", content=b" " * (lim.JSON_BYTES + 1), headers=JSON)
    assert declared.status_code == 413 and declared.json() == {"detail": message}
    # No Content-Length: the server counts as it reads, and stops at the limit.
    upload = Upload(50 * lim.MiB)
    chunked = client.post(f"/api/games/{gid}/passes", content=upload, headers=JSON)
    assert chunked.status_code == 413 and chunked.json() == {"detail": message}
    assert upload.sent < 25 * lim.MiB  # the server hung up: the client could not push the 50 MiB
    assert moves(client, gid) == []
    # Just under the limit is read (and refused for what it says, not for its size).
    padded = b'{"note": "x"}' + b" " * (lim.JSON_BYTES - 13)
    r = client.post(f"/api/games/{gid}/passes", content=padded, headers=JSON)
    assert r.status_code == 200 and moves(client, gid)[0]["note"] == "x"


def test_limits_the_largest_legal_body_fits_the_body_limit(client):
    # Every field at its bound, in characters that JSON escapes to 12 bytes each (a surrogate pair).
    emoji = "\U0001F600"
    meta = {f"{i:02d}".ljust(lim.META_KEY_CHARS, "k"): emoji * lim.META_VALUE_CHARS for i in range(lim.META_KEYS)}
    players = [{"name": emoji * lim.NAME_CHARS, "nick": f"{i}" + emoji * (lim.NICK_CHARS - 1)} for i in range(2)]
    body = json.dumps({"players": players, "meta": meta, "rules": "naspa"}).encode()
    assert 40 * lim.KiB < len(body) < lim.JSON_BYTES
    r = client.post("/api/games", content=body, headers=JSON)
    assert r.status_code == 201 and r.json()["meta"]["00" + "k" * 30] == emoji * lim.META_VALUE_CHARS


def test_limits_each_route_has_its_own_body_limit(client):
    gid = new_game(client)
    assert lim.limit_for("PUT", f"/api/games/{gid}/moves/0/frame.jpg") == lim.FRAME_BYTES
    assert lim.limit_for("POST", "/api/games/gcg") == lim.GCG_BYTES
    assert lim.limit_for("POST", f"/api/games/{gid}/plays") == lim.JSON_BYTES
    r = client.post("/api/games/gcg", content=b"#" * (lim.GCG_BYTES + 1),
                    headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 413 and "64 KiB" in r.json()["detail"]
    # 100 KiB is too much for a play but well within a frame's 8 MiB: the frame route reads it,
    # then refuses it for not being a JPEG.
    client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
    r = client.put(f"/api/games/{gid}/moves/0/frame.jpg", content=b"\xff\xd8" + b"x" * 100_000, headers=AUTH)
    assert r.status_code == 422
    r = client.put(f"/api/games/{gid}/moves/0/frame.jpg", content=Upload(lim.FRAME_BYTES + 1), headers=AUTH)
    assert r.status_code == 413 and "8 MiB" in r.json()["detail"]


# ---- evidence frames ----------------------------------------------------------------------
def test_limits_frames_must_decode_within_the_pixel_cap(client):
    gid = new_game(client)
    client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
    url = f"/api/games/{gid}/moves/0/frame.jpg"
    good = jpeg()
    assert client.put(url, content=good, headers=AUTH).status_code == 204
    # A header that declares 5000x5000 (25 MP) in a few hundred bytes: refused before decoding.
    small = bytearray(jpeg(8, 8))
    sof = small.find(b"\xff\xc0")
    small[sof + 5:sof + 9] = (5000).to_bytes(2, "big") * 2
    png = cv2.imencode(".png", np.zeros((8, 8, 3), np.uint8))[1].tobytes()
    for body, message in [(bytes(small), "5000x5000 is 25 megapixels, over the cap of 16"),
                          (good[: len(good) // 2], "truncated JPEG"),
                          (b"\xff\xd8" + b"\x00" * 5000, "not an image"),
                          (png, "a PNG image, not a JPEG"),
                          (b"", "not an image")]:
        r = client.put(url, content=body, headers=AUTH)
        assert r.status_code == 422 and message in r.json()["detail"], (message, r.text)
    assert client.get(url).content == good  # nothing refused replaced it


# ---- text fields and query parameters ------------------------------------------------------
def test_limits_word_bound_fits_the_longest_notation():
    # Super Scrabble's 21 squares in Catalan, every tile a bracketed L·L, blanks in between, and a
    # played-through run at every other square: the longest play notation there is.
    worst = "([L·L])[l·l]" * (lim.MAX_SIDE // 2) + "([L·L])"
    assert len(worst) == lim.WORD_CHARS == 127
    assert len(word_cells(worst, DISTRIBUTIONS["ca"])) == lim.MAX_SIDE
    assert PlayIn(position="A1", word=worst).word == worst
    with pytest.raises(ValueError, match="at most 127 characters"):
        PlayIn(position="A1", word=worst + "A")


@pytest.mark.parametrize("path, body, message", [
    ("plays", {"position": "8H", "word": "Q" * (lim.WORD_CHARS + 1)}, "body.word: String should have at most 127"),
    ("plays", {"position": "8H" * 5, "word": "QAT"}, "body.position: String should have at most 8"),
    ("plays", {"position": "8H", "word": "QAT", "rack": "A" * 36}, "body.rack: String should have at most 35"),
    ("passes", {"note": "n" * (lim.NOTE_CHARS + 1)}, "body.note: String should have at most 2000"),
    ("exchanges", {"tiles": "?" * 36}, "body.tiles: String should have at most 35"),
    ("end", {"reason": "r" * 501}, "body.reason: String should have at most 500"),
    ("end", {"racks": ["A"] * 101}, "body.racks: List should have at most 100 items"),
    ("challenges", {"outcome": "valid", "words": 23}, "body.words: Input should be less than or equal to 22"),
    ("time-penalties", {"player": 10**40, "minutes": 1}, "body.player: Input should be less than or equal to 99"),
    ("recount", {"player": 0, "cumulative": [1] * 501}, "body.cumulative: List should have at most 500 items"),
    ("moves/0/corrections", {"kind": "pass", "reason": "r" * 501}, "body.pass.reason: String should have at most"),
    ("moves/0/corrections", {"kind": "blank", "square": "8H", "letter": "QQQQ"}, "body.blank.letter"),
])
def test_limits_text_and_numbers_are_bounded(client, path, body, message):
    gid = new_game(client)
    r = client.post(f"/api/games/{gid}/{path}", json=body, headers=AUTH)
    assert r.status_code == 422 and message in r.json()["detail"], r.text
    assert moves(client, gid) == []


@pytest.mark.parametrize("path, body, field", [
    ("time-penalties", {"minutes": False, "player": 0}, "body.minutes"),
    ("time-penalties", {"minutes": 1, "player": True}, "body.player"),
    ("time-penalties", {"minutes": "1", "player": 0}, "body.minutes"),
    ("challenges", {"outcome": "valid", "challenger": True}, "body.challenger"),
    ("challenges", {"outcome": "valid", "words": True}, "body.words"),
    ("plays", {"position": "8H", "word": "QAT", "player": False}, "body.player"),
    ("plays", {"position": "8H", "word": "QAT", "claimed": True}, "body.claimed"),
    ("passes", {"player": True}, "body.player"),
    ("exchanges", {"count": True}, "body.count"),
    ("recount", {"player": 0, "cumulative": [True]}, "body.cumulative.0"),
    ("moves/0/corrections", {"kind": "score", "agreed": True}, "body.score.agreed"),
    ("moves/0/corrections", {"kind": "exchange", "count": True}, "body.exchange.count"),
    ("moves/0/void", {"seq": False}, "body.seq"),
    ("clock", {"minutes": True}, "body.minutes"),
    ("clock/press", {"player": False}, "body.player"),
])
def test_limits_a_json_boolean_or_text_is_no_integer(client, path, body, field):
    """true is not 1 and "1" is not 1 (pydantic's lax mode takes both): a 422 naming the field."""
    gid = new_game(client)
    r = client.post(f"/api/games/{gid}/{path}", json=body, headers=AUTH)
    assert r.status_code == 422 and r.json()["detail"].startswith(field) and "integer" in r.json()["detail"], r.text
    assert moves(client, gid) == []


def test_limits_a_boolean_is_no_table_and_no_seat(client):
    r = client.post("/api/games", json={"players": [{"name": "A"}, {"name": "B"}], "table": True}, headers=AUTH)
    assert r.status_code == 422 and r.json()["detail"].startswith("body.table"), r.text
    with pytest.raises(ValueError, match="player must be 0 to"):
        Trigger.from_dict({"kind": "turn_end", "player": True}, seats=4)


def test_limits_a_note_at_the_bound_is_kept_and_served(client):
    gid = new_game(client)
    note = "é" * lim.NOTE_CHARS  # 2,000 characters, 4,000 bytes of UTF-8
    assert client.post(f"/api/games/{gid}/passes", json={"note": note}, headers=AUTH).status_code == 200
    assert moves(client, gid)[0]["note"] == note


@pytest.mark.parametrize("players, message", [
    ([{"name": "Ann\u2028#player1 evil"}, {"name": "Bo"}], "body.players.0.name: String should match pattern"),
    ([{"name": "Ann", "nick": "a:b"}, {"name": "Bo"}], "body.players.0.nick: String should match pattern"),
    ([{"name": "A" * 81}, {"name": "Bo"}], "body.players.0.name: String should have at most 80"),
])
def test_limits_names_are_one_bounded_line(client, players, message):
    r = client.post("/api/games", json={"players": players}, headers=AUTH)
    assert r.status_code == 422 and message in r.json()["detail"], r.text


def test_limits_game_meta_is_bounded(client):
    players = [{"name": "A"}, {"name": "B"}]
    many = {f"k{i}": "v" for i in range(lim.META_KEYS + 1)}
    r = client.post("/api/games", json={"players": players, "meta": many}, headers=AUTH)
    assert r.status_code == 422 and "body.meta: Dictionary should have at most 16 items" in r.json()["detail"]
    r = client.post("/api/games", json={"players": players, "meta": {"title": "t" * 201}}, headers=AUTH)
    assert r.status_code == 422 and "body.meta.title" in r.json()["detail"]


def test_limits_query_parameters_are_bounded(client):
    gid = new_game(client)
    r = client.get(f"/api/games/{gid}/unseen", params={"rack": "A" * 36})
    assert r.status_code == 422 and "query.rack: String should have at most 35" in r.json()["detail"]
    r = client.get(f"/api/games/{gid}/board", params={"turn": 10**30})
    assert r.status_code == 422 and "query.turn: Input should be less than or equal to 10000" in r.json()["detail"]
    r = client.post("/api/games/gcg", params={"rules": "n" * 33}, content=b"#player1 a A\n",
                    headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 422 and "query.rules" in r.json()["detail"]


def test_limits_gcg_import_is_bounded_in_turns(client):
    head = "#player1 a Ann\n#player2 b Bob\n"
    turns = "".join(f">{'ab'[i % 2]}: ABCDEFG (time) -10 {-10 * (i // 2 + 1)}\n" for i in range(lim.GCG_TURNS + 1))
    r = client.post("/api/games/gcg", content=(head + turns).encode(),
                    headers={**AUTH, "Content-Type": "text/plain"})
    assert r.status_code == 422
    assert r.json()["detail"] == "the GCG has 201 turns; a game of at most 200 is accepted"


# ---- the shape of a refusal ---------------------------------------------------------------
def test_limits_validation_errors_are_one_message(client):
    gid = new_game(client)
    r = client.get("/api/games/abc")
    assert r.status_code == 422
    assert r.json() == {"detail": "path.game_id: Input should be a valid integer, unable to parse string as an "
                                  "integer"}
    r = client.post(f"/api/games/{gid}/plays", content=b'{"position": "8H",', headers=JSON)
    assert r.status_code == 422 and "JSON" in r.json()["detail"]
    # Many errors: the first five, and how many more.
    body = {"players": [{"name": "", "nick": "a b", "x": 1}] * 2, "rules": 5, "lang": 6, "layout": 7}
    detail = client.post("/api/games", json=body, headers=AUTH).json()["detail"]
    assert detail.split(": ")[0] == "body.players.0.name"   # the first error names its field
    assert detail.count("; ") == 5 and detail.endswith("; and 4 more")
