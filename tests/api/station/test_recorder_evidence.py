"""Evidence photos: the recorder keeps each frame's grid corners, and the frame comes back rectified
to the board (the move's new tiles outlined) or raw; a frame without corners says so."""
from __future__ import annotations

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from tilecam.api.app import create_app
from tilecam.api.bus import Bus
from tilecam.api.station.link import GameLink
from tilecam.vision.draw import BOARD_PX, CAPTION_PX, GRID_ORIGIN, NEW_TILE_BGR
from tilecam.api.service import GameService
from tilecam.api.settings import AuthSettings, Settings, StoreSettings
from tilecam.api.store import open_store
from tilecam.vision import load_tile_reader
from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.tiles import DISTRIBUTIONS
from tilecam.scoring.gcg import read_gcg, record_from_gcg
from test_recorder import make_recorder, video_frames

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

TOKEN = "evidence-test-token-1234"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def first_boards(shared_data, plays: int) -> list[list[str]]:
    """The board before and after each of the first plays of a real shared game (no blank in them)."""
    profile, dist = get_profile("naspa"), DISTRIBUTIONS["en"]
    gcg = read_gcg((shared_data / "gcg" / "liwords" / "r20_peter.gcg").read_bytes())
    record, _, _ = record_from_gcg(gcg, profile, dist)
    return [Game(profile, dist, players=2, events=record.events[:i]).state.board.rows() for i in range(plays + 1)]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, shared_data):
    """Two plays recorded from rendered video into a store, served by the app."""
    frames, _ = video_frames(first_boards(shared_data, 2))
    db = tmp_path_factory.mktemp("evidence") / "ev.sqlite3"
    service = GameService(open_store(db), Bus())
    gid = service.create_game([("Ann", None), ("Bob", None)], "naspa", "en").id
    recorder = make_recorder(Scorekeeper(Game(get_profile("naspa"), DISTRIBUTIONS["en"])), GameLink(service, gid))
    for f in frames:
        recorder.process(f)
    app = create_app(Settings(store=StoreSettings(db_path=str(db)), auth=AuthSettings(tokens={"t": TOKEN})),
                     service=service)
    with TestClient(app) as client:
        yield client, service, gid


def decode(body: bytes) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def test_the_sidecar_keeps_the_grid_corners_of_each_evidence_frame(recorded):
    _, service, gid = recorded
    sides = [e.sidecar for e in service.store.entries(gid)]
    assert len(sides) == 2
    for side in sides:
        corners = np.array(side["corners"])
        assert corners.shape == (4, 2)
        # inside the 960x720 frame and spanning most of it (the board fills 85-92% of the view)
        assert (corners >= -5).all() and (corners[:, 0] <= 965).all() and (corners[:, 1] <= 725).all()
        assert cv2.contourArea(corners.astype(np.float32)) > 0.3 * 960 * 720


def test_the_rectified_frame_is_the_board_as_it_reads_with_the_new_tiles_outlined(recorded):
    client, service, gid = recorded
    view = service.load(gid)
    raw = client.get(f"/api/games/{gid}/moves/1/frame.jpg")
    assert raw.status_code == 200 and decode(raw.content).shape[:2] == (720, 960)
    r = client.get(f"/api/games/{gid}/moves/1/frame.jpg", params={"view": "board"})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "image/jpeg"
    view_px = decode(r.content)
    # the grid with photo round it and a coordinate band outside that, a caption line below
    side = 15 * BOARD_PX + 2 * GRID_ORIGIN
    assert view_px.shape[:2] == (side + CAPTION_PX, side)
    board = view_px[GRID_ORIGIN:GRID_ORIGIN + 15 * BOARD_PX, GRID_ORIGIN:GRID_ORIGIN + 15 * BOARD_PX]

    # The tiles of move 0 are not drawn on in move 1's view: the reader must find them where the
    # game has them, in the game's orientation (a wrong corner order would turn or mirror them).
    rows = view.game_at(2).state.board.rows()
    old = [(t.square.row, t.square.col) for t in view.events[0].placement.tiles]
    square_px = 40
    snap = load_tile_reader(Settings(), "en").read(cv2.resize(board, (15 * square_px, 15 * square_px),
                                                              interpolation=cv2.INTER_AREA)).snapshot
    read = snap.board()
    for r_, c in old:
        assert read[r_][c].upper() == rows[r_][c].upper(), (r_, c, read[r_][c], rows[r_][c])
    assert read[0][0] == "." and read[14][14] == "."

    # Each new tile of move 1 has its outline: the left edge of its square is the outline colour.
    new = view.events[1].placement.tiles
    assert new
    for t in new:
        if t.blank:
            continue
        x, y = t.square.col * BOARD_PX + 2, t.square.row * BOARD_PX + BOARD_PX // 2
        assert np.abs(board[y, x].astype(int) - NEW_TILE_BGR).max() < 60, (t, board[y, x])


def test_a_frame_without_corners_has_no_board_view_but_its_raw_frame_stays(recorded, tmp_path):
    client, service, gid = recorded
    ok, buf = cv2.imencode(".jpg", np.full((60, 80, 3), 128, np.uint8))
    other = service.create_game([("Cy", None), ("Di", None)], "naspa", "en").id
    r = client.post(f"/api/games/{other}/plays", headers=AUTH, json={"position": "8F", "word": "CAT"})
    assert r.status_code == 200, r.text
    assert client.put(f"/api/games/{other}/moves/0/frame.jpg", content=buf.tobytes(),
                      headers={**AUTH, "Content-Type": "image/jpeg"}).status_code == 204
    r = client.get(f"/api/games/{other}/moves/0/frame.jpg", params={"view": "board"})
    assert r.status_code == 422 and "no grid corners" in r.json()["detail"]
    assert client.get(f"/api/games/{other}/moves/0/frame.jpg").content == buf.tobytes()
    # a move with no frame at all, and a view that does not exist: 4xx with a message
    r = client.post(f"/api/games/{other}/plays", headers=AUTH, json={"position": "H7", "word": "A.E"})
    assert r.status_code == 200, r.text
    r = client.get(f"/api/games/{other}/moves/1/frame.jpg", params={"view": "board"})
    assert r.status_code == 404 and "no evidence frame" in r.json()["detail"]
    r = client.get(f"/api/games/{gid}/moves/0/frame.jpg", params={"view": "sideways"})
    assert r.status_code == 422 and "view" in r.json()["detail"]
