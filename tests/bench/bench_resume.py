"""Resume after kill -9, over a matrix: `tilecam record` on a ScrabScrap game is killed (SIGKILL)
a random moment after its k-th commit, then resumed with `--game` from the start of the source and,
separately, from the last committed photo; the final log and GCG must equal the uninterrupted run.
Also runs the two-writer race a number of times.

    python tests/bench/bench_resume.py [--games game08 game06] [--kills 6] [--races 5]

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


def one_kill(folder: Path, flags: list[str], entries: int, delay_s: float, mode: str, want) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="resume-"))
    try:
        db = tmp / "g.sqlite3"
        proc = record(folder, db, tmp, *flags, popen=True)
        while count(db) < entries and proc.poll() is None:
            time.sleep(0.01)
        time.sleep(delay_s)
        killed = proc.poll() is None
        if killed:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        at_kill = count(db)
        kept = log(db) == want[0][:at_kill]
        source = folder if mode == "start" else last_photo_folder(folder, db, tmp)
        r = record(source, db, tmp, *[f for f in flags if f == "--prewarped"], "--game", "1")
        same = r.returncode == 0 and log(db) == want[0] and (tmp / "g.gcg").read_text("utf-8") == want[1]
        return {"after_entry": entries, "delay_s": round(delay_s, 3), "resume_from": mode, "killed": killed,
                "entries_at_kill": at_kill, "committed_kept": kept, "final_equal": same}
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
    ap.add_argument("--games", nargs="+", default=["game08", "game06"])
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
    race_rows = races(args.races)
    doc = {
        "machine": f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus".strip(),
        "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                 text=True).stdout.strip(),
        "kills": len([r for r in rows if r["killed"]]),
        "survived": len([r for r in rows if r["killed"] and r["committed_kept"] and r["final_equal"]]),
        "rows": rows,
        "races": race_rows,
    }
    Path(args.out).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    print(f"kills {doc['kills']}, survived {doc['survived']}; races {len(race_rows)}, "
          f"passed {sum(r['passed'] for r in race_rows)}")


if __name__ == "__main__":
    main()
