"""The overlay's live state of each game (/live, /fields, every page's update), and publishing it.

Every change to a game ends with ``publish``: the game's live state, computed once and cached for
every page and every SSE client until the log, the players or the meta change, goes out on the
bus. The state is kept up entry by entry (``LiveFold``, one per game): after a commit the entries
the writer just appended are taken from its kept record (``Writer.kept``) and added to the fold,
so a commit reads no log and replays nothing here either. A log someone else changed (another
process, a station's forwarded entries, an operator's build), or one a correction or a void
rewrote, is read and replayed once, as a game is the first time a page asks for it. The racks and
the clock are filled in fresh on every read (``Racks.with_racks``, ``ClockGlue.with_clock``).

An OBS field is one key of ``LiveFold.out``'s `fields` (and of api/service/types.py's LiveOut),
drawn by api/static/overlay.js.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecam.scoring import (ChallengeBonus, Correction, Distribution, Event, Exchange, Game, GameError, GameState,
                             Layout, LogEntry, NOT_EVENTS, Pass, PhonyWithdrawn, Play, RuleProfile, Square, TurnLost,
                             TURNS_INFERRED, TurnWatch, Void, describe, describe_turns, format_pool, hedge, is_over,
                             learning, to_json, vowel_split)
from tilecam.scoring.gcg import shown_play

import tilecam.api.service.types as s
from ..bus import BusMessage
from ..errors import NotFound
from ..store import GameRow
from .clock import ClockGlue
from .context import Context
from .ingest import clock_state, forwarded_clock
from .queries import END_ADJUSTMENTS, _confirmed, _grouped, _last_squares, _reading
from .racks import LIVE, RackPolicy, Racks, without_rack
from .view import GameView, close_of, end_reason_of, given_tiles

if TYPE_CHECKING:
    from .writer import Replayed, Writer

__all__ = ["Live", "LiveFold"]


class LiveFold:
    """One game's live state as its log is read entry by entry (what ``LiveFold.of`` replays once
    for a game read from the store, and ``take`` continues with the entries appended since): the
    record's state, the last move in words, the blanks, the reviews and the turn order."""

    def __init__(self, row: GameRow, key: str, profile: RuleProfile, dist: Distribution, layout: Layout,
                 confirmed: set[int]) -> None:
        self.row, self.key = row, key          # the players and meta it was read with (the cache key)
        self.dist, self.layout = dist, layout
        self.game = Game(profile, dist, layout, len(row.players))  # the record's state; its events
        self.logged: list[LogEntry] = []       # the log as folded
        self.log_seqs: list[int] = []          # each log entry's seq
        self.seqs: list[int] = []              # log row of each event's original entry
        self.confirmed = confirmed             # seqs of moves a person corrected or confirmed
        self.turns = TurnWatch(len(row.players))
        self.last_text = ""
        self.last_word = ""
        self.played: s.LastPlayOut | None = None  # the last play in parts while last_text says it
        self.blanks: list[tuple[Square, str]] = []
        self.undecided: list[int] = []
        self.unconfirmed: list[int] = []
        self.shown: dict[int, str] = {}        # each play's word as people read it, by event index

    @classmethod
    def of(cls, view: GameView, key: str) -> "LiveFold":
        """The fold of a game read from the store: its whole log replayed, once."""
        fold = cls(view.row, key, view.profile, view.dist, view.layout, _confirmed(view))
        fold.logged = [e.entry for e in view.entries]
        fold.log_seqs = [e.seq for e in view.entries]
        for ev, seq in zip(view.events, view.seqs):
            fold._add(ev, seq)
        return fold

    @property
    def n(self) -> int:
        return len(self.logged)

    @property
    def events(self) -> list[Event]:
        return self.game.events

    def take(self, record: "Replayed") -> bool:
        """The entries the writer's kept `record` (the store's log, longer than this fold's) holds
        beyond this fold's, added; False, with nothing added, when one of them rewrites history (a
        correction, a void: the log is read again) or the record is not this log continued."""
        new = record.logged[self.n:]
        events = record.events[len(self.events):]
        moves = [i for i, e in enumerate(new) if not isinstance(e, NOT_EVENTS)]  # each a new event
        if (not new or any(isinstance(e, (Correction, Void)) for e in new) or len(moves) != len(events)
                or (self.log_seqs and self.log_seqs[-1] != self.n - 1)):  # seqs count the log from 0
            return False
        base = self.n
        self.logged += new
        self.log_seqs += range(base, base + len(new))
        for i, ev in zip(moves, events):
            self._add(ev, base + i)
        return True

    def _add(self, ev: Event, seq: int) -> None:
        """One event of the record as it stands, appended."""
        game = self.game
        i = len(game.events)
        nick = self.row.players[ev.player]["name"]
        played = None   # the last play in parts, while last_text says it
        if isinstance(ev, Play):
            pos, self.last_word = shown_play(ev, game)
            self.shown[i] = self.last_word
            played = s.LastPlayOut(player=ev.player, position=pos, word=self.last_word, score=ev.agreed)
            self.last_text = _play_said(nick, played)
            self.blanks += [(t.square, t.letter) for t in ev.placement.tiles if t.blank]
            if ev.blank_undecided:
                self.undecided.append(i)
        elif isinstance(ev, PhonyWithdrawn):
            word = self.shown.get(game.state.last_play, "play")  # the play it takes off, before it goes
            self.last_text = f"{nick}: {word} withdrawn {ev.agreed:+d}"
        elif isinstance(ev, (Pass, Exchange, TurnLost)):
            # every page's words: an exchange's tiles only the rack cameras saw are not in them
            self.last_text = f"{nick}: {describe(without_rack(ev))}"
        elif isinstance(ev, END_ADJUSTMENTS):
            played = self.played
        elif isinstance(ev, ChallengeBonus) and self.played is not None and isinstance(game.events[i - 1], Play):
            # The bonus follows the challenged play: viewers still want to see that play.
            played = self.played.model_copy(update={"bonus": ev.agreed})
            self.last_text = _play_said(self.row.players[played.player]["name"], played)
        else:
            self.last_text = f"{nick}: {describe(ev)} {getattr(ev, 'agreed', 0):+d}"
        self.played = played
        if not isinstance(ev, (Play, ChallengeBonus, *END_ADJUSTMENTS)):
            self.last_word = ""
        if _reading(ev, seq in self.confirmed)["review"]:
            self.unconfirmed.append(i)
        self.turns.see(ev, game.state)
        game.append(ev)
        self.seqs.append(seq)

    def out(self) -> s.LiveOut:
        """The live state of the record as folded (no racks, no clock: those are read fresh)."""
        row, dist, game = self.row, self.dist, self.game
        close = close_of(self.logged, row)
        order = self.turns.order()
        st = game.state
        over = is_over(st, None if close is None else close.by)
        # Blanks still on the board, in the order they were played.
        on_board = [letter for sq, letter in self.blanks if (t := st.board[sq]) is not None and t.blank]
        pool = st.unseen_for(dist)
        vowels, consonants, _ = vowel_split(pool, dist)
        names = [p["name"] for p in row.players]
        scores = st.scores
        fields = {"score": " - ".join(str(n) for n in scores)}
        # Every game has all four players' fields, so an OBS source for p3 of a two-player game
        # reads empty instead of failing.
        for i in range(s.MAX_PLAYERS):
            fields[f"p{i + 1}_score"] = str(scores[i]) if i < len(scores) else ""
            fields[f"p{i + 1}_name"] = names[i] if i < len(names) else ""
            fields[f"p{i + 1}_clock"] = ""  # filled in fresh on every read while a clock runs
        fields |= {
            "unseen_tiles": _grouped(pool, dist),
            "unseen_count": str(sum(pool.values())),
            "last_play": self.last_text,
            "last_word": self.last_word,
            # the player on turn's name; empty once the game is over
            "on_turn": "" if over else names[st.on_turn],
            "vowels_consonants": f"{_count(vowels, 'vowel')} · {_count(consonants, 'consonant')}",
            # The result only once the end is final: the rack points still move the spread.
            **_result(names, scores, game.settled or close is not None, bool(order.inferred)),
            "blank1": on_board[0] if on_board else "",
            "blank2": on_board[1] if len(on_board) > 1 else "",
        }
        unconfirmed = list(self.unconfirmed)
        return s.LiveOut(
            game_id=row.id, seq=self.log_seqs[-1] if self.log_seqs else -1,
            players=list(row.players), scores=list(scores), on_turn=st.on_turn,
            ended=over, end_reason=end_reason_of(st, close),
            rows=st.board.rows(), premiums=list(self.layout.rows), last_play=_last_squares(game.events),
            last_text=self.last_text, last_played=self.played, unseen=format_pool(pool, dist),
            unseen_count=sum(pool.values()), bag=st.bag,
            values=dict(dist.values), fields=fields, blank_undecided=list(self.undecided), unconfirmed=unconfirmed,
            last_unconfirmed=bool(game.events) and len(game.events) - 1 in unconfirmed,
            turns=describe_turns(order, names), turns_inferred=list(order.inferred), hedge=hedge(order),
            out_of_turn=[w.index for w in order.out_of_turn],
            learning=_learning(row.meta, game.events, self.logged, dist))

    def shown_state(self) -> "_Shown":
        """What a read of the live state takes from this fold, as of now (the fold goes on under
        the game's lock; a read holds no lock, so it gets copies)."""
        st = self.game.state
        close = close_of(self.logged, self.row)
        return _Shown(self.n, self.key, self.out(), list(self.events), _frozen(st),
                      is_over(st, None if close is None else close.by), self.game.profile, self.dist, self.layout,
                      len(self.row.players))


@dataclass
class _Shown:
    """A game's live state as last computed, with what a read fills the racks in from: the record's
    state (a copy), its events, whether it is over, and the states before the moves whose racks
    went on air (replayed once each, when asked)."""

    n: int                  # log entries it holds
    key: str                # the players and meta it was computed with
    live: s.LiveOut
    events: list[Event]
    state: GameState
    over: bool
    profile: RuleProfile
    dist: Distribution
    layout: Layout
    players: int
    before: dict[int, GameState] = field(default_factory=dict)

    def unseen_of(self, rack: str, at: int | None):
        # a move's rack shown after it: what its player could not see then, the board before it
        if at is not None and at not in self.before:
            self.before[at] = Game(self.profile, self.dist, self.layout, self.players, self.events[:at]).state
        try:
            return (self.state if at is None else self.before[at]).unseen_for(self.dist, rack)
        except (GameError, ValueError):  # a read the set cannot hold beside the board: no pool
            return None


class Live:
    """The live state of each game (cached, kept up entry by entry) and its publishing on the bus."""

    def __init__(self, ctx: Context, racks: Racks, clocks: ClockGlue, writer: "Writer") -> None:
        self.ctx, self.racks, self.clocks, self.writer = ctx, racks, clocks, writer
        self._shown: dict[int, _Shown] = {}      # game -> its live state as last computed
        self._folds: dict[int, LiveFold] = {}    # game -> its fold (used under the game's lock)
        self._published: dict[int, int] = {}    # game -> log length last announced on the bus
        self._clocks_shown: dict[int, tuple | None] = {}  # game -> its clock's state in that update
        self._changes_mark: int | None = None   # the store's change mark announce_external read last

    def live(self, game_id: int, racks: RackPolicy = LIVE) -> s.LiveOut:
        """The overlay's state, cached until the log or the players change; the racks in it (and
        their OBS fields) as `racks` lets them out, read fresh."""
        store = self.ctx.store
        row = store.game(game_id)
        shown = self._shown.get(game_id)
        if shown is None or shown.n != store.count(game_id) or shown.key != _key(row):
            shown = self._refresh(game_id)
        live = self.racks.with_racks(game_id, shown.live, len(shown.events), racks, shown.unseen_of,
                                     lambda pool: _grouped(pool, shown.dist), shown.events, shown.dist, shown.over)
        return self.clocks.with_clock(game_id, live, row.meta)

    def _refresh(self, game_id: int) -> _Shown:
        """The game's live state computed again, under its lock: the fold taken on by the entries
        the writer appended since (its kept record), else the log read and replayed once."""
        store = self.ctx.store
        with self.ctx.lock(game_id):
            row = store.game(game_id)
            n = store.count(game_id)
            key = _key(row)
            fold = self._folds.pop(game_id, None)   # back in once it holds the log as it stands
            if fold is not None and not (fold.key == key and fold.n <= n):
                fold = None
            if fold is not None and fold.n < n:
                record = self.writer.kept(game_id, n)
                try:
                    if record is None or not fold.take(record):
                        fold = None
                except (GameError, ValueError, LookupError, TypeError):  # read again, and fail as a read does
                    fold = None
            if fold is None:
                fold = LiveFold.of(self.ctx.load(game_id), key)
            shown = fold.shown_state()
            self._folds[game_id] = fold
            self._shown[game_id] = shown
            return shown

    # ---- publishing
    def publish(self, game_id: int, entry: LogEntry | None = None, seq: int | None = None) -> s.LiveOut:
        """The game's live state on the bus (with `entry`, logged as `seq`, when an entry made it).
        A game that is over stops its clock here, when one runs in this service."""
        store = self.ctx.store
        committed = self.ctx.clock()
        self._published[game_id] = max(self._published.get(game_id, 0), store.count(game_id))
        live = self.live(game_id)
        if live.ended and live.clock is not None and not live.clock.finished and self.clocks.has_clock(game_id):
            # The game is over: the clock stops (its overtime goes in with the end: GameEnd.end_clock).
            # A clock a station forwards is not here: it stops there, and its next heartbeat says so.
            with self.ctx.lock(game_id):
                self.clocks.stop_at_end(game_id, self.ctx.load(game_id))
            live = self.live(game_id)
        self._clocks_shown[game_id] = clock_state(live.clock)
        data = {"live": live.model_dump(), "entry": to_json(entry) if entry is not None else None,
                "committed": committed}
        self.ctx.bus.publish(BusMessage(game_id, live.seq if seq is None else seq, "update", data))
        return live

    def publish_written(self, game_id: int, seqs: list[int]) -> None:
        """One update per entry written (after the commit), or the live state when none was."""
        rows = {e.seq: e.entry for e in self.ctx.store.entries(game_id)} if seqs else {}
        for seq in seqs:
            self.publish(game_id, rows[seq], seq)
        if not seqs:
            self.publish(game_id)

    def announce_external(self, wait_s: float = 0.0) -> list[int]:
        """Publish entries other writers (a recorder in another process, another server on the
        database) added since the last call. One cheap question to the store, which games changed
        since our mark; only those are read again. Returns the games announced; the first call
        only takes its mark. With `wait_s`, the store first waits up to that long for a change
        (the server's watcher: a PostgreSQL commit's NOTIFY wakes it at once)."""
        store = self.ctx.store
        first = self._changes_mark is None
        changes = store.changes(self._changes_mark) if first or not wait_s else \
            store.wait_changes(self._changes_mark, wait_s)
        self._changes_mark = changes.mark
        if first:
            return []
        games = changes.games if changes.games is not None else {row.id for row in store.games()}
        announced = []
        for game_id in sorted(games):
            with self.ctx.lock(game_id):  # a writer of ours publishes under this lock: no double update
                try:
                    n = store.count(game_id)
                    # Every entry added since the last look, each as its own update, as the writing
                    # server publishes them (a forwarded batch, a station catching up). Of a game this
                    # server has not followed (created before it started), the newest alone.
                    known = self._published.get(game_id, 0 if n == 0 else n - 1)
                    self._published.setdefault(game_id, known)
                    if n <= known:  # ours, already published, or not a new entry ...
                        if not self._clock_moved(game_id):
                            continue
                        self.publish(game_id)  # ... but a station's clock, pressed at another server
                    for row in store.entries(game_id)[known:]:
                        self.publish(game_id, row.entry, row.seq)
                except NotFound:  # discarded since
                    continue
            announced.append(game_id)
        return announced

    def _clock_moved(self, game_id: int) -> bool:
        """Whether the game's clock was pressed, paused or stopped by another process on the
        store (its table log), or the clock a station forwards (its heartbeat, taken by any server
        on the database) since this server's last update of the game."""
        if self.clocks.moved_elsewhere(game_id):
            return True
        if game_id not in self._clocks_shown or self.clocks.has_clock(game_id):
            return False
        return clock_state(forwarded_clock(self.ctx.store.game(game_id).meta, 0.0)) != self._clocks_shown[game_id]


def _key(row: GameRow) -> str:
    """What a live state was computed with beside the log: the players and the meta."""
    return repr((row.players, row.meta))


def _frozen(state: GameState) -> GameState:
    """A copy of `state` the fold's next entries leave alone (its board and counts its own)."""
    out = copy.copy(state)
    out.board = state.board.copy()
    out.scores, out.rack_sizes, out.turns_lost = list(state.scores), list(state.rack_sizes), list(state.turns_lost)
    out.peak, out.on_board = state.peak.copy(), state.on_board.copy()
    return out


def _play_said(name: str, played: s.LastPlayOut) -> str:
    """The last play in words, from its parts: 'Nigel Richards: 8F ZE(B)rA +44, challenge bonus +5'."""
    bonus = "" if played.bonus is None else f", challenge bonus {played.bonus:+d}"
    return f"{name}: {played.position} {played.word} {played.score:+d}{bonus}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def _result(names: list[str], scores: list[int], ended: bool, inferred: bool = False) -> dict[str, str]:
    """The OBS fields of a finished game: the winner (`Tie` when the top scores tie), the spread
    over the runner-up and one line for a lower third; empty while the game goes on. `inferred`:
    a turn was inferred (scoring.turns), so who won is a guess, and each field says so."""
    if not ended:
        return {"winner": "", "spread": "", "result": ""}
    top = sorted(scores, reverse=True)
    spread = top[0] - top[1]
    if spread == 0:
        out = {"winner": "Tie", "spread": "0", "result": f"Tie at {top[0]}"}
    else:
        winner = names[scores.index(top[0])]
        out = {"winner": winner, "spread": f"+{spread}", "result": f"{winner} wins by {spread}"}
    return {k: f"{v} ({TURNS_INFERRED})" for k, v in out.items()} if inferred else out


def _learning(meta: dict, events: list[Event], logged: list[LogEntry], dist: Distribution) -> s.LearningOut | None:
    """How far the table's tiles are learned (scoring.trust), for a game the camera reads: one
    with a camera play, or tiles its table learned before; None for a game entered by hand."""
    given = given_tiles(meta)
    if not given and not any(isinstance(ev, Play) and ev.certainty is not None for ev in events):
        return None
    got = learning(logged, dist, given)
    return s.LearningOut(seen=got.seen, of=got.of, confirmed=got.confirmed, missing=list(got.missing),
                         trusted=got.trusted, text=got.text)
