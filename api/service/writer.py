"""The writer: the one place that appends to the store.

Every write goes the same way: inside one store transaction (BEGIN IMMEDIATE, so no other
thread or process can write in between) load the log, let the rules engine build or check
the new entries against the record as it stands, append them; after the commit, publish
the game's new live state on the bus (the context's ``publish``: api/service/live.py). The recorder calls ``commit`` (or ``append``) from its
own thread, naming the seq it believes comes next (a stale one raises Conflict: re-read and
decide again); the operator actions build on ``build``; the end of a game (its final entries,
its clock's overtime) is api/service/ending.py's, built on both.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterable

from tilecam.scoring import (DISTRIBUTIONS, Close, Correction, Distribution, Event, Game, GameError, Layout, LAYOUTS,
                             LogEntry, RuleProfile, Void, check_open, get_profile)
from tilecam.scoring import amend
from tilecam.scoring.gcg import GameRecord

import tilecam.api.service.types as s
from ..errors import Conflict, InvalidInput, NotFound
from ..store import GameRow
from .context import Context
from .ingest import refuse_mirror
from .tablelog import learned_row, players_row, read_table_log
from .view import LEARNED_META, GameView, close_of, learned_meta, parse_square, players_of

__all__ = ["Replayed", "Writer"]


@dataclass
class Replayed:
    """A game's log as the writer last left it, replayed once and then kept up entry by entry
    (GameService keeps one per game, used under the game's lock): what the next entry is checked
    against, with no read of the log and no replay per commit. A correction or a void rewrites
    history: the log is replayed again at the next write."""

    n: int                      # the log's entries
    logged: list[LogEntry]
    events: list[Event]         # the record as it stands (scoring.game.effective_events)
    profile: RuleProfile
    dist: Distribution
    layout: Layout
    players: int
    game: Game | None           # the record's state (GameView.game_at()); None: replayed when next needed
    rebuilder: Game | None      # a log with amendments: effective_events' replay, which rebuilds each new event

    @classmethod
    def of(cls, view: GameView) -> "Replayed":
        logged = [e.entry for e in view.entries]
        amended = any(isinstance(e, (Correction, Void)) for e in logged)
        rebuilder = Game(view.profile, view.dist, view.layout, view.players, list(view.events),
                         within_set=False) if amended else None  # as effective_events reads a record
        return cls(len(logged), logged, list(view.events), view.profile, view.dist, view.layout, view.players,
                   None, rebuilder)

    def state(self) -> Game:
        """The record's state to admit the next entry on (replayed only when not kept)."""
        if self.game is None:
            self.game = Game(self.profile, self.dist, self.layout, self.players, list(self.events))
        return self.game

    def appended(self, entry: LogEntry, admitted: Event | None) -> "Replayed | None":
        """This record with `entry` appended (`admitted`: the event state().admit made of it), or
        None when the log must be replayed (an amendment)."""
        if isinstance(entry, (Correction, Void)):
            return None
        if isinstance(entry, Close):   # in the log, not a move: the record's events stay as they are
            self.n += 1
            self.logged.append(entry)
            return self
        if self.rebuilder is None:
            event = entry   # a log without amendments stands as logged
        else:
            try:  # what effective_events makes of a new last entry: rebuilt on the record as it stands
                event = self.rebuilder.rebuild(entry)
            except (GameError, ValueError):
                return None
        if admitted != event:  # the kept state took another event than the record's: replay it next time
            self.game = None
        self.n += 1
        self.logged.append(entry)
        self.events.append(event)
        return self


class Writer:
    """Appending to games: the entries (commit, append, build, correct, void), the games and their
    players and meta, the evidence frames. It keeps each game's record as it last left it
    (``Replayed``, ``kept``); every write ends with the context's ``publish``."""

    def __init__(self, ctx: Context) -> None:
        self.ctx, self.store = ctx, ctx.store
        self._replays: dict[int, Replayed] = {}  # game -> its record as the writer last left it

    def kept(self, game_id: int, n: int) -> Replayed | None:
        """The game's record as this writer last left it, while the store holds its `n` entries
        (the live state takes its new entries from it); None otherwise. Read under the game's lock,
        the lock every write holds: a record taken out for a transaction is not here meanwhile."""
        record = self._replays.get(game_id)
        return record if record is not None and record.n == n else None

    def create_game(self, players: list[tuple[str, str | None]], rules: str = "naspa", lang: str = "en",
                    layout: str = "standard", meta: dict[str, str] | None = None) -> GameRow:
        get_profile(rules).check_players(len(players))  # ValueError naming the choices, the player range
        if lang not in DISTRIBUTIONS:
            raise InvalidInput(f"unknown tile set {lang!r}; choose one of {', '.join(DISTRIBUTIONS)}")
        if layout not in LAYOUTS:
            raise InvalidInput(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
        ps = players_of(players)
        if len({p["nick"] for p in ps}) != len(ps):
            raise InvalidInput("players need different nicknames")
        for key, value in (meta or {}).items():
            # Each becomes one '#key value' line in GCG.
            if not re.fullmatch(r"[A-Za-z0-9_-]+", key) or any(c in value for c in "\r\n"):
                raise InvalidInput(f"meta {key!r}: keys are single words and values one line")
        with self.store.writing():  # the names a game starts with are the table log's first row too
            row = self.store.create_game(ps, rules, lang, layout, meta)
            self.store.append_table(row.id, "players", players_row(ps, "created"))
        return row

    def import_record(self, record: GameRecord) -> GameRow:
        """A whole game (e.g. read from GCG) into the store, one entry at a time."""
        row = self.create_game([(p.name, p.nick) for p in record.players], record.rules, record.lang,
                               record.layout, {k: v for k, v in record.meta.items() if isinstance(v, str)})
        for ev in record.events:
            self.append(row.id, ev)
        return row

    def set_players(self, game_id: int, players: list[tuple[str, str | None]], by: str) -> s.LiveOut:
        with self.ctx.lock(game_id):
            row = self.store.game(game_id)
            refuse_mirror(row)
            ps = players_of(players)
            if len(ps) != len(row.players):
                raise InvalidInput(f"game {game_id} has {len(row.players)} players")
            with self.store.writing():  # the names are the table log's row; the game's row shows them
                self.store.append_table(game_id, "players", players_row(ps, by))
                self.store.update_game(game_id, players=ps, meta={"players_set_by": by})
            return self.ctx.publish(game_id)

    def set_learned(self, game_id: int, tiles) -> None:
        """The tiles the table learned outside the moves (scoring.trust's `given`: its tile check,
        an earlier game's reader), a table log row when they change; LEARNED_META in the game's
        meta shows them to the pages."""
        tiles = frozenset(tiles)
        with self.ctx.lock(game_id), self.store.writing():
            row = self.store.game(game_id)
            if read_table_log(row, self.store.table_log(game_id)).learned == tiles:
                return
            self.store.append_table(game_id, "learned", learned_row(tiles))
            self.store.update_game(game_id, meta={LEARNED_META: learned_meta(tiles)})

    def append(self, game_id: int, entry: LogEntry, *, expect: int | None = None, jpeg: bytes | None = None,
               path: str | None = None, sidecar: dict | None = None) -> int:
        """Check `entry` against the record, append it with its evidence frame and sidecar (one
        transaction), publish. Returns its seq. See `commit`."""
        return self.commit(game_id, [entry], expect=expect, jpeg=jpeg, path=path, sidecar=sidecar)[0]

    def commit(self, game_id: int, entries: list[LogEntry], *, expect: int | None = None,
               jpeg: bytes | None = None, path: str | None = None, sidecar: dict | None = None,
               publish: bool = True) -> list[int]:
        """Check each entry against the record as it stands inside one write transaction, append
        them all (each with the evidence frame and sidecar, when given), then publish. Returns
        their seqs.

        `expect`: how many log entries the caller believes the game has; another writer having
        appended since raises store.Conflict and nothing is written (re-read and decide again).
        Raises GameError/PlacementError with the engine's reason when an entry cannot follow.
        `publish=False`: the caller publishes once it has written everything that belongs together."""
        seqs = []
        with self.ctx.lock(game_id):
            with self.writing(game_id):
                row = self.store.game(game_id)
                refuse_mirror(row)
                record = self._replayed(game_id)
                if expect is not None and record.n != expect:
                    raise Conflict(f"game {game_id} has {record.n} log entries, not {expect}: "
                                   "another writer added to it")
                for entry in entries:
                    if record is None:  # an amendment rewrote history: the log replayed once
                        record = Replayed.of(self.ctx.load(game_id))
                    admitted = self._check(record, row, entry)
                    seqs.append(self.store.append(game_id, entry, record.n, jpeg, path, sidecar))
                    record = record.appended(entry, admitted)  # the next entry follows this one
            if record is not None:  # kept once the transaction is in (a failure drops it: _writing)
                self._replays[game_id] = record
            if publish:
                for entry, seq in zip(entries, seqs):
                    self.ctx.publish(game_id, entry, seq)
        return seqs

    def _replayed(self, game_id: int) -> Replayed:
        """The game's record as last written here, taken out of the cache for this transaction,
        while the store holds as many entries (the log only grows: then it is the same log); else
        read and replayed. One COUNT, inside the write transaction."""
        record = self._replays.pop(game_id, None)
        if record is not None and record.n == self.store.count(game_id):
            return record
        return Replayed.of(self.ctx.load(game_id))

    @contextmanager
    def writing(self, game_id: int):
        """The store's write transaction; when it fails (rolled back), the record kept of the game
        is dropped, so it never holds an entry the store does not."""
        try:
            with self.store.writing():
                yield
        except BaseException:
            self._replays.pop(game_id, None)
            raise

    @staticmethod
    def _check(record: Replayed, row: GameRow, entry: LogEntry) -> Event | None:
        if isinstance(entry, (Correction, Void)):
            # The amended record must still replay and stay within the set (scoring decides).
            amend.admit_amendment(record.logged, entry, record.profile, record.dist, record.layout, record.players)
            return None
        close = close_of(record.logged, row)
        check_open(entry, None if close is None else close.by, f"game {row.id}", record.state().state.ended)
        if isinstance(entry, Close):  # a director closes a game the rules have not ended, once
            state = record.state().state
            if state.ended:
                raise GameError(f"game {row.id} has already ended ({state.end_reason})")
            return None
        return record.state().admit(entry)  # rebuilt by the rules, it must come out as given

    def build(self, game_id: int, make: Callable[[Game], Event | Iterable[Event] | None],
              publish: bool = True) -> list[int]:
        """Run a Game builder on the record as it stands (e.g. ``lambda g: g.play(0, placement)``),
        then store and publish what it appended. Builders compute engine scores and cumulatives.
        The record is read inside the write transaction, so no other writer can slip in between.
        What the builder made goes in only as an entry would (a closed game takes no turn).
        `publish=False`: the caller publishes once it has written everything that belongs together."""
        with self.ctx.lock(game_id):
            with self.store.writing():
                view = self.ctx.load(game_id)
                refuse_mirror(view.row)
                game = view.game_at()
                before = len(game.events)
                make(game)
                added = game.events[before:]
                for ev in added:
                    check_open(ev, view.closed_by, f"game {game_id}", game.state.ended)
                seqs = [self.store.append(game_id, ev, len(view.entries) + i) for i, ev in enumerate(added)]
            if publish:
                for ev, seq in zip(added, seqs):
                    self.ctx.publish(game_id, ev, seq)
            return seqs

    def put_frame(self, game_id: int, seq: int, jpeg: bytes | None = None, path: str | None = None) -> None:
        """Evidence for log entry `seq`: the JPEG it was read from, or a path to it."""
        with self.store.writing():
            refuse_mirror(self.store.game(game_id))
            if not 0 <= seq < self.store.count(game_id):
                raise NotFound(f"game {game_id} has no log entry {seq}")
            self.store.put_frame(game_id, seq, jpeg, path)

    def set_meta(self, game_id: int, meta: dict[str, str | None]) -> GameRow:
        """Merge keys into the game's meta (None deletes one): who created it, its table."""
        return self.store.update_game(game_id, meta=meta)

    def discard_empty_game(self, game_id: int) -> bool:
        """Remove a game nothing was written to (a recording that found no board): True when removed."""
        return self.store.discard_empty_game(game_id)

    def correct(self, game_id: int, index: int, fix: s.BlankFix | s.LetterFix | s.PlayFix | s.ExchangeFix
                | s.PassFix | s.ScoreFix, by: str) -> int:
        """A Correction entry amending move `index` (as /moves numbers it), named after the token
        that made it; the rules decide it (scoring.amend.correct)."""
        with self.ctx.lock(game_id), self.writing(game_id):  # the move amended is the one that stands
            view = self.ctx.load(game_id)
            refuse_mirror(view.row)  # before the rules: the answer is the same for every amendment
            view.event_seq(index)  # no such move: NotFound
            entry = amend.correct([e.entry for e in view.entries], index, amendment_of(fix, view.layout),
                                  view.profile, view.dist, view.layout, view.players, by=by, reason=fix.reason)
            return self.append(game_id, entry)

    def undo_correction(self, game_id: int, seq: int, by: str, reason: str = "") -> int:
        """A Correction taking back the correction logged as `seq` (its move as it stood before it),
        named after the token; the log stays append-only (scoring.amend.undo_correction decides)."""
        with self.ctx.lock(game_id), self.writing(game_id):
            view = self.ctx.load(game_id)
            refuse_mirror(view.row)
            position = next((i for i, e in enumerate(view.entries) if e.seq == seq), None)
            if position is None:
                raise NotFound(f"game {game_id} has no log entry {seq}")
            entry = amend.undo_correction([e.entry for e in view.entries], position, view.profile, view.dist,
                                          view.layout, view.players, by=by, reason=reason)
            return self.append(game_id, entry)

    def void(self, game_id: int, index: int, by: str, reason: str = "", seq: int | None = None) -> int:
        """A Void entry cancelling move `index` (as /moves numbers it), named after the token; the
        rules decide whether a later move depends on it (scoring.amend.void). `seq`: the log row
        the caller believes move `index` is; another writer having changed the record is a Conflict."""
        with self.ctx.lock(game_id), self.writing(game_id):
            view = self.ctx.load(game_id)
            refuse_mirror(view.row)
            target = view.event_seq(index)
            if seq is not None and seq != target:
                raise Conflict(f"move {index + 1} is log entry {target}, not {seq}: the record changed; reload")
            entry = amend.void([e.entry for e in view.entries], index, view.profile, view.dist, view.layout,
                               view.players, by=by, reason=reason, names=[p["name"] for p in view.row.players])
            return self.append(game_id, entry)


def amendment_of(fix: s.BlankFix | s.LetterFix | s.PlayFix | s.ExchangeFix | s.PassFix | s.ScoreFix,
                 layout: Layout) -> amend.Amendment:
    """The request's correction as the rules take it (the square parsed on the game's layout)."""
    match fix:
        case s.BlankFix() | s.LetterFix():
            return amend.Retile(parse_square(fix.square, layout), fix.letter, blank=isinstance(fix, s.BlankFix))
        case s.PlayFix():
            return amend.ReenterPlay(fix.position, fix.word)
        case s.ExchangeFix():
            return amend.MakeExchange(fix.count, fix.tiles)
        case s.PassFix():
            return amend.MakePass()
        case s.ScoreFix():
            return amend.RuleScore(fix.agreed)
    raise InvalidInput(f"not a correction: {fix!r}")
