"""Scoring's face: what the other layers use of the game's rules (import from ``tilecam.scoring``).
The modules behind it may move without breaking anyone. GCG, the record's file format, is a face
of its own: ``tilecam.scoring.gcg`` (read_gcg, write_gcg, the notation).

    the set, the board  DISTRIBUTIONS, Distribution, BLANK, letters_of; LAYOUTS, Layout, Square, Direction
    the rules           get_profile, RuleProfile, PROFILES, AUTO; the player count: MIN_PLAYERS, MAX_PLAYERS,
                        PLAYER_COUNT, check_player_count, check_player_number
    the log             LogEntry, Event and its kinds (Play, Pass, Exchange, PhonyWithdrawn, TurnLost,
                        ChallengeBonus, EndRackPoints, EndRackPenalty, TimePenalty), Correction, Void,
                        Close; to_json/from_json (a log row), by_operator, closing, Doubt (why a play is for review), PRESS_CAUSE, RACK_CAUSE, note_of, NOT_EVENTS
    a game              Game (replay, admit, play, ...), GameState, effective_events, is_over,
                        check_open, check_exchange; GameError, ScoringError
    a placement         score_placement, tile_changes, PlacementError; designate, undecided_squares (blanks)
    a person's fix      amend (amend.correct, amend.void, amend.undo_correction, amend.Retile, ...),
                        changes, confirmed, standing, reading_excess
    reading the record  recount_lines, discrepancies, final_totals, scoresheet, describe, report_json,
                        turns_hedge; turn_order, TurnOrder, TurnWatch, describe_turns, hedge, TURNS_INFERRED;
                        format_pool, vowel_split; learned, learning (tiles learned at a table)
    the clock           GameClock, ClockConfig, ClockPress, ClockState, format_clock, stop_at_end;
                        ClockAction, replay_clock (the clock rebuilt from its logged actions)
    a snapshot          Snapshot, EMPTY, BLANK_TILE, classes_for, board_turns (what vision hands over);
                        kind_then_letter, lettered_log (readings summed over frames, the belief's rule)
    the camera's record Scorekeeper (fuse, decide, sync, ...), Fused, Observation, DecodeConfig;
                        RackSeen, RackBook, RackTrust (when a read counts), unquoted_rack_note (the rack cameras)
    words               Lexicon, LexiconError

Names are loaded on first use, so ``import tilecam.scoring`` costs nothing and
``from tilecam.scoring import DISTRIBUTIONS`` loads only the tile sets. Inside scoring, modules
import each other, never this face.
"""
from __future__ import annotations

from importlib import import_module

_FACE = {
    # the set and the board
    "DISTRIBUTIONS": "tiles", "Distribution": "tiles", "BLANK": "tiles", "letters_of": "tiles",
    "LAYOUTS": "board", "Layout": "board", "Square": "board", "Direction": "board",
    # the rules
    "get_profile": "rules", "RuleProfile": "rules", "PROFILES": "rules", "AUTO": "rules",
    "MIN_PLAYERS": "rules", "MAX_PLAYERS": "rules", "PLAYER_COUNT": "rules", "check_player_count": "rules",
    "check_player_number": "rules",
    # the log
    "LogEntry": "events", "Event": "events", "Play": "events", "Pass": "events", "Exchange": "events",
    "PhonyWithdrawn": "events", "TurnLost": "events", "ChallengeBonus": "events", "EndRackPoints": "events",
    "EndRackPenalty": "events", "TimePenalty": "events", "Correction": "events", "Void": "events",
    "Close": "events", "to_json": "events", "from_json": "events", "by_operator": "events",
    "closing": "events", "Doubt": "events", "PRESS_CAUSE": "events", "RACK_CAUSE": "events", "note_of": "events", "NOT_EVENTS": "events",
    # a game
    "Game": "game", "GameState": "game", "effective_events": "game", "is_over": "game",
    "check_open": "game", "check_exchange": "game", "GameError": "game", "ScoringError": "errors",
    # a placement
    "score_placement": "placement", "tile_changes": "placement", "PlacementError": "placement",
    "designate": "blanks", "undecided_squares": "blanks",
    # a person's fix (and `amend` itself, below)
    "changes": "amend", "confirmed": "amend", "standing": "amend", "reading_excess": "amend",
    # reading the record
    "recount_lines": "recount", "discrepancies": "recount", "final_totals": "recount", "scoresheet": "recount",
    "describe": "recount", "report_json": "recount", "turns_hedge": "recount",
    "turn_order": "turns", "TurnOrder": "turns", "describe_turns": "turns", "hedge": "turns",
    "TURNS_INFERRED": "turns", "TurnWatch": "turns", "format_pool": "tally", "vowel_split": "tally",
    "learned": "trust", "learning": "trust",
    # the clock
    "GameClock": "clock", "ClockConfig": "clock", "ClockPress": "clock", "ClockState": "clock",
    "format_clock": "clock", "stop_at_end": "clock", "ClockAction": "clock", "replay_clock": "clock",
    # a snapshot
    "Snapshot": "snapshot", "EMPTY": "snapshot", "BLANK_TILE": "snapshot", "classes_for": "snapshot",
    "board_turns": "snapshot", "kind_then_letter": "belief", "lettered_log": "belief",
    # the camera's record
    "Scorekeeper": "scorekeeper", "Fused": "scorekeeper", "Observation": "scorekeeper",
    "DecodeConfig": "decode", "RackSeen": "racks", "RackBook": "racks", "RackTrust": "racks", "unquoted_rack_note": "racks",
    # words
    "Lexicon": "lexicon", "LexiconError": "lexicon",
}

# Modules the face names whole: a person's corrections read best qualified (amend.Retile, amend.void).
_MODULES = ("amend",)

__all__ = sorted([*_FACE, *_MODULES])


def __getattr__(name: str):
    if name in _MODULES:
        value = import_module(f"tilecam.scoring.{name}")
    elif name in _FACE:
        value = getattr(import_module(f"tilecam.scoring.{_FACE[name]}"), name)
    else:
        raise AttributeError(f"module 'tilecam.scoring' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
