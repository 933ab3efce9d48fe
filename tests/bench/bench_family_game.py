"""Bench: the red Hasbro family game (../shared/data/english, session "2015") recorded by `tilecam record`.

    python tests/bench/bench_family_game.py [--lexicon] [--out docs/results/family_game.json]

43 photos from a hand-held phone, in time order: 4 of the empty board, then the board at 5, 9,
17, 36, 41, 44, 55, 62, 66 and 69 tiles, and 12 of the finished board (all 100 tiles). Several
plays went down between two photos, the camera moves from photo to photo (oblique, turned), and
several photos show the same board. The photos are linked, in time order, into a temporary
folder, and `tilecam record FOLDER --lang en` records it as a user would (a folder is one photo
per clock press; the grid is found in every photo). Nothing here tunes anything.

After every photo the recorded board (the store's log up to the entries that photo committed,
corrections applied) is compared to truth.jsonl:
  squares right  of 225, occupancy and letter both (a blank as a blank);
  tiles right    of the truth's tiles, read as exactly that tile;
  false tiles    empty squares the record holds a tile on.
Per stage (each distinct truth board, after its last photo) the tiles added since the last stage
against the record's, and the record's plays: each play right when every tile it laid is a tile of
that stage's truth diff, letter included; flagged for review or not.
The truth has no GCG (which plays made a stage is not known), so plays are judged by their tiles.

With --oracle the game is recorded in this process (the recorder `tilecam record` builds, photo
by photo) beside a person at the console who knows the truth (bench_record.Oracle, issue 36):
after each photo every flagged camera play is confirmed when each tile it laid is the truth's
tile there, or, when its squares hold tiles in the truth, corrected to the truth's letters; a play
on squares the truth has empty stays flagged. Its report: each camera play as committed (flagged,
right), unflagged-and-wrong, and the flags photo by photo as the table's trust is earned.

Writes docs/results/family_game.json (commit, machine, per photo, per stage, the recorder's last
lines and exit status).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tilecam.scoring.events import EVENT_TYPES, from_json  # noqa: E402
from tilecam.scoring.game import effective_events, replay  # noqa: E402
from tilecam.scoring.rules import get_profile  # noqa: E402
from tilecam.scoring.tiles import DISTRIBUTIONS  # noqa: E402

DATA = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data"))
SESSION = "2015"


def load_truth(data: Path) -> list[dict]:
    """The session's photos in time order (the file names are their timestamps)."""
    rows = [json.loads(line) for line in (data / "english" / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    return sorted((r for r in rows if r["session"] == SESSION), key=lambda r: r["frame"])


def link_photos(truth: list[dict], data: Path, folder: Path) -> list[Path]:
    """The photos as a folder in natural order (zero-padded index first, so any sort keeps it)."""
    out = []
    for i, row in enumerate(truth):
        link = folder / f"{i:03d}_{row['frame']}"
        link.symlink_to((data / "english" / "frames" / row["frame"]).resolve())
        out.append(link)
    return out


def record(folder: Path, work: Path, lexicon: Path | None, config: str | None = None) -> dict:
    """`tilecam record` on the folder: its exit status, its last lines, the JSON sidecar."""
    side, db = work / "game.json", work / "game.sqlite3"
    # `tilecam record`, by the module the console script runs, from this checkout
    cmd = [sys.executable, "-m", "tilecam.api.cli", "record", str(folder), "--lang", "en", "--db", str(db),
           "--json", str(side), "--gcg", str(work / "game.gcg")]
    if lexicon is not None:
        cmd += ["--lexicon", str(lexicon)]
    if config is not None:
        cmd += ["--config", config]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - t0
    doc = json.loads(side.read_text(encoding="utf-8")) if side.exists() else {"entries": []}
    def tail(text: str, n: int) -> list[str]:   # no machine paths in the results
        return [ln.replace(str(work), "<tmp>").replace(str(REPO), "<repo>").replace(sys.prefix, "<venv>")
                for ln in text.replace("\r", "\n").splitlines() if ln.strip() and "recording:" not in ln][-n:]

    return {"exit": proc.returncode, "seconds": round(seconds, 1), "doc": doc,
            "stdout_tail": tail(proc.stdout, 25), "stderr_tail": tail(proc.stderr, 40),
            "gcg": (work / "game.gcg").read_text(encoding="utf-8") if (work / "game.gcg").exists() else ""}


def _entries(entries: list[dict]) -> list:
    return [from_json({k: v for k, v in e.items() if k in FIELDS.get(e["kind"], ())}) for e in entries]


def effective_plays(entries: list[dict]) -> list[tuple]:
    """The record's events as its corrections leave them, each with the photo it was committed at
    (a camera correction amends the play; the play stays at its own photo)."""
    log = _entries(entries)
    voided = {e.target for e in log if e.kind == "void"}
    frames = [Path(e.get("frame") or "").name for i, e in enumerate(entries)
              if e["kind"] not in ("correction", "void") and i not in voided]
    return list(zip(effective_events(log, PROFILE, DIST), frames))


def board_after(entries: list[dict], photo: int, names: list[str]) -> list[str]:
    """The recorded board after photo `photo`: the log's entries committed at that photo or before
    (their sidecar's frame), corrections and voids applied."""
    upto = set(names[: photo + 1])
    log = _entries([e for e in entries if Path(e.get("frame") or "").name in upto])
    events = effective_events(log, PROFILE, DIST)
    return replay(events, PROFILE, DIST).board.rows()


def compare(got: list[str], want: list[str]) -> dict:
    squares = tiles = tiles_right = false = 0
    for r in range(15):
        for c in range(15):
            g, w = got[r][c], want[r][c]
            g = "?" if g.islower() else g  # a designated blank is a blank tile
            squares += g == w
            if w != ".":
                tiles += 1
                tiles_right += g == w
            elif g != ".":
                false += 1
    return {"squares_right": squares, "tiles": tiles, "tiles_right": tiles_right, "false_tiles": false}


def added(before: list[str], after: list[str]) -> dict[tuple[int, int], str]:
    return {(r, c): after[r][c] for r in range(15) for c in range(15) if before[r][c] == "." and after[r][c] != "."}


def evaluate(truth: list[dict], names: list[str], entries: list[dict]) -> dict:
    effective = effective_plays(entries)
    photos = []
    for i, row in enumerate(truth):
        got = board_after(entries, i, names)
        photos.append({"photo": i, "frame": row["frame"], **compare(got, row["board"]),
                       "recorded": got})
    # stages: each distinct truth board; judged after its last photo
    stages, last = [], ["." * 15] * 15
    for i, row in enumerate(truth):
        if i + 1 < len(truth) and truth[i + 1]["board"] == row["board"]:
            continue
        first = next(j for j in range(i + 1) if truth[j]["board"] == row["board"])
        want = added(last, row["board"])
        since = names[last_photo(stages) + 1: i + 1]  # the photos of this stage and any before it since the last
        plays = []
        for e, frame in effective:
            if e.kind != "play" or frame not in since:
                continue
            laid = {(t.square.row, t.square.col): ("?" if t.blank else t.letter) for t in e.placement.tiles}
            plays.append({"frame": frame, "tiles": "".join(laid.values()),
                          "right": all(want.get(sq) == ch for sq, ch in laid.items()),
                          "review": bool(e.review), "certainty": e.certainty})
        before = photos[last_photo(stages)]["recorded"] if stages else ["." * 15] * 15
        laid = {sq: ("?" if ch.islower() else ch) for sq, ch in added(before, photos[i]["recorded"]).items()}
        stages.append({"photos": [first, i], "tiles_in_truth": sum(ch != "." for r in row["board"] for ch in r),
                       "added_in_truth": len(want), "added_recorded": len(laid),
                       "added_right": sum(laid.get(sq) == ch for sq, ch in want.items()),
                       "stage_exact": laid == want, **{k: photos[i][k] for k in
                                                       ("squares_right", "tiles_right", "false_tiles")},
                       "plays": plays})
        last = row["board"]
    plays = [p for s in stages for p in s["plays"]]
    final = photos[-1]
    corrections = [{"seq": e["seq"], "frame": Path(e.get("frame") or "").name, "reason": e.get("reason"),
                    "tiles": "".join("?" if blank else letter for _, _, letter, blank in
                                     e["replacement"].get("placement", {}).get("tiles", []))}
                   for e in entries if e["kind"] == "correction"]
    return {"photos": photos, "stages": stages, "corrections": corrections,
            "summary": {"photos": len(truth), "stages": len(stages),
                        "stages_exact": sum(s["stage_exact"] for s in stages),
                        "final_squares_right": final["squares_right"], "final_tiles_right": final["tiles_right"],
                        "final_tiles": final["tiles"], "final_false_tiles": final["false_tiles"],
                        "mean_squares_right": round(sum(p["squares_right"] for p in photos) / len(photos), 2),
                        "tiles_right_all_photos": sum(p["tiles_right"] for p in photos),
                        "tiles_all_photos": sum(p["tiles"] for p in photos),
                        "plays": len(plays), "plays_right": sum(p["right"] for p in plays),
                        "plays_flagged": sum(p["review"] for p in plays),
                        "unflagged_wrong": sum(1 for p in plays if not p["review"] and not p["right"]),
                        "corrections": sum(1 for e in entries if e["kind"] == "correction"),
                        # the game's tile set re-reading committed tiles (Scorekeeper.retile, issue 28)
                        "count_corrections": sum(1 for e in entries if e["kind"] == "correction"
                                                 and "tile counts" in (e.get("reason") or "")),
                        "passes": sum(1 for e in entries if e["kind"] == "pass")}}


def last_photo(stages: list[dict]) -> int:
    return stages[-1]["photos"][1] if stages else -1


PROFILE = get_profile("naspa")
DIST = DISTRIBUTIONS["en"]
FIELDS = {kind: set(cls.__slots__) | {"kind"} for kind, cls in EVENT_TYPES.items()}  # the sidecar's keys dropped


def oracle_run(truth: list[dict], data: Path, act: bool = True) -> dict:
    """The game recorded in this process with a person confirming and correcting (see the module's doc)."""
    import cv2
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_record import Oracle
    from tilecam.api.settings import Settings
    from tilecam.api.station import build_recorder, run_frames
    from tilecam.api.station.link import MemoryLink
    from tilecam.capture.frame import Frame
    from tilecam.scoring.board import Square
    from tilecam.scoring.game import Game
    from tilecam.scoring.placement import PlacedTile
    from tilecam.scoring.scorekeeper import Scorekeeper
    from tilecam.vision import build_reader

    class FamilyOracle(Oracle):
        """Plays judged by their tiles against the photo's truth board (several plays may go down
        between two photos, so there is no one play per photo to compare with)."""

        def judge(self, k, play):
            board = truth[k - 1]["board"]
            laid = [(t, board[t.square.row][t.square.col]) for t in play.placement.tiles]
            right = all(want == ("?" if t.blank else t.letter) for t, want in laid)
            if right or any(want == "." for _, want in laid):
                return right, None
            return False, tuple(PlacedTile(Square(t.square.row, t.square.col), want, want == "?") for t, want in laid)

    settings = Settings()
    keeper = Scorekeeper(Game(PROFILE, DIST), cfg=settings.decode)
    link = MemoryLink()
    recorder = build_recorder(settings, keeper, link, reader=build_reader(settings, "en"), photos=True)
    person = FamilyOracle(link, [], act=act, lang="en")
    frames = [Frame(cv2.imread(str(data / "english" / "frames" / row["frame"])), float(i), i, "family")
              for i, row in enumerate(truth)]
    per_photo = []

    def after(frame, outcome):
        n = len(person.plays)
        person(frame, outcome)
        new = person.plays[n:]
        per_photo.append({"photo": frame.index, "plays": len(new), "flagged": sum(f for _, f, _ in new),
                          "unflagged_wrong": sum(1 for _, f, ok in new if not f and not ok),
                          "learned": len(keeper.learned())})
        if new:
            print(f"  photo {frame.index}: {''.join('F' if f else '.' for _, f, _ in new)} "
                  f"({sum(ok for _, _, ok in new)}/{len(new)} right; table knows {len(keeper.learned())} tiles)",
                  flush=True)

    run_frames(frames, recorder, after)
    recorder.finish()
    events = effective_events(link.log, PROFILE, DIST)
    final = compare(replay(events, PROFILE, DIST).board.rows(), truth[-1]["board"])
    return {"table": person.report(), "per_photo": per_photo, "final": final,
            "learned": sorted(keeper.learned())}


def git_commit() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                          text=True).stdout.strip()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lexicon", action="store_true", help="also record with ../shared/data/lexicon/enable.txt")
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "family_game.json"))
    ap.add_argument("--config", help="a settings file for tilecam record (e.g. [reader] one_set = false)")
    ap.add_argument("--oracle", action="store_true",
                    help="record in this process with a person confirming and correcting (the flags over the game)")
    ap.add_argument("--watch", action="store_true",
                    help="as --oracle, but nobody confirms or corrects: the flags of a table with no person")
    args = ap.parse_args(argv)
    truth = load_truth(DATA)
    if args.oracle or args.watch:
        res = oracle_run(truth, DATA, act=args.oracle)
        t = res["table"]
        print(f"oracle: plays {t['plays']}, {t['wrong']} wrong, {t['flagged']} flagged, {t['unflagged_wrong']} unflagged "
              f"wrong; flagged share first half {t['flagged_share_first_half']}, second {t['flagged_share_second_half']}; "
              f"{t['confirmed']} confirmed, {t['corrected']} corrected; final board {res['final']}")
        path = Path(args.out)
        path.write_text(json.dumps({"commit": git_commit(), "machine": f"{platform.machine()} {os.cpu_count()} cpus",
                                    "oracle": res}, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
        return 0
    out = {"commit": git_commit(), "machine": f"{platform.machine()} {os.cpu_count()} cpus",
           "config": Path(args.config).name if args.config else None,
           "runs": {}}
    runs = [("no lexicon", None)] + ([("enable", DATA / "lexicon" / "enable.txt")] if args.lexicon else [])
    for name, lexicon in runs:
        with tempfile.TemporaryDirectory(prefix="family_game_") as tmp:
            folder = Path(tmp) / "photos"
            folder.mkdir()
            names = [p.name for p in link_photos(truth, DATA, folder)]
            rec = record(folder, Path(tmp), lexicon, args.config)
        result = evaluate(truth, names, rec["doc"]["entries"])
        s = result["summary"]
        print(f"{name}: exit {rec['exit']} in {rec['seconds']} s; stages exact {s['stages_exact']}/{s['stages']}; "
              f"final board {s['final_squares_right']}/225 squares, {s['final_tiles_right']}/{s['final_tiles']} "
              f"tiles, {s['final_false_tiles']} false; all photos {s['tiles_right_all_photos']}/"
              f"{s['tiles_all_photos']} tiles; plays {s['plays_right']}/{s['plays']} right, {s['plays_flagged']} "
              f"flagged, {s['unflagged_wrong']} unflagged wrong; {s['corrections']} corrections "
              f"({s['count_corrections']} by the tile counts)", flush=True)
        for st in result["stages"]:
            print(f"  photos {st['photos'][0]}-{st['photos'][1]}: {st['tiles_in_truth']} tiles, "
                  f"+{st['added_in_truth']} in truth, +{st['added_recorded']} recorded ({st['added_right']} right), "
                  f"board {st['squares_right']}/225, {st['tiles_right']} tiles right, {st['false_tiles']} false; "
                  f"plays {[(p['tiles'], p['right'], p['review']) for p in st['plays']]}")
        out["runs"][name] = {**result, "exit": rec["exit"], "seconds": rec["seconds"],
                             "stdout_tail": rec["stdout_tail"], "stderr_tail": rec["stderr_tail"], "gcg": rec["gcg"]}
    path = Path(args.out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
