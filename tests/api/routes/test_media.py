"""Media over real HTTP: evidence frames per move, and the MJPEG preview encoded once for all viewers."""
from __future__ import annotations

import threading

import cv2
import httpx
import numpy as np

from tilecam.api.bus import PreviewHub
from apiserver import AUTH, api, client, new_game, wait_for  # noqa: F401  (fixtures)


def jpeg(colour: tuple[int, int, int]) -> bytes:
    img = np.full((48, 64, 3), colour, np.uint8)
    return cv2.imencode(".jpg", img)[1].tobytes()


def test_media_frame_missing_is_404_with_a_message(client):
    gid = new_game(client)
    client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
    r = client.get(f"/api/games/{gid}/moves/0/frame.jpg")
    assert r.status_code == 404 and "no evidence frame for entry 0" in r.json()["detail"]
    r = client.get(f"/api/games/{gid}/moves/3/frame.jpg")
    assert r.status_code == 404 and "has no move 4 (index 3)" in r.json()["detail"]  # numbered from 1


def test_media_frame_stored_and_served(client):
    gid = new_game(client)
    client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
    body = jpeg((0, 128, 255))
    assert client.put(f"/api/games/{gid}/moves/0/frame.jpg", content=body).status_code == 401
    r = client.put(f"/api/games/{gid}/moves/0/frame.jpg", content=b"GIF89a", headers=AUTH)
    assert r.status_code == 422 and "not an image" in r.json()["detail"]
    assert client.put(f"/api/games/{gid}/moves/0/frame.jpg", content=body, headers=AUTH).status_code == 204
    r = client.get(f"/api/games/{gid}/moves/0/frame.jpg")
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg" and r.content == body
    assert client.get(f"/api/games/{gid}/moves").json()[0]["frame"] is True


def test_media_frame_by_path_from_the_recorder(api, client, tmp_path):
    gid = new_game(client)
    client.post(f"/api/games/{gid}/plays", json={"position": "8H", "word": "ZAX"}, headers=AUTH)
    path = tmp_path / "frame-0001.jpg"
    path.write_bytes(jpeg((255, 0, 0)))
    api.service.put_frame(gid, 0, path=str(path))  # what the recorder calls
    assert client.get(f"/api/games/{gid}/moves/0/frame.jpg").content == path.read_bytes()
    path.unlink()
    r = client.get(f"/api/games/{gid}/moves/0/frame.jpg")
    assert r.status_code == 404 and "which is gone" in r.json()["detail"]


class MjpegReader:
    """Reads JPEG parts off a multipart/x-mixed-replace stream in a thread."""

    def __init__(self, url: str) -> None:
        self.parts: list[bytes] = []
        self.content_type = ""
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=None))
        self.thread = threading.Thread(target=self._run, args=(url,), daemon=True)
        self.thread.start()

    def _run(self, url: str) -> None:
        buf = b""
        try:
            with self._client.stream("GET", url) as r:
                self.content_type = r.headers["content-type"]
                for chunk in r.iter_bytes():
                    buf += chunk
                    while (start := buf.find(b"\xff\xd8")) >= 0 and (end := buf.find(b"\xff\xd9", start)) >= 0:
                        self.parts.append(buf[start:end + 2])
                        buf = buf[end + 2:]
        except httpx.HTTPError:
            pass

    def close(self) -> None:
        self._client.close()


def test_media_mjpeg_preview_encodes_once_for_every_viewer(api, client):
    preview = api.app.state.preview
    assert client.get("/api/preview.jpg").status_code in (200, 404)
    viewers = [MjpegReader(f"{api.url}/api/preview.mjpg") for _ in range(3)]
    try:
        wait_for(lambda: preview.viewers == 3)
        encoded = preview.encoded
        frame = np.zeros((120, 160, 3), np.uint8)
        cv2.putText(frame, "8H", (20, 70), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 255, 0), 2)
        assert preview.publish(frame)  # as the recorder does, from its own thread
        wait_for(lambda: all(v.parts for v in viewers))
        assert preview.encoded == encoded + 1
        assert viewers[0].content_type.startswith("multipart/x-mixed-replace; boundary=")
        decoded = cv2.imdecode(np.frombuffer(viewers[1].parts[0], np.uint8), cv2.IMREAD_COLOR)
        assert decoded.shape == (120, 160, 3)
        r = client.get("/api/preview.jpg")
        assert r.status_code == 200 and r.content == viewers[2].parts[0]
    finally:
        for v in viewers:
            v.close()


def test_media_preview_skips_encoding_without_viewers():
    preview = PreviewHub()
    assert preview.publish(np.zeros((8, 8, 3), np.uint8)) is False
    assert preview.encoded == 0 and preview.latest() == (0, None)


def test_the_routes_touch_no_pixels():
    """Decoding, warping and drawing a frame are vision's (vision.draw, vision.rectify): the web's
    routes import neither OpenCV nor numpy."""
    import ast
    from pathlib import Path

    import tilecam.api.routes as routes
    found = []
    for path in sorted(Path(routes.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        found += [f"{path.name} imports {m}" for m in sorted(names) if m.split(".")[0] in ("cv2", "numpy")]
    assert not found, found
