"""Resume after kill -9, over a matrix: `tilecam record` on a ScrabScrap game is killed (SIGKILL)
a random moment after its k-th commit, then resumed with `--game` from the start of the source and,
separately, from the last committed photo; the final log and GCG must equal the uninterrupted run.
The game clock likewise (issue 46): a process pressing a game's clock at the times of CLOCK_SCRIPT
is killed a random moment after its k-th press and started again on the same file, a new run (its
steady clock elsewhere), which rebuilds the clock from the table log and does the rest of the
script at the same times; the clock at the end must equal the uninterrupted run's, to the
millisecond (the time the process was dead is the script's gap to the next action, charged to the
player on turn as on a real clock). Also runs the two-writer race a number of times.

    python tests/bench/bench_resume.py [--games game08 game06] [--kills 6] [--clock-kills 6] [--races 5]

Writes docs/results/resume.json with the machine and commit, and prints a summary.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from conftest import shared_data_dir  # noqa: E402
from tilecam.capture.folder import list_images  # noqa: E402

LANG = {"game05": "de", "game06": "de", "game07": "de", "game08": "de", "game12": "de"}
PREWARPED = {"game06", "game07", "game08"}


def record(folder: Path, db: Path, out: Path, *extra: str, popen: bool = False):
    cmd = [sys.executable, "-m", "tilecam.api.cli", "record", str(folder), "--db", str(db), "--gcg", str(out / "g.gcg"),
           "--json", str(out / "g.json"), *extra]
    if popen:
        return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)


def count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as raw:
            return raw.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def log(db: Path):
    with sqlite3.connect(db) as raw:
        return raw.execute("SELECT seq, kind, data FROM entries ORDER BY seq").fetchall()


def last_photo_folder(folder: Path, db: Path, tmp: Path) -> Path:
    with sqlite3.connect(db) as raw:
        frames = [json.loads(s)["frame"] for (s,) in raw.execute(
            "SELECT sidecar FROM entries WHERE sidecar IS NOT NULL ORDER BY seq")]
    photos = list_images(folder, (".jpg", ".png"))
    start = photos.index(Path(frames[-1])) if frames else 0
    rest = tmp / "rest"
    rest.mkdir()
    for p in photos[start:]:
        (rest / p.name).symlink_to(p)
    return rest


def kill_after(proc: subprocess.Popen, done, n: int, delay_s: float) -> bool:
    """SIGKILL `proc` `delay_s` after `done()` (what it has written) reached `n`; False when it ended first."""
    while done() < n and proc.poll() is None:
        time.sleep(0.005)
    time.sleep(delay_s)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return killed


def one_kill(folder: Path, flags: list[str], entries: int, delay_s: float, mode: str, want) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="resume-"))
    try:
        db = tmp / "g.sqlite3"
        killed = kill_after(record(folder, db, tmp, *flags, popen=True), lambda: count(db), entries, delay_s)
        at_kill = count(db)
        kept = log(db) == want[0][:at_kill]
        source = folder if mode == "start" else last_photo_folder(folder, db, tmp)
        r = record(source, db, tmp, *[f for f in flags if f == "--prewarped"], "--game", "1")
        same = r.returncode == 0 and log(db) == want[0] and (tmp / "g.gcg").read_text("utf-8") == want[1]
        return {"after_entry": entries, "delay_s": round(delay_s, 3), "resume_from": mode, "killed": killed,
                "entries_at_kill": at_kill, "committed_kept": kept, "final_equal": same}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# The clock's script: (seconds into the game, what is done, who does it); the state is read at CLOCK_END.
CLOCK_SCRIPT = [(0.0, "press", None), (41.5, "press", 0), (95.25, "pause", None), (120.0, "resume", None),
                (150.75, "press", 1), (160.0, "undo", 1), (222.5, "press", 1), (300.125, "press", 0),
                (333.0, "pause", None), (340.5, "resume", None), (1690.0, "press", 1), (1700.0, "press", 0)]
CLOCK_END = 1800.0
WALL0 = 1_700_000_000.0


def clock_worker(db: Path, steady0: float, pause_s: float) -> None:
    """One run of a program pressing game 1's clock (`--clock-worker`): what CLOCK_SCRIPT still
    holds after the actions the table log has, each at its time (steady0 + t on this run's steady
    clock, WALL0 + t on the wall), `pause_s` of real time after each; then the clock at CLOCK_END as
    JSON on stdout."""
    from tilecam.api.bus import Bus
    from tilecam.api.service import GameService
    from tilecam.api.store import open_store
    v = [0.0]
    service = GameService(open_store(db), Bus(), clock=lambda: WALL0 + v[0])
    service.steady = lambda: steady0 + v[0]
    games = service.games()
    gid = games[0].id if games else service.create_game([("Ann", None), ("Ben", None)]).id
    done = len(service.table_log(gid).clock_actions)
    v[0] = CLOCK_SCRIPT[done][0] if done < len(CLOCK_SCRIPT) else CLOCK_END
    if not service.has_clock(gid):
        service.start_clock(gid, 25)
    act = {"press": lambda p: service.clock_press(gid, p), "pause": lambda p: service.clock_pause(gid, True),
           "resume": lambda p: service.clock_pause(gid, False), "undo": lambda p: service.clock_undo(gid, p)}
    for t, do, player in CLOCK_SCRIPT[done:]:
        v[0] = t
        act[do](player)
        time.sleep(pause_s)
    v[0] = CLOCK_END
    print(json.dumps(service.clock_now(gid).model_dump(exclude={"at"})), flush=True)


def clock_run(db: Path, steady0: float, pause_s: float, popen: bool = False):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--clock-worker", str(db), str(steady0), str(pause_s)]
    if popen:
        return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def clock_actions(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as raw:
            return raw.execute("SELECT COUNT(*) FROM table_log WHERE kind = 'clock'").fetchone()[0] - 1
    except sqlite3.OperationalError:
        return -1


def clock_kill(after: int, delay_s: float, want: dict) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="clock-"))
    try:
        db = tmp / "g.sqlite3"
        killed = kill_after(clock_run(db, 1000.0, 0.05, popen=True), lambda: clock_actions(db), after, delay_s)
        at_kill = clock_actions(db)
        got = clock_run(db, -77.0, 0.0)  # a new run: its steady clock elsewhere
        return {"after_press": after, "delay_s": round(delay_s, 3), "killed": killed, "actions_at_kill": at_kill,
                "final_equal": got == want, "remaining_ms": got["remaining_ms"], "want_ms": want["remaining_ms"]}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def races(n: int) -> list[dict]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "tests/api/store/test_sqlite_race.py", "-k", "two_processes"],
                           cwd=REPO, capture_output=True, text=True, timeout=600)
        line = next((x for x in r.stdout.splitlines() if x.startswith("race:")), "")
        out.append({"run": i, "passed": r.returncode == 0, "summary": line, "s": round(time.perf_counter() - t0, 1)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    if sys.argv[1:2] == ["--clock-worker"]:
        clock_worker(Path(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]))
        return
    ap.add_argument("--games", nargs="*", default=["game08", "game06"])
    ap.add_argument("--clock-kills", type=int, default=6, help="kill points in the clock's script")
    ap.add_argument("--kills", type=int, default=6, help="kill points per game (each resumed both ways)")
    ap.add_argument("--races", type=int, default=5)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--out", default=str(REPO / "docs" / "results" / "resume.json"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rows = []
    for name in args.games:
        folder = shared_data_dir() / "scrabscrap" / name
        flags = ["--lang", LANG[name]] + (["--prewarped"] if name in PREWARPED else [])
        tmp = Path(tempfile.mkdtemp(prefix="whole-"))
        r = record(folder, tmp / "g.sqlite3", tmp, *flags)
        assert r.returncode == 0, r.stderr
        want = (log(tmp / "g.sqlite3"), (tmp / "g.gcg").read_text("utf-8"))
        shutil.rmtree(tmp, ignore_errors=True)
        points = sorted(rng.sample(range(1, len(want[0])), min(args.kills, len(want[0]) - 1)))
        for k in points:
            for mode in ("start", "last_photo"):
                row = {"game": name, **one_kill(folder, flags, k, rng.uniform(0.0, 0.4), mode, want)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    clock_rows = []
    if args.clock_kills:
        tmp = Path(tempfile.mkdtemp(prefix="clock-whole-"))
        want = clock_run(tmp / "g.sqlite3", 1000.0, 0.0)
        shutil.rmtree(tmp, ignore_errors=True)
        for k in sorted(rng.sample(range(1, len(CLOCK_SCRIPT)), min(args.clock_kills, len(CLOCK_SCRIPT) - 1))):
            clock_rows.append(clock_kill(k, rng.uniform(0.0, 0.08), want))
            print(json.dumps(clock_rows[-1]), flush=True)
    race_rows = races(args.races)
    doc = {
        "machine": f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus".strip(),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                 text=True).stdout.strip(),
        "kills": len([r for r in rows if r["killed"]]),
        "survived": len([r for r in rows if r["killed"] and r["committed_kept"] and r["final_equal"]]),
        "rows": rows,
        "clock_kills": len([r for r in clock_rows if r["killed"]]),
        "clock_equal": len([r for r in clock_rows if r["killed"] and r["final_equal"]]),
        "clock": clock_rows,
        "races": race_rows,
    }
    Path(args.out).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    print(f"kills {doc['kills']}, survived {doc['survived']}; clock kills {doc['clock_kills']}, equal "
          f"{doc['clock_equal']}; races {len(race_rows)}, "
          f"passed {sum(r['passed'] for r in race_rows)}")


if __name__ == "__main__":
    main()
