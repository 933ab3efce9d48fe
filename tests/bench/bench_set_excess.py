"""Do camera records ever hold more of a tile than the set has (issue 26, item 1)?

    python tests/bench/bench_set_excess.py [tests/bench/bench_record.py] > out.jsonl

Records every rendered video of bench_record's LOST_VIDEOS that is already in its frame cache
(nothing is rendered here) with the tilecam on the path, and prints one JSON line per video: the
plays, those marked for review, the board's tiles past the set at the end, and what gcgcheck says
macondo refuses in the GCG written from the record ("cannot set the rack": a third blank).
Run it with PYTHONPATH pointing at another checkout's parent to measure that commit on the same
frames. Results with their commits: docs/results/set_excess.json.
"""
import importlib.util
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
bench_path = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "tests" / "bench" / "bench_record.py"
spec = importlib.util.spec_from_file_location("bench_record", bench_path)
br = importlib.util.module_from_spec(spec)
spec.loader.exec_module(br)
sys.path.insert(0, str(bench_path.parents[1]))  # tests/gcgcheck.py
from gcgcheck import check_gcg  # noqa: E402
from tilecam.api.station.link import MemoryLink  # noqa: E402
from tilecam.api.settings import Settings  # noqa: E402
from tilecam.vision import build_reader  # noqa: E402
from tilecam.api.station import build_recorder  # noqa: E402
from tilecam.scoring.game import Game  # noqa: E402
from tilecam.scoring.gcg import GameRecord, Player, write_gcg  # noqa: E402
from tilecam.scoring.rules import get_profile  # noqa: E402
from tilecam.scoring.scorekeeper import Scorekeeper  # noqa: E402
from tilecam.scoring.tally import tally  # noqa: E402
from tilecam.scoring.tiles import DISTRIBUTIONS  # noqa: E402

cached = {p.name.rsplit("-", 1)[0] for p in br.LOST_CACHE.iterdir()} if br.LOST_CACHE.is_dir() else set()
for v in br.LOST_VIDEOS:
    if v["name"] not in cached:
        continue
    t0 = time.time()
    frames, *_ = br.lost_video(v)
    profile, dist = get_profile("naspa-csw"), DISTRIBUTIONS["en"]
    keeper = Scorekeeper(Game(profile, dist))
    recorder = build_recorder(Settings(), keeper, MemoryLink(), reader=build_reader(Settings(), "en"))
    for frame in frames:
        recorder.process(frame)
    recorder.finish()
    events = keeper.game.events
    record = GameRecord((Player("a", "A"), Player("b", "B")), tuple(events), {}, "naspa-csw", "en")
    held = tally(keeper.game.state.board)
    over = {t: held[t] for t in dist.counts if held.get(t, 0) > dist.counts[t]}
    try:
        problems = [p for p in check_gcg(write_gcg(record, profile, dist)) if "macondo" in p]
    except Exception as exc:  # noqa: BLE001 (an older commit's writer may refuse its own record)
        problems = [f"write failed: {exc}"]
    print(json.dumps({"video": v["name"], "split": v["split"], "plays": sum(e.kind == "play" for e in events),
                      "review": sum(bool(getattr(e, "review", False)) for e in events),
                      "board_past_the_set": over, "macondo_problems": problems[:3],
                      "s": round(time.time() - t0)}), flush=True)
