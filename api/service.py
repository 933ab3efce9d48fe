"""GameService: the one writer of the store, and the queries the routes and the recorder share.

Every write goes the same way: inside one store transaction (BEGIN IMMEDIATE, so no other
thread or process can write in between) load the log, let the rules engine build or check
the new entries against the record as it stands, append them; after the commit, publish
the game's new live state on the bus. The recorder calls ``commit`` (or ``append``) from its
own thread, naming the seq it believes comes next; the operator routes call the named actions.
"""
from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable

from tilecam.scoring.board import LAYOUTS, Direction, Layout, Square
from tilecam.scoring.clock import ClockPress, GameClock, format_clock
from tilecam.scoring.events import (BLANK_NOT_READ, Correction, EndRackPenalty, EndRackPoints, Event, Exchange,
                            LogEntry, Pass, PhonyWithdrawn, Play, TimePenalty, TurnLost, to_json)
from tilecam.scoring.game import Game, GameError, effective_events
from tilecam.scoring.gcg import NICK_MAX, GameRecord, Player, check_nick, format_position, parse_position, \
    placement_from_gcg, play_notation, write_gcg
from tilecam.scoring.placement import PlacedTile
from tilecam.scoring.recount import describe, discrepancies, final_totals, recount, scoresheet
from tilecam.scoring.rules import RuleProfile, get_profile
from tilecam.scoring.tally import format_pool
from tilecam.scoring.tiles import BLANK, DISTRIBUTIONS, Distribution

from . import schemas as s
from .bus import Bus, BusMessage
from .errors import Conflict, InvalidInput, NotFound, StoreError
from .store import EntryRow, GameRow, Store

# What a log that cannot be replayed raises: the engine's refusal, or an entry it cannot read.
DAMAGE = (ValueError, LookupError, TypeError, StoreError)
# Turns the camera (or anyone appending raw entries) may not add once a director closed the game.
TURN_EVENTS = (Play, Pass, Exchange)
VOWELS = set("AEIOUÄÖÜÁÉÍÓÚÀÈÌÒÙÂÊÎÔÛĄĘÓ")
# Who did what to the game row; kept out of GCG exports.
SERVICE_META = {"created_by", "players_set_by", "closed_by", "closed_reason"}


@dataclass
class GameView:
    """A game loaded from the store with its corrections applied."""

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
        if not 0 <= index < len(self.events):
            raise NotFound(f"game {self.row.id} has no move {index} (it has {len(self.events)})")
        return self.seqs[index]

    def record(self) -> GameRecord:
        meta = {k: v for k, v in self.row.meta.items() if k not in SERVICE_META}
        return GameRecord(tuple(Player(p["nick"], p["name"]) for p in self.row.players), tuple(self.events),
                          meta, self.row.rules, self.row.lang, self.row.layout)

    @property
    def closed(self) -> bool:
        return "closed_by" in self.row.meta


def nick_of(name: str) -> str:
    """A GCG nickname made from a display name: one printable word without ':'."""
    nick = "".join(ch if ch.isprintable() and not ch.isspace() and ch != ":" else "_" for ch in name.strip())
    return re.sub(r"_+", "_", nick)[:NICK_MAX] or "player"


def _players(players: list[tuple[str, str | None]]) -> list[dict]:
    """Stored players; a nickname given is checked on the way in (GcgError, a ValueError, says why)."""
    return [{"nick": check_nick(nick) if nick else nick_of(name), "name": name} for name, nick in players]


def parse_square(text: str, layout: Layout) -> Square:
    """'8H' or 'H8' -> the square; ValueError naming the coordinate otherwise."""
    return parse_position(text.strip(), layout)[0]


class GameService:
    def __init__(self, store: Store, bus: Bus, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock
        self._locks: dict[int, threading.RLock] = defaultdict(threading.RLock)
        self._locks_guard = threading.Lock()
        self._live: dict[int, tuple[int, str, s.LiveOut]] = {}  # game -> (entries, meta key, live)
        self._published: dict[int, int] = {}  # game -> log length last announced on the bus
        # The game clocks running in this process (in memory: a restart starts a new clock), and
        # the steady time they run on (time.monotonic, as hardware.Trigger.t; tests inject one).
        self._clocks: dict[int, GameClock] = {}
        self.steady: Callable[[], float] = time.monotonic

    def _lock(self, game_id: int) -> threading.RLock:
        with self._locks_guard:
            return self._locks[game_id]

    # ---- reading ---------------------------------------------------------------
    def games(self) -> list[GameRow]:
        return self.store.games()

    def load(self, game_id: int) -> GameView:
        row = self.store.game(game_id)
        profile = get_profile(row.rules)
        dist = DISTRIBUTIONS[row.lang]
        layout = LAYOUTS[row.layout]
        entries = self.store.entries(game_id)
        logged = [e.entry for e in entries]
        events = effective_events(logged, profile, dist, layout, len(row.players))
        seqs = [e.seq for e in entries if not isinstance(e.entry, Correction)]
        corrected = {e.entry.target for e in entries if isinstance(e.entry, Correction)}
        return GameView(row, entries, events, seqs, corrected, profile, dist, layout)

    def summaries(self) -> list[dict]:
        """The summary of every game; a game whose log cannot be replayed is listed with its id,
        players and `damaged` (the reason) instead of taking the whole list down."""
        out = []
        for row in self.store.games():
            try:
                out.append(self.summary(self.load(row.id)))
            except DAMAGE as exc:
                out.append(dict(id=row.id, players=list(row.players), rules=row.rules, lang=row.lang,
                                layout=row.layout, created=row.created, meta=row.meta,
                                moves=0, scores=[0] * len(row.players), ended=False,
                                entries=self.store.count(row.id), damaged=f"{type(exc).__name__}: {exc}"))
        return out

    def summary(self, view: GameView) -> dict:
        state = view.game_at().state
        return dict(id=view.row.id, players=list(view.row.players), rules=view.row.rules, lang=view.row.lang,
                    layout=view.row.layout, created=view.row.created, meta=view.row.meta,
                    moves=len(view.events), scores=state.scores, ended=state.ended or view.closed,
                    entries=len(view.entries), on_turn=state.on_turn, bag=state.bag,
                    end_reason=state.end_reason or view.row.meta.get("closed_reason"))

    def moves(self, view: GameView) -> list[s.MoveOut]:
        """The recount's lines (scoring.recount, as `tilecam verify` prints them) with what the
        store adds: log rows, evidence frames, corrections."""
        frames = self.store.frame_seqs(view.row.id)
        out = []
        for ln, ev, seq in zip(recount(view.record()), view.events, view.seqs):
            out.append(s.MoveOut(
                index=ln.index, seq=seq, player=ln.player, nick=view.nicks[ln.player], kind=ln.kind,
                position=ln.position, word=ln.word, text=ln.text, rack=getattr(ev, "rack", None),
                claimed=ln.claimed, engine=ln.engine, agreed=ln.agreed, cumulative=ln.cumulative,
                totals=list(ln.totals), note=ev.note, corrected=seq in view.corrected, frame=seq in frames,
                blank_undecided=isinstance(ev, Play) and ev.blank_undecided))
        return out

    def board(self, view: GameView, turn: int | None = None) -> s.BoardOut:
        if turn is not None and not 0 <= turn <= len(view.events):
            raise NotFound(f"game {view.row.id} has no turn {turn} (0..{len(view.events)})")
        game = view.game_at(turn)
        st = game.state
        tiles = [s.TileOut(square=format_position(sq, Direction.ACROSS), row=sq.row, col=sq.col, letter=t.letter,
                           blank=t.blank) for sq, t in sorted(st.board.items())]
        return s.BoardOut(game_id=view.row.id, turn=len(game.events), rows=st.board.rows(),
                          premiums=list(view.layout.rows), tiles=tiles, last_play=_last_squares(game.events),
                          scores=st.scores, on_turn=st.on_turn, bag=st.bag)

    def unseen(self, view: GameView, turn: int | None = None, rack: str = "") -> s.UnseenOut:
        game = view.game_at(turn)
        pool = game.state.unseen_for(view.dist, rack)
        vowels = sum(n for t, n in pool.items() if t in VOWELS)
        blanks = pool.get(BLANK, 0)
        count = sum(pool.values())
        return s.UnseenOut(game_id=view.row.id, turn=len(game.events), pool=format_pool(pool, view.dist),
                           count=count, bag=game.state.bag,
                           tiles={t: pool[t] for t in view.dist.counts if pool.get(t)},
                           vowels=vowels, consonants=count - vowels - blanks, blanks=blanks)

    def gcg(self, view: GameView) -> str:
        return write_gcg(view.record(), view.profile, view.dist, view.layout)

    def live(self, game_id: int) -> s.LiveOut:
        """The overlay's state, cached until the log or the players change."""
        row = self.store.game(game_id)
        n = self.store.count(game_id)
        key = repr((row.players, row.meta))
        cached = self._live.get(game_id)
        if cached and cached[0] == n and cached[1] == key:
            return self._with_clock(game_id, cached[2])
        live = self._compute_live(self.load(game_id))
        self._live[game_id] = (n, key, live)
        return self._with_clock(game_id, live)

    def _compute_live(self, view: GameView) -> s.LiveOut:
        game = Game(view.profile, view.dist, view.layout, view.players)
        last_text = ""
        blanks: list[tuple[Square, str]] = []
        undecided = []
        for i, ev in enumerate(view.events):
            nick = view.row.players[ev.player]["name"]
            if isinstance(ev, Play):
                _, pos, word = play_notation(ev, game)
                last_text = f"{nick}: {pos} {word} {ev.agreed:+d}"
                blanks += [(t.square, t.letter) for t in ev.placement.tiles if t.blank]
                if ev.blank_undecided:
                    undecided.append(i)
            elif isinstance(ev, PhonyWithdrawn):
                last_text = f"{nick}: play withdrawn {ev.agreed:+d}"
            elif isinstance(ev, (Pass, Exchange, TurnLost)):
                last_text = f"{nick}: {describe(ev)}"
            else:
                last_text = f"{nick}: {describe(ev)} {getattr(ev, 'agreed', 0):+d}"
            game.append(ev)
        st = game.state
        # Blanks still on the board, in the order they were played.
        on_board = [letter for sq, letter in blanks if (t := st.board[sq]) is not None and t.blank]
        pool = st.unseen_for(view.dist)
        unseen = format_pool(pool, view.dist)
        names = [p["name"] for p in view.row.players]
        scores = st.scores
        fields = {"score": " - ".join(str(n) for n in scores)}
        # Every game has all four players' fields, so an OBS source for p3 of a two-player game
        # reads empty instead of failing.
        for i in range(s.MAX_PLAYERS):
            fields[f"p{i + 1}_score"] = str(scores[i]) if i < len(scores) else ""
            fields[f"p{i + 1}_name"] = names[i] if i < len(names) else ""
            fields[f"p{i + 1}_clock"] = ""  # filled in fresh on every read while a clock runs
        fields |= {
            "unseen_tiles": _grouped(pool, view.dist),
            "unseen_count": str(sum(pool.values())),
            "last_play": last_text,
            "blank1": on_board[0] if on_board else "",
            "blank2": on_board[1] if len(on_board) > 1 else "",
        }
        return s.LiveOut(
            game_id=view.row.id, seq=view.entries[-1].seq if view.entries else -1,
            players=list(view.row.players), scores=scores, on_turn=st.on_turn,
            ended=st.ended or view.closed, end_reason=st.end_reason or view.row.meta.get("closed_reason"),
            rows=st.board.rows(), premiums=list(view.layout.rows), last_play=_last_squares(game.events),
            last_text=last_text, unseen=unseen, unseen_count=sum(pool.values()), bag=st.bag,
            values=dict(view.dist.values), fields=fields, blank_undecided=undecided)

    def recount(self, view: GameView) -> s.RecountOut:
        """scoring.recount's report, with each line's log row."""
        lines = recount(view.record())
        found = [s.DiscrepancyOut(seq=view.seqs[d.index], **_fields(d, s.DiscrepancyOut)) for d in discrepancies(lines)]
        return s.RecountOut(game_id=view.row.id, players=list(view.row.players), rules=view.row.rules,
                            moves=[s.RecountMoveOut(seq=view.seqs[ln.index], **_fields(ln, s.RecountMoveOut))
                                   for ln in lines],
                            discrepancies=found, first_discrepancy=found[0] if found else None,
                            final=final_totals(view.record(), lines))

    def scoresheet(self, view: GameView, player: int, sheet: list[int]) -> s.ScoresheetOut:
        if not 0 <= player < view.players:
            raise InvalidInput(f"no player {player}; players are 0..{view.players - 1}")
        rows = [s.ScoresheetRow(**dataclasses.asdict(r)) for r in scoresheet(recount(view.record()), player, sheet)]
        first = next((r for r in rows if not r.agrees), None)
        return s.ScoresheetOut(game_id=view.row.id, player=player, rows=rows, agrees=first is None,
                               first_mismatch=first)

    # ---- writing ---------------------------------------------------------------
    def create_game(self, players: list[tuple[str, str | None]], rules: str = "naspa", lang: str = "en",
                    layout: str = "standard", meta: dict[str, str] | None = None) -> GameRow:
        get_profile(rules).check_players(len(players))  # ValueError naming the choices, the player range
        if lang not in DISTRIBUTIONS:
            raise InvalidInput(f"unknown tile set {lang!r}; choose one of {', '.join(DISTRIBUTIONS)}")
        if layout not in LAYOUTS:
            raise InvalidInput(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
        ps = _players(players)
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
            ps = _players(players)
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
               jpeg: bytes | None = None, path: str | None = None, sidecar: dict | None = None) -> list[int]:
        """Check each entry against the record as it stands inside one write transaction, append
        them all (each with the evidence frame and sidecar, when given), then publish. Returns
        their seqs.

        `expect`: how many log entries the caller believes the game has; another writer having
        appended since raises store.Conflict and nothing is written (re-read and decide again).
        Raises GameError/PlacementError with the engine's reason when an entry cannot follow."""
        seqs = []
        with self._lock(game_id):
            with self.store.writing():
                view = self.load(game_id)
                if expect is not None and len(view.entries) != expect:
                    raise Conflict(f"game {game_id} has {len(view.entries)} log entries, not {expect}: "
                                   "another writer added to it")
                for entry in entries:
                    self._check(view, entry)
                    seqs.append(self.store.append(game_id, entry, len(view.entries), jpeg, path, sidecar))
                    view = self.load(game_id)  # the next entry follows this one
            for entry, seq in zip(entries, seqs):
                self._publish(game_id, entry, seq)
        return seqs

    @staticmethod
    def _check(view: GameView, entry: LogEntry) -> None:
        if isinstance(entry, Correction):
            # The amended record must still replay: every later event is rebuilt on it.
            effective_events([e.entry for e in view.entries] + [entry], view.profile, view.dist,
                             view.layout, view.players)
            return
        if view.closed and isinstance(entry, TURN_EVENTS):
            raise GameError(f"game {view.row.id} was ended by {view.row.meta['closed_by']}; "
                            "only corrections and penalties are accepted")
        # Rebuilt from what was said and done, the event must come out as given:
        # a legal placement, the engine's score, the right running total.
        rebuilt = view.game_at().rebuild(entry, getattr(entry, "agreed", None))
        if getattr(rebuilt, "engine", None) != getattr(entry, "engine", None):
            raise GameError(f"engine score {entry.engine} is not what the rules give ({rebuilt.engine})")
        if rebuilt.cumulative != entry.cumulative:
            raise GameError(f"cumulative {entry.cumulative} is not what the record gives "
                            f"({rebuilt.cumulative})")

    def build(self, game_id: int, make: Callable[[Game], Event | Iterable[Event] | None],
              turn_event: bool = True) -> list[int]:
        """Run a Game builder on the record as it stands (e.g. ``lambda g: g.play(0, placement)``),
        then store and publish what it appended. Builders compute engine scores and cumulatives.
        The record is read inside the write transaction, so no other writer can slip in between."""
        with self._lock(game_id):
            with self.store.writing():
                view = self.load(game_id)
                if turn_event and view.closed:
                    raise GameError(f"game {game_id} was ended by {view.row.meta['closed_by']}; "
                                    "only corrections and penalties are accepted")
                game = view.game_at()
                before = len(game.events)
                make(game)
                added = game.events[before:]
                seqs = [self.store.append(game_id, ev, len(view.entries) + i) for i, ev in enumerate(added)]
            for ev, seq in zip(added, seqs):
                self._publish(game_id, ev, seq)
            return seqs

    def put_frame(self, game_id: int, seq: int, jpeg: bytes | None = None, path: str | None = None) -> None:
        """Evidence for log entry `seq`: the JPEG it was read from, or a path to it."""
        with self.store.writing():
            if not 0 <= seq < self.store.count(game_id):
                raise NotFound(f"game {game_id} has no log entry {seq}")
            self.store.put_frame(game_id, seq, jpeg, path)

    def announce_external(self) -> list[int]:
        """Publish entries another process (a recorder beside the server) wrote to the shared
        SQLite file. Returns the games announced; the first call only takes stock."""
        announced = []
        first = not self._published
        for row in self.store.games():
            n = self.store.count(row.id)
            seen = self._published.get(row.id)
            if seen is None and first:
                self._published[row.id] = n
            elif n > (seen or 0):
                with self._lock(row.id):
                    rows = self.store.entries(row.id)
                    self._publish(row.id, rows[-1].entry if rows else None, n - 1 if n else None)
                announced.append(row.id)
        return announced

    def _publish(self, game_id: int, entry: LogEntry | None = None, seq: int | None = None) -> s.LiveOut:
        committed = self.clock()
        self._published[game_id] = max(self._published.get(game_id, 0), self.store.count(game_id))
        live = self.live(game_id)
        if live.ended and live.clock is not None and not live.clock.finished:
            # The game is over: the clock stops (at the last player's press, if that came last).
            with self._lock(game_id):
                self._clocks[game_id].finish(self.steady(), getattr(entry, "player", None))
            live = self.live(game_id)
        data = {"live": live.model_dump(), "entry": to_json(entry) if entry is not None else None,
                "committed": committed}
        self.bus.publish(BusMessage(game_id, live.seq if seq is None else seq, "update", data))
        return live

    # ---- operator actions: what the console's buttons mean under the game's rules ----
    @staticmethod
    def _tiles(g: Game, text: str | None, what: str) -> str | None:
        return g.dist.check_tiles(text, what)

    @staticmethod
    def _player(g: Game, player: int | None) -> int:
        """The given player (checked) or the player on turn."""
        if player is None:
            return g.state.on_turn
        if not 0 <= player < g.players:
            raise InvalidInput(f"no player {player}; players are 0..{g.players - 1}")
        return player

    def play(self, game_id: int, position: str, word: str, player: int | None = None,
             claimed: int | None = None, rack: str | None = None, note: str = "") -> list[int]:
        def make(g: Game):
            return g.play(self._player(g, player), placement_from_gcg(g, position, word), claimed,
                          self._tiles(g, rack, "rack"), note)
        return self.build(game_id, make)

    def pass_turn(self, game_id: int, player: int | None = None, rack: str | None = None,
                  note: str = "") -> list[int]:
        return self.build(game_id, lambda g: g.pass_turn(self._player(g, player), self._tiles(g, rack, "rack"),
                                                         note))

    def exchange(self, game_id: int, count: int | None = None, tiles: str | None = None,
                 player: int | None = None, rack: str | None = None, note: str = "") -> list[int]:
        def make(g: Game):
            n = len(g.dist.tokens(self._tiles(g, tiles, "exchanged tiles"))) if tiles else count
            if not n:
                raise InvalidInput("an exchange needs a count or the tiles")
            if n > g.dist.rack_size:
                raise InvalidInput(f"cannot exchange {n} tiles from a rack of {g.dist.rack_size}")
            return g.exchange(self._player(g, player), n, tiles, self._tiles(g, rack, "rack"), note)
        return self.build(game_id, make)

    def challenge(self, game_id: int, outcome: str, words: int | None = None,
                  challenger: int | None = None) -> list[int]:
        """A challenge of the last play and its outcome; the game's rules decide what it does
        (scoring.game.Game.challenge)."""
        return self.build(game_id, lambda g: g.challenge(outcome, challenger, words), turn_event=False)

    def time_penalty(self, game_id: int, player: int, minutes: int) -> list[int]:
        return self.build(game_id, lambda g: g.time_penalty(self._player(g, player), minutes), turn_event=False)

    def end(self, game_id: int, racks: list[str] | None, reason: str, by: str) -> list[int]:
        """Final racks and the end of the game: the out-play's rack points, or each player's own
        rack off after six zeros, or a director ending the game (recorded in meta)."""
        # One transaction: the end is decided on the record as it stands, and the racks and the
        # closing go in together (build joins it; its live update goes out just before the commit).
        with self._lock(game_id), self.store.writing():
            view = self.load(game_id)
            if any(isinstance(e, (EndRackPoints, EndRackPenalty)) for e in view.events) or view.closed:
                raise GameError("the game has already been ended and its final racks entered")
            if racks is not None:
                if len(racks) != view.players:
                    raise InvalidInput(f"give one rack per player ({view.players})")
                for rack in racks:
                    view.dist.check_tiles(rack, "rack")
            state = view.game_at().state

            def make(g: Game):
                if state.end_reason == "out":
                    return g.finish_out(racks)
                if racks is None:
                    if state.ended and g.profile.zeros_end_penalty:
                        raise InvalidInput("the game ended without a player going out: give each player's rack")
                    return []
                if state.ended and not g.profile.zeros_end_penalty:
                    return []
                return [g.end_rack_penalty(p, rack) for p, rack in enumerate(racks) if rack]

            seqs = self.build(game_id, make, turn_event=False)
            if not state.ended:
                self.store.update_game(game_id, meta={"closed_by": by,
                                                      "closed_reason": reason or "ended by the director"})
                self._publish(game_id)
            return seqs

    def correct(self, game_id: int, index: int, fix: s.BlankFix | s.LetterFix | s.PlayFix | s.ExchangeFix
                | s.PassFix | s.ScoreFix, by: str) -> int:
        """A Correction entry amending move `index`, named after the token that made it."""
        with self._lock(game_id), self.store.writing():  # the move amended is the one that stands
            view = self.load(game_id)
            seq = view.event_seq(index)
            ev = view.events[index]
            agreed = None
            prior = [e.entry for e in view.entries if isinstance(e.entry, Correction) and e.entry.target == seq]
            if prior:
                agreed = prior[-1].agreed  # a ruling stands through later fixes of the same move
            match fix:
                case s.BlankFix() | s.LetterFix():
                    if not isinstance(ev, Play):
                        raise InvalidInput(f"move {index} is a {ev.kind}, not a play: it placed no tiles")
                    sq = parse_square(fix.square, view.layout)
                    letter = fix.letter.upper()
                    if letter not in view.dist.values:
                        raise InvalidInput(f"{fix.letter!r} is not a letter of the {view.dist.name} set")
                    hit = [t for t in ev.placement.tiles if t.square == sq]
                    if not hit:
                        raise InvalidInput(f"move {index} placed no tile on {fix.square}")
                    blank = True if isinstance(fix, s.BlankFix) else hit[0].blank
                    tiles = tuple(PlacedTile(t.square, letter, blank) if t.square == sq else t
                                  for t in ev.placement.tiles)
                    note = ev.note
                    if blank:  # the blank's letter is named now: the writer's "not read" note goes
                        note = "\n".join(ln for ln in note.split("\n") if BLANK_NOT_READ not in ln)
                    replacement = dataclasses.replace(ev, placement=dataclasses.replace(ev.placement, tiles=tiles),
                                                      note=note)
                case s.PlayFix():
                    if not isinstance(ev, Play):
                        raise InvalidInput(f"move {index} is a {ev.kind}, not a play")
                    placement = placement_from_gcg(view.game_at(index), fix.position, fix.word)
                    replacement = dataclasses.replace(ev, placement=placement)
                case s.ExchangeFix():
                    if not isinstance(ev, (Pass, Exchange, TurnLost)):
                        raise InvalidInput(f"move {index} is a {ev.kind}; only a pass becomes an exchange")
                    if fix.count > view.dist.rack_size:
                        raise InvalidInput(f"cannot exchange {fix.count} tiles from a rack of {view.dist.rack_size}")
                    tiles = view.dist.check_tiles(fix.tiles, "exchanged tiles")
                    if tiles is not None and len(view.dist.tokens(tiles)) != fix.count:
                        raise InvalidInput(f"{tiles!r} is not {fix.count} tiles")
                    replacement = Exchange(ev.player, fix.count, tiles, ev.cumulative, ev.rack, ev.note)
                case s.PassFix():
                    if not isinstance(ev, (Pass, Exchange, TurnLost)):
                        raise InvalidInput(f"move {index} is a {ev.kind}; only an exchange becomes a pass")
                    replacement = Pass(ev.player, ev.cumulative, ev.rack, ev.note)
                case s.ScoreFix():
                    if not hasattr(ev, "agreed"):
                        raise InvalidInput(f"move {index} is a {ev.kind}, which scores nothing")
                    replacement, agreed = ev, fix.agreed
            return self.append(game_id, Correction(seq, replacement, by, agreed, fix.reason))

    # ---- the game clock (scoring.clock): kept in memory beside the record -------------------
    def start_clock(self, game_id: int, minutes: int | None = None) -> GameClock:
        """A clock for the game from its rules (`minutes` per player overrides the profile's); it
        runs from the first press. A game has one clock: a second start is a 409."""
        view = self.load(game_id)
        with self._lock(game_id):
            if game_id in self._clocks:
                raise GameError(f"game {game_id} already has a clock")
            if view.game_at().state.ended or view.closed:
                raise GameError(f"game {game_id} is over: it needs no clock")
            self._clocks[game_id] = GameClock.for_rules(view.profile, view.players, minutes)
        self._publish(game_id)
        return self._clocks[game_id]

    def has_clock(self, game_id: int) -> bool:
        return game_id in self._clocks

    def game_clock(self, game_id: int) -> GameClock:
        self.store.game(game_id)  # no such game: 404
        clock = self._clocks.get(game_id)
        if clock is None:
            raise NotFound(f"game {game_id} has no clock; start one first")
        return clock

    def clock_press(self, game_id: int, player: int | None, t: float | None = None) -> ClockPress:
        """`player` hit their side of the clock at `t` (steady time; default now)."""
        with self._lock(game_id):
            press = self.game_clock(game_id).press(player, self.steady() if t is None else t)
        self._publish(game_id)
        return press

    def clock_pause(self, game_id: int, paused: bool | None = None, t: float | None = None) -> bool:
        """Pause (True), resume (False) or toggle (None, the pause button); returns paused."""
        t = self.steady() if t is None else t
        with self._lock(game_id):
            clock = self.game_clock(game_id)
            if paused is None:
                paused = clock.toggle_pause(t)
            elif paused:
                clock.pause(t)
            else:
                clock.resume(t)
        self._publish(game_id)
        return paused

    def clock_undo(self, game_id: int, player: int | None = None, t: float | None = None) -> int | None:
        """Take back the last press (`player`: only if it was theirs); returns whose clock runs."""
        with self._lock(game_id):
            running = self.game_clock(game_id).undo(player, self.steady() if t is None else t)
        self._publish(game_id)
        return running

    def clock_handlers(self, game_id: int) -> dict[str, Callable]:
        """The callbacks hardware.buttons.connect takes, bound to this game's clock."""
        def on_press(player: int | None, t: float) -> int | None:
            press = self.clock_press(game_id, player, t)
            return press.player if press.kind == "turn_end" else None
        return {"on_press": on_press,
                "on_pause": lambda t: self.clock_pause(game_id, None, t),
                "on_undo": lambda player, t: self.clock_undo(game_id, player, t)}

    def clock_finish(self, game_id: int) -> list[int]:
        """The game is over: stop its clock and enter each player's overtime as a TimePenalty
        (minutes started over, points from the rules), once; a player the rules say lost on time
        has it said in the note. Returns the log rows written."""
        with self._lock(game_id):
            clock = self.game_clock(game_id)
            view = self.load(game_id)
            turns = [e for e in view.events if isinstance(e, (*TURN_EVENTS, PhonyWithdrawn, TurnLost))]
            st = clock.finish(self.steady(), turns[-1].player if turns else None)
            entered = {e.player for e in view.events if isinstance(e, TimePenalty)}
            seqs: list[int] = []
            for p, minutes in enumerate(st.overtime_minutes):
                if not minutes or p in entered:
                    continue
                note = f"overtime {format_clock(st.remaining_s[p])}"
                if st.lost_on_time[p]:
                    note += f"; more than {clock.overtime_forfeit_minutes} minutes over: lost on time"
                seqs += self.build(game_id, lambda g, p=p, m=minutes, n=note: g.time_penalty(p, m, note=n),
                                   turn_event=False)
        self._publish(game_id)
        return seqs

    def _with_clock(self, game_id: int, live: s.LiveOut) -> s.LiveOut:
        """The live state with the clock as of now: never cached, it changes every second."""
        clock = self._clocks.get(game_id)
        if clock is None:
            return live
        st = clock.state(self.steady())
        out = s.ClockOut(
            at=self.clock(), running=st.running, on_clock=st.on_clock, paused=st.paused, started=st.started,
            finished=st.finished, initial_ms=round(st.initial_s * 1000),
            remaining_ms=[round(r * 1000) for r in st.remaining_s], overtime_minutes=list(st.overtime_minutes),
            penalties=list(st.penalties), lost_on_time=list(st.lost_on_time))
        fields = dict(live.fields)
        for p, r in enumerate(st.remaining_s):
            fields[f"p{p + 1}_clock"] = format_clock(r)
        return live.model_copy(update={"clock": out, "fields": fields})


def _fields(row, model) -> dict:
    """A recount dataclass's fields that the response model has."""
    return {k: v for k, v in dataclasses.asdict(row).items() if k in model.model_fields}


def _last_squares(events: list[Event]) -> list[str]:
    if events and isinstance(events[-1], Play):
        return [format_position(t.square, Direction.ACROSS) for t in events[-1].placement.tiles]
    return []


def _grouped(pool: Counter, dist: Distribution) -> str:
    """One group per tile, 'AAA B EE ??', as broadcast overlays show the pool."""
    return " ".join(dist.spell([tile] * pool[tile]) for tile in dist.counts if pool.get(tile))
