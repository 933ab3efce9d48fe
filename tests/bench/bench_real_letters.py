"""Every real frame of every language, read by the product's reader, against a committed baseline of
which squares were right (issue 44): a reader rule tuned on one set must not break another.

    .venv/bin/python tests/bench/bench_real_letters.py              # compare; exit 1 on a square lost
    .venv/bin/python tests/bench/bench_real_letters.py --write-baseline   # after a reviewed change

The real sets (../shared/data, or $TILECAM_SHARED_DATA): the 126 ScrabScrap frames of 5 German games
(overhead Pi camera; grids as bench_read.py finds them: pre-warped boards fitted, game05's board
corners from its game.ini, game12 through vision.locate), each game's frames in order through one
reader (the recogniser's per-square cache lives as long as a game, as in the recorder); and the 53
English phone photos (two editions) warped with their labelled corners, each read afresh (as
bench_english.py's "true corners, plain"). The reader is the one the recorder builds
(vision.load_tile_reader, default settings), no enrolment.

The baseline (docs/results/real_letters_baseline.json) holds, per frame, the 225 squares as read when
it was written; a square is right when it equals the truth. The check fails on any square right in
the baseline and wrong now, and names each (set, frame, square, truth, read now); squares that
became right are reported, not failures. Only ``--write-baseline`` writes it: run the check before
every vision commit (tests/vision/test_reader_real_letters.py runs it in ``make test``), and write the
baseline only when every square it lists as lost is understood and accepted.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_read import git_commit, load_frames  # noqa: E402

BASELINE = REPO / "docs" / "results" / "real_letters_baseline.json"
GERMAN_GAMES = ("game05", "game06", "game07", "game08", "game12")
COLS = "ABCDEFGHIJKLMNO"


def shared_data() -> Path:
    import os
    env = os.environ.get("TILECAM_SHARED_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


@dataclass(frozen=True)
class Frame:
    """One real frame to read: its set, its name, its truth (225 characters, the read's orientation)."""
    set: str
    name: str
    truth: str
    read: Callable[[], str]   # the 225 squares as the reader reads them now


def _reader(lang: str):
    from tilecam.api.settings import load_settings
    from tilecam.vision import load_tile_reader
    from tilecam.vision.fuse import FusedTileReader
    reader = load_tile_reader(load_settings(), lang)
    if not isinstance(reader, FusedTileReader):
        raise SystemExit("the recogniser is not installed: make install")
    return reader


def _board(read) -> str:
    return "".join(read.board())


def german(data: Path) -> Iterator[Frame]:
    """The ScrabScrap frames, each game in order through one reader (its cache cleared per game)."""
    reader = _reader("de")
    px = int(reader.card["square_px"])
    for game in GERMAN_GAMES:
        frames, _ = load_frames(data / "scrabscrap", game, px)
        reader._cache.clear()
        for name, warped, board, source in frames:
            truth = "".join("?" if ch.islower() else ch for row in board for ch in row)
            read = (lambda: "#" * 225) if warped is None else \
                (lambda w=warped, s=source: _board(reader.read(w, source=s)))
            yield Frame("german", f"{game}/{name}", truth, read)


def english(data: Path) -> Iterator[Frame]:
    """The English photos, warped with their labelled corners, each read afresh."""
    from tilecam.vision.rectify import homography_from_corners, warp_board
    reader = _reader("en")
    px = int(reader.card["square_px"])
    folder = data / "english"
    for line in (folder / "truth.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        image = cv2.imread(str(folder / "frames" / row["frame"]), cv2.IMREAD_COLOR)
        h = homography_from_corners(np.float32(row["corners"]), px)

        def read(image=image, h=h) -> str:
            reader._cache.clear()
            return _board(reader.read(warp_board(image, h, px), source=(image, h)))
        yield Frame("english", row["frame"], "".join(row["board"]), read)


SETS = {"german": german, "english": english}


def read_all(data: Path, sets=tuple(SETS), log=print) -> dict:
    """{set: {frame: {"truth": 225 chars, "read": 225 chars}}} for every frame of the sets."""
    out: dict = {}
    t0 = time.perf_counter()
    for name in sets:
        for f in SETS[name](data):
            out.setdefault(f.set, {})[f.name] = {"truth": f.truth, "read": f.read()}
        log(f"[{time.perf_counter() - t0:5.1f} s] {name}: {len(out.get(name, {}))} frames read")
    return out


def summary(reads: dict) -> dict:
    """Per set: frames, tiles, tiles read exactly (letters and blanks), squares right."""
    out = {}
    for s, frames in reads.items():
        tiles = right = squares_ok = 0
        for v in frames.values():
            for t, r in zip(v["truth"], v["read"]):
                squares_ok += t == r
                if t != ".":
                    tiles += 1
                    right += t == r
        out[s] = {"frames": len(frames), "tiles": tiles, "tiles_right": right,
                  "tiles_share": round(right / max(tiles, 1), 5),
                  "squares_share": round(squares_ok / max(225 * len(frames), 1), 5)}
    return out


def square_name(i: int) -> str:
    """Row number and column letter of square i in the read's orientation (row 1 at the top)."""
    return f"{i // 15 + 1}{COLS[i % 15]}"


def compare(baseline: dict, reads: dict) -> tuple[list[str], list[str]]:
    """(lost, gained): squares right in the baseline and wrong now, and the reverse, one line each.
    A frame or set of the baseline not read now is lost whole; a truth changed since is a failure too
    (the baseline no longer says what was right)."""
    lost, gained = [], []
    for s, frames in baseline["reads"].items():
        for name, was in frames.items():
            now = reads.get(s, {}).get(name)
            if now is None:
                lost.append(f"{s} {name}: not read now")
                continue
            if now["truth"] != was["truth"]:
                lost.append(f"{s} {name}: its truth changed since the baseline; write the baseline again")
                continue
            for i, (t, a, b) in enumerate(zip(was["truth"], was["read"], now["read"])):
                if a == t and b != t:
                    lost.append(f"{s} {name} {square_name(i)}: {t} was read right, now {b}")
                elif a != t and b == t:
                    gained.append(f"{s} {name} {square_name(i)}: {t} now right (was {a})")
    return lost, gained


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write-baseline", action="store_true",
                    help=f"write {BASELINE.relative_to(REPO)} from this read (never written otherwise)")
    ap.add_argument("--baseline", default=str(BASELINE))
    ap.add_argument("--out", default="", help="also write this read and its summary here (JSON)")
    ap.add_argument("--sets", default=",".join(SETS), help="comma-separated: " + ", ".join(SETS))
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    reads = read_all(shared_data(), tuple(args.sets.split(",")))
    result = {"commit": git_commit(), "date": time.strftime("%Y-%m-%d"), "summary": summary(reads), "reads": reads}
    print("summary:", json.dumps(result["summary"]))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.write_baseline:
        Path(args.baseline).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {args.baseline}")
        return 0
    baseline = json.loads(Path(args.baseline).read_text(encoding="utf-8"))
    baseline["reads"] = {s: f for s, f in baseline["reads"].items() if s in reads}
    lost, gained = compare(baseline, reads)
    for line in gained:
        print("gained:", line)
    for line in lost:
        print("LOST:", line)
    print(f"against the baseline of {baseline['commit']}: {len(lost)} squares lost, {len(gained)} gained")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
