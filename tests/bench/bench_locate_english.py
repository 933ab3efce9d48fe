"""Eval: board localization on the 53 English phone photos (jheidel/scrabble-opencv).

    python tests/bench/bench_locate_english.py [--session 2014|2015] [--out PATH]

The photos (``shared/data/english``, see its README) are ~2000 px phone shots of a beige
vintage board (session "2014") and a red Hasbro board with printed premium labels ("DOUBLE
LETTER SCORE"), crowded up to 100 tiles, at up to ~40 degrees of tilt and any rotation
(session "2015"). ``truth.jsonl`` gives the grid corners in game orientation; find_board
returns them in camera order, so corners are matched up to the 8 symmetries of the 4-cycle
(rotation and reflection). A found grid is right when every corner is within 0.25 square of
the truth (the square being the truth grid's mean side / 15).

Per photo: found, reason when not, max corner error in squares, cold ms (one core, the least
of --repeat runs after one untimed warm-up detection). Writes docs/results/locate_english.json
with the machine and the git commit.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tilecam.vision.errors import BoardNotFound  # noqa: E402
from tilecam.vision.locate import LocateConfig, find_board  # noqa: E402

RIGHT_SQUARES = 0.25


def corner_error_squares(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance in squares, corner order matched up to rotation and reflection."""
    truth = np.asarray(truth, np.float64).reshape(4, 2)
    found = np.asarray(found, np.float64).reshape(4, 2)
    square = float(np.linalg.norm(truth - np.roll(truth, -1, 0), axis=1).mean()) / 15.0
    best = np.inf
    for c in (found, found[::-1]):
        for k in range(4):
            best = min(best, float(np.linalg.norm(np.roll(c, k, 0) - truth, axis=1).max()))
    return best / square


def load_truth(data: Path) -> list[dict]:
    return [json.loads(x) for x in (data / "english" / "truth.jsonl").read_text("utf-8").splitlines() if x.strip()]


def git_commit() -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()


def machine() -> dict:
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    return {"platform": platform.platform(), "cpu": cpu, "python": platform.python_version(),
            "opencv": cv2.__version__, "threads": 1,
            "load_avg": [round(v, 2) for v in os.getloadavg()] if hasattr(os, "getloadavg") else None}


def run(data: Path, cfg: LocateConfig, sessions: set[str] | None, repeat: int) -> tuple[list[dict], dict]:
    rows = []
    for t in load_truth(data):
        if sessions and t["session"] not in sessions:
            continue
        image = cv2.imread(str(data / "english" / "frames" / t["frame"]))
        row = {"frame": t["frame"], "session": t["session"], "tiles": sum(c != "." for r in t["board"] for c in r),
               "size": [int(image.shape[1]), int(image.shape[0])]}
        times = []
        fix = None
        for _ in range(max(1, repeat)):
            t0 = time.perf_counter()
            try:
                fix = find_board(image, cfg)
            except BoardNotFound as exc:
                row["reason"] = str(exc)
                fix = None
            times.append((time.perf_counter() - t0) * 1000.0)
        row["cold_ms"] = round(min(times), 1)
        if fix is None:
            row.update(found=False, right=False)
        else:
            err = corner_error_squares(fix.corners, t["corners"])
            row.update(found=True, right=bool(err <= RIGHT_SQUARES), err_squares=round(err, 3),
                       quality=round(fix.quality, 3), corners=np.round(fix.corners, 1).tolist())
        rows.append(row)
        print(f"{t['frame']:28s} {t['session']} found={row['found']!s:5s} "
              f"err={row.get('err_squares', '-')!s:6s} {row['cold_ms']:7.1f} ms {row.get('reason', '')}", flush=True)
    return rows, summarize(rows)


def summarize(rows: list[dict]) -> dict:
    def stats(sel: list[dict]) -> dict:
        found = [r for r in sel if r["found"]]
        errs = np.array([r["err_squares"] for r in found]) if found else np.array([np.nan])
        ms = np.array([r["cold_ms"] for r in sel]) if sel else np.array([np.nan])
        return {"photos": len(sel), "found": len(found), "right_err_le_0.25_square": sum(r["right"] for r in sel),
                "err_squares_median": round(float(np.median(errs)), 3),
                "err_squares_p90": round(float(np.percentile(errs, 90)), 3),
                "err_squares_max": round(float(np.max(errs)), 3),
                "cold_ms_median": round(float(np.median(ms)), 1),
                "cold_ms_p90": round(float(np.percentile(ms, 90)), 1),
                "cold_ms_max": round(float(np.max(ms)), 1)}

    out = {"all": stats(rows)}
    for s in sorted({r["session"] for r in rows}):
        out[f"session_{s}"] = stats([r for r in rows if r["session"] == s])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--session", action="append", choices=["2014", "2015"], help="only this session (repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="detections per photo; the least time counts")
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "results" / "locate_english.json")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    data = Path(os.environ.get("TILECAM_SHARED_DATA", REPO.parent / "shared" / "data"))
    cfg = LocateConfig()
    # one untimed detection first: a new process pays one-time OpenCV/numpy set-up
    try:
        find_board(cv2.imread(str(data / "scrabscrap" / "game05" / "image-1.jpg")), cfg)
    except BoardNotFound:
        pass
    rows, summary = run(data, cfg, set(args.session or []), args.repeat)
    print(json.dumps(summary, indent=1))
    out = {"machine": machine(), "commit": git_commit(), "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "right_when_every_corner_within_squares": RIGHT_SQUARES, "repeat": args.repeat,
           "summary": summary, "photos": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n", "utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
