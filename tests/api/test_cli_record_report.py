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

REPO = Path(__file__).resolve().parents[2]


def record(*args, timeout=180):
    return subprocess.run([sys.executable, "-m", "tilecam.api.cli", "record", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def test_german_frames_without_lang_are_recorded_with_the_german_set(shared_data, tmp_path):
    db, sidecar = tmp_path / "games.sqlite3", tmp_path / "g08.json"
    r = record(shared_data / "scrabscrap" / "game08", "--prewarped", "--db", db, "--json", sidecar)
    assert r.returncode == 0, r.stderr
    assert "tile set: de (" in r.stderr and "--lang en to override" in r.stderr, r.stderr
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT lang FROM games").fetchall() == [("de",)]
    doc = json.loads(sidecar.read_text(encoding="utf-8"))
    assert doc["lang"] == "de"
    # where everything went: the store (absolute) and the game id, the JSON; no GCG was asked for
    assert f"game 1 in {db.resolve()}: 18 entries" in r.stdout, r.stdout
    assert f"JSON sidecar written to {sidecar}" in r.stdout
    assert "no GCG asked for (--gcg OUT.gcg)" in r.stdout and "/api/games/1.gcg" in r.stdout
    assert not list(tmp_path.glob("*.gcg"))
    # game08's blank (SPUREN?, M10) has no letter anybody read: the one the GCG would write is said
    assert "blank guessed: move 5 (Player 1) SPUREN?: M10 as " in r.stdout, r.stdout


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
    assert f"GCG written to {gcg}" in r.stdout


def test_english_photos_are_not_taken_for_german(shared_data, tmp_path):
    from tilecam.api.commands.record import detect_german
    from tilecam.api.settings import load_settings

    frames = sorted((shared_data / "english" / "frames").glob("*.jpg"))[-3:]
    for f in frames:
        shutil.copy(f, tmp_path / f.name)
    args = argparse.Namespace(source=str(tmp_path), model=None, tileset=None, corners=None, prewarped=False)
    assert detect_german(args, load_settings(None)) is None
    german = argparse.Namespace(**{**vars(args), "source": str(shared_data / "scrabscrap" / "game05")})
    assert detect_german(german, load_settings(None)).startswith("Ä, Ö, Ü read on image-")
