"""`tilecam record` as a user runs it: the tile set read off German frames when --lang is not
given (it once recorded them as English, exit 0, no word), --gcg optional, and at the end where
everything went, which blanks' letters were guessed and which plays need a look."""
from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def record(*args, timeout=180):
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", "record", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def test_german_frames_without_lang_are_recorded_with_the_german_set(shared_data, tmp_path):
    db, sidecar = tmp_path / "games.sqlite3", tmp_path / "g08.json"
    r = record(shared_data / "scrabscrap" / "game08", "--prewarped", "--db", db, "--json", sidecar)
    assert r.returncode == 0, r.stderr
    assert "--lang en" in r.stderr, r.stderr   # the set decided is said, and how to override it
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT lang FROM games").fetchall() == [("de",)]
    doc = json.loads(sidecar.read_text(encoding="utf-8"))
    assert doc["lang"] == "de"
    # where everything went: the store (absolute) and the game id, the JSON; no GCG was asked for
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT COUNT(*) FROM entries WHERE game_id = 1").fetchone() == (18,)
    assert doc["game_id"] == 1 and str(db.resolve()) in r.stdout and str(sidecar) in r.stdout, r.stdout
    assert "--gcg" in r.stdout and "/api/games/1.gcg" in r.stdout
    assert not list(tmp_path.glob("*.gcg"))
    # game08's blank (SPUREN?, M10) has no letter anybody read: the one the GCG would write is said
    assert any(ln.startswith("blank guessed") and "SPUREN?" in ln and "M10" in ln for ln in r.stdout.splitlines()), r.stdout


def test_the_report_names_the_guessed_blanks_and_the_doubtful_plays(shared_data, tmp_path):
    gcg = tmp_path / "g05.gcg"
    # every play under the review threshold: each is named with its certainty (the decoder's flag,
    # the one rule the API and the console show too)
    config = tmp_path / "station.toml"
    config.write_text("[decode]\nreview_below = 1.0\n", encoding="utf-8")
    r = record(shared_data / "scrabscrap" / "game05", "--lang", "de", "--db", tmp_path / "g.sqlite3", "--gcg", gcg,
               "--config", config)
    assert r.returncode == 0, r.stderr
    flagged = [ln for ln in r.stdout.splitlines() if ln.startswith("needs review: ")]
    plays = sum(1 for ln in gcg.read_text(encoding="utf-8").splitlines()
                if ln.startswith(">") and len(ln.split()) >= 5 and ln.split()[2][0].isalnum())
    assert len(flagged) >= plays - 2 > 20, r.stdout   # a withdrawn phony and its replay share one check
    assert all(" read with certainty " in ln and ", weakest " in ln for ln in flagged), flagged[:3]
    assert "tile set: de" not in r.stderr  # --lang given: nothing to detect
    guessed = [ln for ln in r.stdout.splitlines() if ln.startswith("blank guessed: ")]
    assert len(guessed) == 2, r.stdout  # game05's two blanks
    for line in guessed:  # the letter said is the one the GCG writes, with its note
        letter = line.rsplit(" as ", 1)[1]
        assert f"#note blank's letter not read: written as {letter}" in gcg.read_text(encoding="utf-8")
    assert gcg.is_file() and str(gcg) in r.stdout


def test_english_photos_are_not_taken_for_german(shared_data, tmp_path):
    from tilecam.api.commands.record import read_tile_set
    from tilecam.api.settings import load_settings

    frames = sorted((shared_data / "english" / "frames").glob("*.jpg"))[-3:]
    for f in frames:
        shutil.copy(f, tmp_path / f.name)
    args = argparse.Namespace(source=str(tmp_path), model=None, tileset=None, corners=None, prewarped=False)
    english = read_tile_set(args, load_settings(None))
    assert english.lang == "en" and english.doubt is None, english
    german = read_tile_set(argparse.Namespace(**{**vars(args), "source": str(shared_data / "scrabscrap" / "game05")}),
                           load_settings(None))
    assert german.lang == "de" and german.doubt is None, german
    assert all(f in german.why for f in ("Ü at C7", "Ä at O9", "Ö at B10")), german.why   # the evidence


def demo_photos(folder: Path) -> Path:
    """The demo's English game (api/demo/vs_josh.gcg) as photos, one after each turn, rendered as its
    video renders it: the board after move 20 holds 9 A's and 7 O's, which a German set's reader
    capped (5 A's, 3 O's) and read the surplus as Ä and Ö at 0.98-0.99, frame after frame."""
    import cv2

    from tilecam.api.demo.game import make_demo_game
    from tilecam.api.demo.video import boards_after_each_play
    from tilecam.models.synth import SceneConfig, render_scene

    cfg = SceneConfig(out_w_px=1280, out_h_px=960, max_tilt_deg=12, hands="never", glare_prob=0.0,
                      fill_min=0.8, fill_max=0.92, style="wood", quarter_turn_prob=0.08, design="hasbro",
                      labels="full", font="dejavu-sans", line_frac=0.045)
    folder.mkdir()
    for n, rows in enumerate(boards_after_each_play(make_demo_game())[1:], start=1):
        cv2.imwrite(str(folder / f"board-{n:02d}.jpg"), render_scene(rows, 7, cfg, frame=n).image)
    return folder


def test_the_demo_game_without_lang_is_english_and_every_play_as_played(tmp_path):
    # issue 35: one Ä on one frame re-scored the whole English game with German values, exit 0
    db, gcg = tmp_path / "g.sqlite3", tmp_path / "demo.gcg"
    photos = demo_photos(tmp_path / "photos")
    r = record(photos, "--db", db, "--gcg", gcg, "--players", "Cesar", "Josh")
    assert r.returncode == 0, r.stderr
    assert "--lang de" in r.stderr, r.stderr   # the set decided is said, and how to override it
    assert "in doubt" not in r.stderr + r.stdout
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT lang FROM games").fetchall() == [("en",)]
    assert "final [457, 397]" in r.stdout, r.stdout
    text = gcg.read_text(encoding="utf-8")
    assert "#tile-distribution english" in text
    truth = (REPO / "api" / "demo" / "vs_josh.gcg").read_text(encoding="utf-8")
    # every turn where and how much as played: the blanks' letters (nobody read them: said as guessed)
    # and the exchanged tiles (never on camera: a pass) aside
    def turns(gcg_text):   # (where, word with its blanks as ?, score, the player's total) of every turn
        return [(f[2], "".join("?" if c.islower() else c for c in f[3]), *f[-2:]) if f[2][0].isalnum()
                else (f[2][:1], *f[-2:]) for f in (ln.split() for ln in gcg_text.splitlines() if ln.startswith(">"))]
    assert turns(text) == turns(truth)
    assert sum(1 for ln in text.splitlines() if ln.startswith("#note blank's letter not read")) == 2

    # a game whose tile set is in doubt says so in its last lines, and exits 4 (resumed: the ended game's report)
    from tilecam.api.service.view import TILESET_META
    with sqlite3.connect(db) as raw:
        (meta,) = raw.execute("SELECT meta FROM games").fetchone()
        raw.execute("UPDATE games SET meta = ?",
                    (json.dumps({**json.loads(meta), TILESET_META: "tile set en in doubt: Ä at A7 read on 5 of 8"}),))
    again = record(photos, "--db", db, "--game", "1")
    assert again.returncode == 4, again.stdout + again.stderr
    last = again.stdout.splitlines()[-1]
    assert last.startswith("needs review") and "Ä at A7" in last and "4" in last, last
    assert "nothing to review" not in again.stdout


def test_the_last_lines_give_the_woogles_link(shared_data, tmp_path):
    from urllib.parse import parse_qs, urlsplit

    from tilecam.api.bus import Bus
    from tilecam.api.service import GameService
    from tilecam.api.store import open_store

    db = tmp_path / "g.sqlite3"
    r = record(shared_data / "scrabscrap" / "game08", "--prewarped", "--lang", "de", "--db", db)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    link = [ln for ln in lines if ln.startswith("Open in Woogles (")]
    assert len(link) == 1 and lines.index(link[0]) >= len(lines) - 3, r.stdout   # among the last lines
    count, url = link[0][len("Open in Woogles ("):].split(" characters): ")
    assert int(count) == len(url)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "woogles.io", "/scrabblecam/callback")
    service = GameService(open_store(db), Bus())
    assert parse_qs(parts.query)["gcg"] == [service.gcg(service.load(1))]   # the export's GCG, whole
    # game08 stops before the end: the line after the link says Woogles will not mark it complete
    assert lines[lines.index(link[0]) + 1] == "Woogles will not mark this game complete: the game is not over"
