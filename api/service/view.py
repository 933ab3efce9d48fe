"""A game as the service sees it: the store's rows with corrections applied, ready to replay.

`load_view` reads one game; `nick_of`, `players_of` and `parse_square` turn what a person typed
into what the record holds.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

from tilecam.scoring import (DISTRIBUTIONS, LAYOUTS, Close, Correction, Distribution, Event, Game, GameState, Layout,
                             LogEntry, RuleProfile, Square, closing, effective_events, get_profile, is_over, standing)
from tilecam.scoring.gcg import NICK_MAX, GameRecord, Player, check_nick, parse_position

from ..errors import NotFound, StoreError
from ..store import EntryRow, GameRow, Store

__all__ = ["DAMAGE", "LEARNED_META", "LOST_META", "OLD_CLOSE_META", "SERVICE_META", "TILESET_META", "close_of", "end_reason_of", "given_tiles", "learned_meta", "GameView", "load_view", "nick_of", "players_of", "parse_square"]

# What a log that cannot be replayed raises: the engine's refusal, or an entry it cannot read.
DAMAGE = (ValueError, LookupError, TypeError, StoreError)
# The game's meta key holding what the camera sees that the record does not follow (absent: nothing);
# the station's lost-game watch (api/station/lostwatch.py) writes it, /tournament shows it.
LOST_META = "camera_lost"
# The game's meta key holding why its tile set is in doubt (absent: it is not): `tilecam record`
# writes it when the frames' evidence disagrees (vision.language), /tournament shows it.
TILESET_META = "tileset_doubt"
# The game's meta key holding the tiles learned at its table before its log says so (scoring.trust:
# the tile check's, those an earlier game of the same station's reader learned), space-separated;
# the station writes it (api/station/station.py), the live state's `learning` reads it.
LEARNED_META = "learned_at_table"


def given_tiles(meta: dict) -> frozenset[str]:
    """The tiles LEARNED_META names."""
    value = meta.get(LEARNED_META)
    return frozenset(value.split()) if isinstance(value, str) else frozenset()


def learned_meta(tiles) -> str:
    """LEARNED_META's value for `tiles`."""
    return " ".join(sorted(set(tiles)))


# Where a director's close was kept before it was a log entry (scoring.events.Close, issue 37): the
# meta of a game closed then still says it, and GameView.close reads it. Nothing writes them now.
OLD_CLOSE_META = ("closed_by", "closed_reason")
# Who did what to the game row; kept out of GCG exports.
SERVICE_META = {"created_by", "players_set_by", *OLD_CLOSE_META,
                # a tournament's (api/service/ingest.py): the station's game id, and the central's keys
                "station_uid", "station", "station_token", "station_heard_at",
                "station_url", "station_game", "station_clock",  # the heartbeat's (ingest.CENTRAL_META)
                LOST_META,  # the recorder's lost-game alert: the station's, not the game's
                TILESET_META,  # the tile set's doubt: the recording's, not the game's
                LEARNED_META}  # what the table's reader learned: the station's, not the game's


@dataclass
class GameView:
    """A game loaded from the store with its corrections and voids applied."""

    row: GameRow
    entries: list[EntryRow]
    events: list[Event]        # the record as it stands
    seqs: list[int]            # log row of each event's original entry
    corrected: set[int]        # seqs amended by a Correction
    profile: RuleProfile
    dist: Distribution
    layout: Layout

    @property
    def players(self) -> int:
        return len(self.row.players)

    @property
    def nicks(self) -> list[str]:
        return [p["nick"] for p in self.row.players]

    def game_at(self, turn: int | None = None) -> Game:
        """A Game replayed up to `turn` events (all by default)."""
        return Game(self.profile, self.dist, self.layout, self.players, self.events[:turn])

    def event_seq(self, index: int) -> int:
        """The log row of move `index` (0-based, as /moves/{index} names it); NotFound otherwise.
        The message numbers moves from 1, as the pages do."""
        if not 0 <= index < len(self.events):
            raise NotFound(f"game {self.row.id} has no move {index + 1} (index {index}); "
                           f"it has {len(self.events)}")
        return self.seqs[index]

    def record(self) -> GameRecord:
        meta = {k: v for k, v in self.row.meta.items() if k not in SERVICE_META}
        return GameRecord(tuple(Player(p["nick"], p["name"]) for p in self.row.players), tuple(self.events),
                          meta, self.row.rules, self.row.lang, self.row.layout)

    @cached_property
    def close(self) -> Close | None:
        """A director's end of the game, before the rules ended it: the log's Close; None while open.
        A game closed before closes were logged (issue 37) has it in its meta, which is read as the
        same Close (the stored game is not rewritten)."""
        return close_of((e.entry for e in self.entries), self.row)

    @property
    def closed_by(self) -> str | None:
        """Who closed the game (a director's end, before the rules ended it); None while open."""
        return None if self.close is None else self.close.by

    @property
    def closed(self) -> bool:
        return self.close is not None

    def over(self, state: GameState | None = None) -> bool:
        """Whether the game is over, by the rules or by a director's close (scoring.game.is_over): the
        one answer the service, the routes, the station and the CLI ask. `state`: the record's state
        as it stands, when the caller has replayed it already."""
        return is_over(self.game_at().state if state is None else state, self.closed_by)

    def end_reason(self, state: GameState | None = None) -> str | None:
        """Why the game is over: the rules' reason ("out", "zeros", "passes") or the director's; None
        while it is not. `state` as for `over`."""
        return end_reason_of(self.game_at().state if state is None else state, self.close)


def end_reason_of(state: GameState, close: Close | None) -> str | None:
    """Why a game whose record stands at `state` and whose log holds `close` (None: no director's
    close) is over, as GameView.end_reason says it; None while it is not."""
    if state.end_reason or close is None:
        return state.end_reason
    return close.reason or "ended by the director"


def close_of(logged: Iterable[LogEntry], row: GameRow) -> Close | None:
    """The director's close of game `row` whose log is `logged` (GameView.close; the writer asks it
    of the log it keeps): the log's Close, or for a game closed before closes were logged (issue
    37) the one its meta names (the stored game is not rewritten); None while open."""
    found = closing(logged)
    by, reason = OLD_CLOSE_META
    if found is None and row.meta.get(by) is not None:
        return Close(row.meta[by], row.meta.get(reason) or "")
    return found


def load_view(store: Store, game_id: int) -> GameView:
    """Game `game_id` from `store`, its log replayed with the corrections applied."""
    row = store.game(game_id)
    profile = get_profile(row.rules)
    dist = DISTRIBUTIONS[row.lang]
    layout = LAYOUTS[row.layout]
    entries = store.entries(game_id)
    logged = [e.entry for e in entries]
    events = effective_events(logged, profile, dist, layout, len(row.players))
    seqs = [entries[i].seq for i in standing(logged)]  # a voided event is no move: it has no seq
    corrected = {e.entry.target for e in entries if isinstance(e.entry, Correction)}
    return GameView(row, entries, events, seqs, corrected, profile, dist, layout)


def nick_of(name: str) -> str:
    """A GCG nickname made from a display name: one printable word without ':'."""
    nick = "".join(ch if ch.isprintable() and not ch.isspace() and ch != ":" else "_" for ch in name.strip())
    return re.sub(r"_+", "_", nick)[:NICK_MAX] or "player"


def players_of(players: list[tuple[str, str | None]]) -> list[dict]:
    """Stored players; a nickname given is checked on the way in (GcgError, a ValueError, says why)."""
    return [{"nick": check_nick(nick) if nick else nick_of(name), "name": name} for name, nick in players]


def parse_square(text: str, layout: Layout) -> Square:
    """'8H' or 'H8' -> the square; ValueError naming the coordinate otherwise."""
    return parse_position(text.strip(), layout)[0]
