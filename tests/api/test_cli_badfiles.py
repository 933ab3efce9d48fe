"""Every bad file the audit used, through the real command line: exit 2, `tilecam <verb>: ...`
naming the file (and for a GCG the line), never a traceback.

The cases run as subprocesses, two at a time, once per module; each case is its own test.
"""
from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from conftest import REPO, shared_data_dir

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

BOARD = ["." * 15] * 15


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]     # after `tilecam`; {d} is the folder of bad files, {real} a real photo
    names: tuple[str, ...]    # what stderr must hold: the file's name, the line, the reason
    code: int = 2


def png_header(width: int, height: int) -> bytes:
    """A valid PNG that declares width x height: a few hundred bytes, gigabytes if decoded."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


def jpeg_declaring(width: int, height: int) -> bytes:
    """A small real JPEG whose frame header is patched to claim width x height."""
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 180, 120)).save(buf, "JPEG")
    data = bytearray(buf.getvalue())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def make_bad_files(d: Path, real: Path) -> None:
    photo = real.read_bytes()
    rng = np.random.default_rng(12)
    (d / "folder.jpg").mkdir()
    (d / "garbage.jpg").write_bytes(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
    (d / "empty.jpg").write_bytes(b"")
    (d / "truncated.jpg").write_bytes(photo[: len(photo) // 2])
    (d / "text.jpg").write_text("a board photo, honest\n")
    (d / "huge.png").write_bytes(png_header(20000, 20000))
    (d / "huge.jpg").write_bytes(jpeg_declaring(9000, 9000))  # under Pillow's own bomb limit
    png = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, (200, 200, 3), dtype=np.uint8)).save(png, "PNG")
    (d / "truncated.png").write_bytes(png.getvalue()[: len(png.getvalue()) // 2])
    (d / "a-file").write_text("not a folder\n")
    # enroll truth files
    good = {"frame": real.name, "board": BOARD}
    (d / "truth-folder.jsonl").mkdir()
    (d / "truth-binary.jsonl").write_bytes(b"\xff\xfe\x00{" + bytes(range(256)))
    (d / "truth-empty.jsonl").write_text("\n\n")
    (d / "truth-notjson.jsonl").write_text(json.dumps(good) + "\n{frame: nope\n")
    (d / "truth-list.jsonl").write_text(json.dumps(good) + "\n[1, 2]\n")
    (d / "truth-string.jsonl").write_text('"image-1.jpg"\n')
    (d / "truth-noboard.jsonl").write_text(json.dumps({"frame": real.name}) + "\n")
    (d / "truth-badboard.jsonl").write_text(json.dumps({"frame": real.name, "board": ["ABC"] * 3}) + "\n")
    (d / "truth-other.jsonl").write_text(json.dumps({"frame": "other.jpg", "board": BOARD}) + "\n")
    (d / "truth-all.jsonl").write_text("".join(json.dumps({"frame": f, "board": BOARD}) + "\n" for f in
                                               [real.name, "missing.jpg", "garbage.jpg", "huge.png"]))
    # locate calibrations
    (d / "calib-binary.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    (d / "calib-list.json").write_text("[[1, 2], [3, 4], [5, 6], [7, 8]]")
    (d / "calib-three.json").write_text(json.dumps({"corners": [[1, 2], [3, 4], [5, 6]]}))
    (d / "calib-strings.json").write_text(json.dumps({"corners": [["a", "b"]] * 4}))
    # GCG records
    (d / "folder.gcg").mkdir()
    (d / "empty.gcg").write_bytes(b"")
    (d / "blank.gcg").write_bytes(b"\n \r\n\t\n")
    (d / "binary.gcg").write_bytes(rng.integers(0, 256, 2048, dtype=np.uint8).tobytes())
    (d / "players-only.gcg").write_text("#player1 a Ann\n#player2 b Bob\n")
    (d / "bigscore.gcg").write_text("#player1 a Ann\n#player2 b Bob\n>a: QUALM 8D QUALM +" + "9" * 4300 + " 52\n")
    (d / "bigtotal.gcg").write_text("#player1 a Ann\n#player2 b Bob\n>a: QUALM 8D QUALM +52 " + "9" * 4300 + "\n")
    (d / "badutf8.gcg").write_bytes(b"#character-encoding UTF-8\n#player1 a Ann\n#player2 b Bo\xff\xfeb\n")
    (d / "bom-badutf8.gcg").write_bytes(b"\xef\xbb\xbf#player1 a Ann\n>a: QUALM 8D QU\xc3ALM +52 52\n")
    (d / "encoding.gcg").write_bytes(b"#character-encoding rot13\n>a: QUALM 8D QUALM +52 52\n")
    (d / "offboard.gcg").write_text("#player1 a A\n#player2 b B\n>a: QUALM 8D QUALM +52 52\n>b: XYZ 9Z XYZ +1 1\n")
    # tile sets and references
    (d / "garbage.npz").write_bytes(rng.integers(0, 256, 1024, dtype=np.uint8).tobytes())
    npz = io.BytesIO()
    np.savez(npz, labels=np.array(["A"] * 500), embeddings=np.zeros((500, 64), np.float32))
    (d / "truncated.npz").write_bytes(npz.getvalue()[: len(npz.getvalue()) // 2])
    # settings
    (d / "binary.toml").write_bytes(b"\x00\xff\xfe[server]\nport = 1\n")
    (d / "list.json").write_text("[1, 2, 3]")


IMAGES = [  # (file, what the message says besides the name)
    ("missing.jpg", "No such file"), ("folder.jpg", "folder"), ("garbage.jpg", "not an image"),
    ("empty.jpg", "empty"), ("truncated.jpg", "truncated"), ("text.jpg", "not an image"),
    ("huge.png", "over 179 megapixels"), ("huge.jpg", "9000x9000 is 81 megapixels"), ("truncated.png", "corrupt PNG"),
]
IMAGE_VERBS = {
    "read": ("read", "{img}", "--prewarped"),
    "locate": ("locate", "{img}"),
    "tile-check": ("enroll", "--tile-check", "{img}", "--out", "{d}/ts.npz", "--prewarped"),
    "empty-board": ("enroll", "--empty-board", "{img}", "--out", "{d}/ref.npz", "--prewarped"),
}
ENROLL_IMAGES = ("enroll", "--images", "{real}", "--truth", "{d}/{truth}", "--out", "{d}/ts.npz", "--prewarped")

CASES = [
    *(Case(f"{verb}-{name}", tuple(a.replace("{img}", f"{{d}}/{name}") for a in argv), (name, why))
      for verb, argv in IMAGE_VERBS.items() for name, why in IMAGES),
    *(Case(f"enroll-images-{name}", ("enroll", "--images", "{real}", f"{{d}}/{name}", "--truth", "{d}/truth-all.jsonl",
                                     "--out", "{d}/ts.npz", "--prewarped"), (name, why))
      for name, why in [("missing.jpg", "no such file"), ("garbage.jpg", "not an image"), ("huge.png", "megapixels")]),
    # outputs that cannot be written: found before the work
    Case("locate-debug-folder", ("locate", "{real}", "--debug", "{d}/folder.jpg"), ("folder.jpg: is a folder",)),
    Case("locate-debug-under-file", ("locate", "{real}", "--debug", "{d}/a-file/grid.png"), ("a-file is not a folder",)),
    Case("locate-debug-not-image", ("locate", "{real}", "--debug", "{d}/grid.txt"), ("grid.txt: not an image type",)),
    Case("enroll-out-folder", ("enroll", "--tile-check", "{real}", "--out", "{d}/folder.jpg"), ("folder.jpg: is a folder",)),
    Case("enroll-out-under-file", ("enroll", "--images", "{real}", "--truth", "{d}/truth-other.jsonl",
                                   "--out", "{d}/a-file/ts.npz"), ("a-file is not a folder",)),
    Case("empty-board-out-under-file", ("enroll", "--empty-board", "{real}", "--out", "{d}/a-file/ref.npz"),
         ("a-file is not a folder",)),
    # enroll truth lines
    *(Case(f"enroll-truth-{t}", tuple(a.replace("{truth}", f"truth-{t}.jsonl") for a in ENROLL_IMAGES), (why,))
      for t, why in [("missing", "truth-missing.jsonl: No such file"), ("folder", "truth-folder.jsonl: Is a directory"),
                     ("binary", "truth-binary.jsonl is not UTF-8"), ("empty", "truth-empty.jsonl: no truth lines"),
                     ("notjson", "truth-notjson.jsonl line 2: not JSON"),
                     ("list", "truth-list.jsonl line 2: expected"), ("string", "truth-string.jsonl line 1: expected"),
                     ("noboard", "truth-noboard.jsonl line 1: expected"),
                     ("badboard", "truth-badboard.jsonl line 1: the board is not 15 rows"),
                     ("other", "truth-other.jsonl has no board for")]),
    # locate calibration files
    *(Case(f"locate-calibration-{c}", ("locate", "{real}", "--calibration", f"{{d}}/{c}"), (why,))
      for c, why in [("missing.json", "missing.json: No such file"), ("folder.gcg", "folder.gcg: Is a directory"),
                     ("calib-binary.json", "calib-binary.json is not a JSON file"),
                     ("calib-list.json", "calib-list.json needs"), ("calib-three.json", "calib-three.json needs"),
                     ("calib-strings.json", "calib-strings.json needs")]),
    Case("locate-corners-nan", ("locate", "{real}", "--corners", "nan,1,2,3,4,5,6,7"), ("finite",)),
    Case("read-corners-inf", ("read", "{real}", "--corners", "1,2,3,4,5,6,7,inf"), ("finite",)),
    # GCG records: the file and the line
    *(Case(f"verify-{g}", ("verify", f"{{d}}/{g}"), (why,))
      for g, why in [("missing.gcg", "missing.gcg: No such file"), ("folder.gcg", "folder.gcg: Is a directory"),
                     ("empty.gcg", "empty.gcg: line 1: empty file"), ("blank.gcg", "blank.gcg: line 1: empty file"),
                     ("binary.gcg", "binary.gcg: line 1: not a GCG line"),
                     ("players-only.gcg", "players-only.gcg: no turns"),
                     ("bigscore.gcg", "bigscore.gcg: line 3: a number of 4300 digits"),
                     ("bigtotal.gcg", "bigtotal.gcg: line 3: a number of 4300 digits"),
                     ("badutf8.gcg", "badutf8.gcg: line 3: not valid UTF-8"),
                     ("bom-badutf8.gcg", "bom-badutf8.gcg: line 2: not valid utf-8"),
                     ("encoding.gcg", "encoding.gcg: line 1: unknown character encoding"),
                     ("offboard.gcg", "offboard.gcg: line 4: coordinate '9Z' is off")]),
    Case("verify-lexicon-missing", ("verify", "{gcg}", "--lexicon", "{d}/missing.txt"), ("missing.txt",)),
    Case("verify-lexicon-folder", ("verify", "{gcg}", "--lexicon", "{d}/folder.gcg"), ("folder.gcg",)),
    # tile sets and empty-board references
    Case("read-tileset-missing", ("read", "{real}", "--prewarped", "--tileset", "{d}/missing.npz"), ("missing.npz",)),
    Case("read-tileset-garbage", ("read", "{real}", "--prewarped", "--tileset", "{d}/garbage.npz"), ("garbage.npz",)),
    Case("read-tileset-truncated", ("read", "{real}", "--prewarped", "--tileset", "{d}/truncated.npz"), ("truncated.npz",)),
    Case("read-empty-ref-garbage", ("read", "{real}", "--prewarped", "--empty-ref", "{d}/garbage.npz"), ("garbage.npz",)),
    # settings
    Case("serve-config-binary", ("serve", "--config", "{d}/binary.toml", "--db", "{d}/x.db"), ("binary.toml: not UTF-8",)),
    Case("serve-config-list", ("serve", "--config", "{d}/list.json", "--db", "{d}/x.db"), ("list.json: a settings file",)),
    Case("serve-config-missing", ("serve", "--config", "{d}/missing.toml", "--db", "{d}/x.db"), ("missing.toml",)),
    Case("serve-db-text", ("serve", "--db", "{d}/a-file"), ("a-file",)),
    Case("serve-db-folder", ("serve", "--db", "{d}/folder.gcg"), ("folder.gcg",)),
]


def run_case(case: Case, d: Path, real: Path, gcg: Path) -> subprocess.CompletedProcess:
    argv = [a.replace("{d}", str(d)).replace("{real}", str(real)).replace("{gcg}", str(gcg)) for a in case.argv]
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", *argv], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, tuple[subprocess.CompletedProcess, Path]]:
    data = shared_data_dir()
    if not data.is_dir():
        pytest.fail(f"shared data not found at {data}")
    real = data / "scrabscrap" / "game06" / "image-1.jpg"
    gcg = data / "gcg" / "liwords" / "vs_josh.gcg"
    d = tmp_path_factory.mktemp("bad")
    make_bad_files(d, real)
    with ThreadPoolExecutor(max_workers=2) as pool:  # the machine has two cores
        done = dict(zip([c.id for c in CASES], pool.map(lambda c: run_case(c, d, real, gcg), CASES)))
    return {k: (v, d) for k, v in done.items()}


def test_ids_are_unique():
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_file(case, results):
    r, d = results[case.id]
    verb = case.argv[0]
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == case.code, (r.returncode, r.stderr)
    assert f"tilecam {verb}: " in r.stderr, r.stderr
    assert all(n.lower() in r.stderr.lower() for n in case.names), r.stderr
    assert r.stdout == "", r.stdout          # nothing half-done on stdout
    assert not (d / "ts.npz").exists() and not (d / "ref.npz").exists()  # nothing written
