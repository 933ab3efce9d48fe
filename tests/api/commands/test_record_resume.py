"""Resume is exact: a `tilecam record` killed with SIGKILL and resumed as the README says (`--game ID`,
the source run again from its start, or from the last committed photo) ends with the record of the
uninterrupted run. And the rule behind it, in the scorekeeper: a resumed source showing earlier
states of the board is history replayed, and the snapshot that catches up is no clock press."""
from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tilecam.scoring.game import Game
from tilecam.scoring.rules import get_profile
from tilecam.scoring.scorekeeper import Scorekeeper
from tilecam.scoring.snapshot import Snapshot, classes_for
from tilecam.scoring.tiles import DISTRIBUTIONS

pytestmark = pytest.mark.slow  # end to end (see pyproject's markers)

REPO = Path(__file__).resolve().parents[3]
EN = DISTRIBUTIONS["en"]
CLASSES = classes_for(EN.letters)
EMPTY = ["." * 15] * 15
CAT = EMPTY[:7] + ["......CAT......"] + EMPTY[8:]
CATS = EMPTY[:7] + ["......CATS.....", ".........O.....", ".........N....."] + EMPTY[10:]  # + SON down
PHONY = CATS[:10] + ["........QZX...."] + CATS[11:]   # a phony below, to be withdrawn


def snap(rows, conf=0.95):
    return Snapshot.from_board(rows, CLASSES, conf)


def keeper_after(boards):
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    for rows in boards:
        keeper.observe(snap(rows), pressed=True)
    return keeper


# ---- the rule, on snapshots ------------------------------------------------------------------

def test_a_source_started_over_adds_nothing_until_it_shows_something_new():
    done = keeper_after([CAT, CATS])
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    keeper.resume(list(done.entries))
    # one photo per move, from the first: the empty board, CAT, then the board as it stands
    assert [keeper.observe(snap(b), pressed=True).status for b in (EMPTY, CAT, CATS)] == \
        ["behind", "behind", "no_change"]
    assert keeper.entries == done.entries and not keeper.replay.behind
    # from here on an unchanged photo is a pass again, and new tiles a play of the player on turn
    assert keeper.observe(snap(CATS), pressed=True).status == "pass"
    assert keeper.game.state.on_turn == 1


def test_the_first_unchanged_photo_after_a_resume_is_no_press():
    done = keeper_after([CAT])
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    keeper.resume(list(done.entries))
    assert keeper.observe(snap(CAT), pressed=True).status == "no_change"
    obs = keeper.observe(snap(CATS), pressed=True)
    assert obs.status == "play" and obs.entries[0].player == 1 and obs.entries[0].words[0] == "SON"


def test_the_board_one_turn_back_is_not_a_withdrawal_after_a_resume():
    """Without the rule, the photo before the last shows exactly the last play gone: a phony
    withdrawn, and the next photo the same play again for the other player."""
    done = keeper_after([CAT, CATS])
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    keeper.resume(list(done.entries))
    for b in (CAT, CATS, CATS):
        keeper.observe(snap(b), pressed=True)
    kinds = [e.kind for e in keeper.entries]
    assert kinds == ["play", "play", "pass"]


def test_a_withdrawn_phony_replayed_by_the_source_is_history_too():
    done = keeper_after([CAT, CATS, PHONY, CATS])  # ZZZ played, then taken back
    assert [e.kind for e in done.entries][-2:] == ["play", "phony_withdrawn"]
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    keeper.resume(list(done.entries))
    # The board CATS stood twice; the first time is history, the phony's board too.
    statuses = [keeper.observe(snap(b), pressed=True).status for b in (EMPTY, CAT, CATS, PHONY, CATS)]
    assert statuses == ["behind"] * 4 + ["no_change"]
    assert keeper.entries == done.entries
    # resumed from the last photo instead, the board as it stands comes first
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    keeper.resume(list(done.entries))
    assert keeper.observe(snap(CATS), pressed=True).status == "no_change"
    assert keeper.observe(snap(CATS), pressed=True).status == "pass"


def test_a_withdrawal_and_a_play_pending_at_the_kill_are_caught_up_from_the_last_photo():
    """Killed after a photo showed the phony gone and the next play down (neither committed):
    resumed from that photo, the snapshot is new, so both are decided as an uninterrupted run would."""
    done = keeper_after([CAT, CATS, PHONY])
    keeper = Scorekeeper(Game(get_profile("naspa"), EN))
    keeper.resume(list(done.entries))
    cows = CATS[:7] + ["......CATS.....", "......O..O.....", "......W..N.....", "......S........"] + CATS[11:]
    obs = keeper.observe(snap(cows), pressed=True)
    assert [e.kind for e in obs.entries] == ["phony_withdrawn", "play"]


# ---- the whole command, killed and resumed -----------------------------------------------------

GAME = "game08"  # 18 pre-warped photos, one per move, German tiles, a hand over the board in photo 6


def _record(source, db, out, *extra, check=True, popen=False):
    cmd = [sys.executable, "-m", "tilecam.api.cli", "record", str(source), "--prewarped", "--db", str(db),
           "--gcg", str(out / "game.gcg"), "--json", str(out / "game.json"), *extra]
    if popen:
        return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def _count(db) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as raw:
            return raw.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


READING = ("certainty", "review", "runner_ups")


def _log(db) -> list[tuple[int, str, str]]:
    """The log, without how the camera read each play (its certainty and runner-ups): a recorder
    resumed mid-game has seen fewer frames of the board, so it may read the same play less surely."""
    with sqlite3.connect(db) as raw:
        rows = raw.execute("SELECT seq, kind, data FROM entries WHERE game_id = 1 ORDER BY seq").fetchall()
    return [(seq, kind, json.dumps(_unread(json.loads(data)))) for seq, kind, data in rows]


def _unread(data: dict) -> dict:
    data = {k: v for k, v in data.items() if k not in READING}
    if isinstance(data.get("replacement"), dict):
        data["replacement"] = _unread(data["replacement"])
    return data


def _kill_after(proc, db, entries: int, delay_s: float) -> None:
    """SIGKILL the recorder a little after its `entries`-th commit (somewhere in the next photo)."""
    deadline = time.monotonic() + 120
    while _count(db) < entries:
        assert proc.poll() is None, f"the recorder ended before entry {entries}: {proc.stderr.read()}"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(delay_s)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def _from_last_photo(folder: Path, db, tmp: Path) -> Path:
    """The photos from the last committed one on (its path is in the entry's sidecar)."""
    with sqlite3.connect(db) as raw:
        frames = [json.loads(s)["frame"] for (s,) in raw.execute(
            "SELECT sidecar FROM entries WHERE game_id = 1 AND sidecar IS NOT NULL ORDER BY seq")]
    from tilecam.capture.folder import list_images
    photos = list_images(folder, (".jpg",))
    start = photos.index(Path(frames[-1])) if frames else 0
    rest = tmp / "rest"
    rest.mkdir()
    for p in photos[start:]:
        (rest / p.name).symlink_to(p)
    return rest


@pytest.fixture(scope="module")
def uninterrupted(shared_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    _record(shared_data / "scrabscrap" / GAME, out / "g.sqlite3", out, "--lang", "de")
    return _log(out / "g.sqlite3"), (out / "game.gcg").read_text("utf-8")


KILLS = [(3, "start"), (9, "last_photo"), (14, "start"), (16, "last_photo")]  # entries committed at the kill


@pytest.mark.parametrize("entries,resume", KILLS, ids=[f"kill_after_{n}_resume_from_{r}" for n, r in KILLS])
def test_killed_and_resumed_the_record_equals_the_uninterrupted_run(shared_data, uninterrupted, tmp_path,
                                                                     entries, resume):
    folder = shared_data / "scrabscrap" / GAME
    db = tmp_path / "g.sqlite3"
    proc = _record(folder, db, tmp_path, "--lang", "de", popen=True)
    _kill_after(proc, db, entries, random.Random(entries).uniform(0.0, 0.25))
    committed = _log(db)
    assert committed == uninterrupted[0][:len(committed)]  # nothing committed is lost or different
    # what was committed before the kill is in the sidecar already (minus at most the last write)
    side = json.loads((tmp_path / "game.json").read_text("utf-8"))
    assert len(side["entries"]) >= len(committed) - 1 and "frame_index" in side["entries"][0]
    source = folder if resume == "start" else _from_last_photo(folder, db, tmp_path)
    r = _record(source, db, tmp_path, "--game", "1")  # the game's own tile set and rules
    assert "resuming" in r.stdout and "game 1" in r.stdout
    assert _log(db) == uninterrupted[0]
    assert (tmp_path / "game.gcg").read_text("utf-8") == uninterrupted[1]
    side = json.loads((tmp_path / "game.json").read_text("utf-8"))
    assert [e["seq"] for e in side["entries"]] == list(range(len(uninterrupted[0])))
    assert all("frame_index" in e for e in side["entries"])


def test_resuming_a_finished_recording_adds_nothing(shared_data, uninterrupted, tmp_path):
    db = tmp_path / "g.sqlite3"
    _record(shared_data / "scrabscrap" / GAME, db, tmp_path, "--lang", "de")
    _record(shared_data / "scrabscrap" / GAME, db, tmp_path, "--game", "1")
    assert _log(db) == uninterrupted[0]
    r = _record(shared_data / "scrabscrap" / GAME, db, tmp_path, "--game", "1", "--lang", "en", check=False)
    assert r.returncode == 2 and "--lang de" in r.stderr and "Traceback" not in r.stderr
    r = _record(shared_data / "scrabscrap" / GAME, db, tmp_path, "--game", "1", "--rules", "wespa", check=False)
    assert r.returncode == 2 and "--rules naspa" in r.stderr
