"""The writer: the one place that appends to the store.

Every write goes the same way: inside one store transaction (BEGIN IMMEDIATE, so no other
thread or process can write in between) load the log, let the rules engine build or check
the new entries against the record as it stands, append them; after the commit, publish
the game's new live state on the bus. The recorder calls ``commit`` (or ``append``) from its
own thread, naming the seq it believes comes next (a stale one raises Conflict: re-read and
decide again); the operator actions build on ``build``.
"""
from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterable

from tilecam.scoring import LAYOUTS, GameClock, Layout
from tilecam.scoring import amend
from tilecam.scoring import (DISTRIBUTIONS, Close, Correction, Distribution, Event, Game, GameError, LogEntry,
                             RuleProfile, Void, check_open, get_profile, to_json)
from tilecam.scoring.gcg import GameRecord

import tilecam.api.service.types as s
from ..bus import Bus, BusMessage
from ..errors import Conflict, InvalidInput, NotFound
from ..store import GameRow, Store
from .ingest import clock_state, forwarded_clock, refuse_mirror
from .view import GameView, close_of, parse_square, players_of

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
    """Appending to games; GameService mixes it in (its store, bus, locks and clocks). It reads
    through Queries' ``load`` and publishes Queries' ``live``."""

    store: Store
    bus: Bus
    clock: Callable[[], float]
    steady: Callable[[], float]
    _locks: dict[int, threading.RLock]
    _locks_guard: threading.Lock
    _published: dict[int, int]
    _replays: dict[int, "Replayed"]
    _clocks_shown: dict[int, tuple | None]
    _changes_mark: int | None
    _clocks: dict[int, GameClock]
    end_clock: Callable[..., list[int]]     # ClockGlue's: the end of a game stops its clock, enters overtime
    _stop_clock: Callable[[int, GameView], object]  # ClockGlue's: the one place a clock stops at the end

    def _lock(self, game_id: int) -> threading.RLock:
        with self._locks_guard:
            return self._locks[game_id]

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
        return self.store.create_game(ps, rules, lang, layout, meta)

    def import_record(self, record: GameRecord) -> GameRow:
        """A whole game (e.g. read from GCG) into the store, one entry at a time."""
        row = self.create_game([(p.name, p.nick) for p in record.players], record.rules, record.lang,
                               record.layout, {k: v for k, v in record.meta.items() if isinstance(v, str)})
        for ev in record.events:
            self.append(row.id, ev)
        return row

    def set_players(self, game_id: int, players: list[tuple[str, str | None]], by: str) -> s.LiveOut:
        with self._lock(game_id):
            row = self.store.game(game_id)
            refuse_mirror(row)
            ps = players_of(players)
            if len(ps) != len(row.players):
                raise InvalidInput(f"game {game_id} has {len(row.players)} players")
            self.store.update_game(game_id, players=ps, meta={"players_set_by": by})
            return self._publish(game_id)

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
        with self._lock(game_id):
            with self._writing(game_id):
                row = self.store.game(game_id)
                refuse_mirror(row)
                record = self._replayed(game_id)
                if expect is not None and record.n != expect:
                    raise Conflict(f"game {game_id} has {record.n} log entries, not {expect}: "
                                   "another writer added to it")
                for entry in entries:
                    if record is None:  # an amendment rewrote history: the log replayed once
                        record = Replayed.of(self.load(game_id))
                    admitted = self._check(record, row, entry)
                    seqs.append(self.store.append(game_id, entry, record.n, jpeg, path, sidecar))
                    record = record.appended(entry, admitted)  # the next entry follows this one
            if record is not None:  # kept once the transaction is in (a failure drops it: _writing)
                self._replays[game_id] = record
            if publish:
                for entry, seq in zip(entries, seqs):
                    self._publish(game_id, entry, seq)
        return seqs

    def commit_end(self, game_id: int, entries: list[LogEntry], *, expect: int | None = None) -> list[int]:
        """The recorder's end of a game: the rack points it decided and, with a clock, each player's
        overtime penalty, in one transaction and then one run of updates, as ``end`` does for the
        operator. A page, or the central service a station forwards to, never shows a result that
        the next entry changes."""
        with self._lock(game_id):
            with self._writing(game_id):
                seqs = self.commit(game_id, entries, expect=expect, publish=False)
                seqs += self.end_clock(game_id, publish=False)  # the clock stops; overtime goes in
            self._publish_written(game_id, seqs)
        return seqs

    def _publish_written(self, game_id: int, seqs: list[int]) -> None:
        """One update per entry written (after the commit), or the live state when none was."""
        rows = {e.seq: e.entry for e in self.store.entries(game_id)} if seqs else {}
        for seq in seqs:
            self._publish(game_id, rows[seq], seq)
        if not seqs:
            self._publish(game_id)

    def _replayed(self, game_id: int) -> Replayed:
        """The game's record as last written here, taken out of the cache for this transaction,
        while the store holds as many entries (the log only grows: then it is the same log); else
        read and replayed. One COUNT, inside the write transaction."""
        record = self._replays.pop(game_id, None)
        if record is not None and record.n == self.store.count(game_id):
            return record
        return Replayed.of(self.load(game_id))

    @contextmanager
    def _writing(self, game_id: int):
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
        check_open(entry, None if close is None else close.by, f"game {row.id}")
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
        with self._lock(game_id):
            with self.store.writing():
                view = self.load(game_id)
                refuse_mirror(view.row)
                game = view.game_at()
                before = len(game.events)
                make(game)
                added = game.events[before:]
                for ev in added:
                    check_open(ev, view.closed_by, f"game {game_id}")
                seqs = [self.store.append(game_id, ev, len(view.entries) + i) for i, ev in enumerate(added)]
            if publish:
                for ev, seq in zip(added, seqs):
                    self._publish(game_id, ev, seq)
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

    def announce_external(self, wait_s: float = 0.0) -> list[int]:
        """Publish entries other writers (a recorder in another process, another server on the
        database) added since the last call. One cheap question to the store, which games changed
        since our mark; only those are read again. Returns the games announced; the first call
        only takes its mark. With `wait_s`, the store first waits up to that long for a change
        (the server's watcher: a PostgreSQL commit's NOTIFY wakes it at once)."""
        first = self._changes_mark is None
        changes = self.store.changes(self._changes_mark) if first or not wait_s else \
            self.store.wait_changes(self._changes_mark, wait_s)
        self._changes_mark = changes.mark
        if first:
            return []
        games = changes.games if changes.games is not None else {row.id for row in self.store.games()}
        announced = []
        for game_id in sorted(games):
            with self._lock(game_id):  # a writer of ours publishes under this lock: no double update
                try:
                    n = self.store.count(game_id)
                    # Every entry added since the last look, each as its own update, as the writing
                    # server publishes them (a forwarded batch, a station catching up). Of a game this
                    # server has not followed (created before it started), the newest alone.
                    known = self._published.get(game_id, 0 if n == 0 else n - 1)
                    self._published.setdefault(game_id, known)
                    if n <= known:  # ours, already published, or not a new entry ...
                        if not self._clock_moved(game_id):
                            continue
                        self._publish(game_id)  # ... but a station's clock, pressed at another server
                    for row in self.store.entries(game_id)[known:]:
                        self._publish(game_id, row.entry, row.seq)
                except NotFound:  # discarded since
                    continue
            announced.append(game_id)
        return announced

    def _clock_moved(self, game_id: int) -> bool:
        """Whether the clock a station forwards (its heartbeat, taken by any server on the database)
        was pressed, paused or stopped since this server's last update of the game."""
        if game_id not in self._clocks_shown or game_id in self._clocks:
            return False
        return clock_state(forwarded_clock(self.store.game(game_id).meta, 0.0)) != self._clocks_shown[game_id]

    def _publish(self, game_id: int, entry: LogEntry | None = None, seq: int | None = None) -> s.LiveOut:
        committed = self.clock()
        self._published[game_id] = max(self._published.get(game_id, 0), self.store.count(game_id))
        live = self.live(game_id)
        if live.ended and live.clock is not None and not live.clock.finished and game_id in self._clocks:
            # The game is over: the clock stops (its overtime goes in with the end: end_clock). A
            # clock a station forwards is not here: it stops there, and its next heartbeat says so.
            with self._lock(game_id):
                self._stop_clock(game_id, self.load(game_id))
            live = self.live(game_id)
        self._clocks_shown[game_id] = clock_state(live.clock)
        data = {"live": live.model_dump(), "entry": to_json(entry) if entry is not None else None,
                "committed": committed}
        self.bus.publish(BusMessage(game_id, live.seq if seq is None else seq, "update", data))
        return live


    def end(self, game_id: int, racks: list[str] | None, reason: str, by: str) -> list[int]:
        """Final racks and the end of the game: the out-play's rack points, or each player's own
        rack off after six zeros, or a director ending the game (a Close in the log, then each
        rack given off); with a clock, its overtime penalties too. All of it goes out in one
        update, so no page shows a result that the next entry changes."""
        # One transaction: the end is decided on the record as it stands, and the closing, the
        # racks and the overtime go in together; the live update goes out after the commit.
        with self._lock(game_id):
            with self._writing(game_id):
                view = self.load(game_id)
                refuse_mirror(view.row)
                if view.closed:
                    raise GameError("the game has already been ended and its final racks entered")
                seqs = [] if view.over() else \
                    self.commit(game_id, [Close(by, reason or "ended by the director")], publish=False)
                # what the rules decide: scoring.game.Game.final_racks
                seqs += self.build(game_id, lambda g: g.final_racks(racks), publish=False)
                seqs += self.end_clock(game_id, publish=False)  # stopped now: the director's call
            self._publish_written(game_id, seqs)
            return seqs

    def correct(self, game_id: int, index: int, fix: s.BlankFix | s.LetterFix | s.PlayFix | s.ExchangeFix
                | s.PassFix | s.ScoreFix, by: str) -> int:
        """A Correction entry amending move `index` (as /moves numbers it), named after the token
        that made it; the rules decide it (scoring.amend.correct)."""
        with self._lock(game_id), self._writing(game_id):  # the move amended is the one that stands
            view = self.load(game_id)
            refuse_mirror(view.row)  # before the rules: the answer is the same for every amendment
            view.event_seq(index)  # no such move: NotFound
            entry = amend.correct([e.entry for e in view.entries], index, amendment_of(fix, view.layout),
                                  view.profile, view.dist, view.layout, view.players, by=by, reason=fix.reason)
            return self.append(game_id, entry)

    def undo_correction(self, game_id: int, seq: int, by: str, reason: str = "") -> int:
        """A Correction taking back the correction logged as `seq` (its move as it stood before it),
        named after the token; the log stays append-only (scoring.amend.undo_correction decides)."""
        with self._lock(game_id), self._writing(game_id):
            view = self.load(game_id)
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
        with self._lock(game_id), self._writing(game_id):
            view = self.load(game_id)
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
