"""FolderSource and open_source against images written to tmp_path."""
from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from tilecam.capture import CaptureConfig, CaptureError, Frame, FrameSource, SourceEnded, open_source
from tilecam.capture.folder import FolderSource, natural_key


def write_images(folder: Path, names: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(names):
        image = np.full((24, 32, 3), (i * 20) % 256, np.uint8)
        image[0, 0] = (1, 2, 3)     # a BGR marker that must survive the round trip
        assert cv2.imwrite(str(folder / name), image)


def test_natural_sort_orders_numbers_by_value():
    names = ["image-10.png", "image-2.png", "image-1.png", "board-01.png", "board-00a.png",
             "board-00.png", "board-00b.png", "Image-3.jpg"]
    ordered = [p.name for p in sorted((Path(n) for n in names), key=natural_key)]
    assert ordered == ["board-00.png", "board-00a.png", "board-00b.png", "board-01.png",
                       "image-1.png", "image-2.png", "Image-3.jpg", "image-10.png"]


def test_folder_frames_in_natural_order_with_timestamps(tmp_path):
    write_images(tmp_path, ["image-10.png", "image-2.png", "image-1.jpg", "notes.txt.png"][:3])
    (tmp_path / "notes.txt").write_text("not an image")
    with open_source(str(tmp_path), CaptureConfig(fps=4)) as source:
        assert isinstance(source, FolderSource) and isinstance(source, FrameSource)
        assert source.total_frames == 3 and source.status.state == "connected"
        frames = list(source)
        assert source.status.state == "ended"
    assert [Path(f.path).name for f in frames] == ["image-1.jpg", "image-2.png", "image-10.png"]
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.t for f in frames] == [0.0, 0.25, 0.5]
    assert all(f.image.shape == (24, 32, 3) and f.image.dtype == np.uint8 for f in frames)
    assert tuple(frames[1].image[0, 0]) == (1, 2, 3)
    assert frames[0].source == str(tmp_path)


def test_unreadable_files_are_skipped_and_counted(tmp_path):
    write_images(tmp_path, ["f-1.png", "f-3.png"])
    (tmp_path / "f-2.png").write_bytes(b"truncated")
    source = FolderSource(tmp_path, CaptureConfig(fps=1))
    with source:
        frames = list(source)
        with pytest.raises(SourceEnded):
            source.read()
    assert source.skipped == 1
    # The index and timestamp keep the file numbering, so timing is not shifted by the gap.
    assert [(f.index, f.t) for f in frames] == [(0, 0.0), (2, 2.0)]
    assert source.status.state == "ended" and "1 skipped" in source.status.message


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that promises width x height pixels in a few bytes (IHDR, an empty IDAT, IEND)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", b"") + chunk(b"IEND", b""))


def test_images_over_the_pixel_cap_are_skipped_before_decoding(tmp_path, caplog):
    write_images(tmp_path, ["f-1.png", "f-3.png"])
    (tmp_path / "f-2.png").write_bytes(png_header_only(10000, 10000))
    with FolderSource(tmp_path) as source:
        frames = list(source)
    assert [f.index for f in frames] == [0, 2] and source.skipped == 1
    assert "10000x10000" in caplog.text and "f-2.png" in caplog.text


def test_a_single_image_plays_as_a_folder_of_one(tmp_path):
    write_images(tmp_path, ["board.jpg"])
    with open_source(str(tmp_path / "board.jpg")) as source:
        assert isinstance(source, FolderSource) and source.total_frames == 1
        frames = list(source)
    assert len(frames) == 1 and frames[0].image.shape == (24, 32, 3)
    assert frames[0].path == str(tmp_path / "board.jpg")


def test_a_single_bad_image_is_an_error_not_an_empty_game(tmp_path):
    huge = tmp_path / "huge.png"
    huge.write_bytes(png_header_only(10000, 10000))
    text = tmp_path / "notes.jpg"
    text.write_text("not an image")
    for path, reason in ((huge, "megapixels"), (text, "not an image")):
        with open_source(str(path)) as source:
            with pytest.raises(CaptureError, match=reason):
                source.read()
            assert source.status.state == "failed"


def test_grey_and_alpha_images_become_bgr(tmp_path):
    cv2.imwrite(str(tmp_path / "a-1.png"), np.full((8, 8), 77, np.uint8))
    cv2.imwrite(str(tmp_path / "a-2.png"), np.full((8, 8, 4), 99, np.uint8))
    with FolderSource(tmp_path) as source:
        images = [f.image for f in source]
    assert [im.shape for im in images] == [(8, 8, 3), (8, 8, 3)]


def test_empty_folder_ends_at_once(tmp_path):
    with FolderSource(tmp_path) as source:
        assert list(source) == []
        assert source.total_frames == 0


def test_open_source_errors_name_the_problem(tmp_path, monkeypatch):
    with pytest.raises(CaptureError, match="no such file, folder or camera"):
        open_source(str(tmp_path / "missing"))
    with pytest.raises(CaptureError, match="unsupported stream scheme 'ftp'"):
        open_source("ftp://user:secret@host/x")


def test_picamera_missing_gives_install_instructions(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)   # import picamera2 now raises ImportError
    seen = []
    with pytest.raises(CaptureError) as info:
        open_source("picam", CaptureConfig(), on_status=seen.append)
    message = str(info.value)
    assert "python3-picamera2" in message and "--system-site-packages" in message
    assert seen[-1].state == "failed"


def test_frame_rejects_non_bgr_images():
    with pytest.raises(ValueError):
        Frame(np.zeros((4, 4), np.uint8), 0.0, 0)
    with pytest.raises(ValueError):
        Frame(np.zeros((4, 4, 3), np.float32), 0.0, 0)


def test_config_forbids_unknown_keys_and_checks_backoff():
    with pytest.raises(ValueError, match="fsp"):
        CaptureConfig(fsp=5)
    with pytest.raises(ValueError, match="reconnect_max_s"):
        CaptureConfig(reconnect_initial_s=5, reconnect_max_s=1)
    assert all(f.description for f in CaptureConfig.model_fields.values())
