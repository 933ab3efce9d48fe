"""The read side of the game service: summaries, moves, the board, the unseen pool, the recount,
the scoresheet check and GCG (the overlay's live state is api/service/live.py's).
"""
from __future__ import annotations

import dataclasses
import re
from collections import Counter

from tilecam.scoring import (note_of, Correction, Direction, Distribution, EndRackPenalty, EndRackPoints, Event, Exchange,
                             Pass,
                             Game, GameError, GameState, PlacementError, Play, TimePenalty, TurnOrder, Void, changes,
                             confirmed as confirmed_moves, discrepancies, final_totals, format_pool, hedge,
                             reading_excess, recount_lines as recount, score_placement, scoresheet, tile_changes,
                             to_json, turn_order, turns_hedge, vowel_split)
from tilecam.scoring.gcg import (format_position, format_square, placement_from_gcg, woogles_gap, woogles_link,
                                 write_gcg)

import tilecam.api.service.types as s
from ..errors import InvalidInput, NotFound
from ..store import EntryRow, FrameRow, GameRow
from .ingest import forwarded_by, station_console
from .context import Context
from .evidence import board_view
from .racks import LIVE, RackPolicy, Racks, entry_for_viewer, for_viewer, rack_text
from .tablelog import TableLog, read_table_log
from .view import DAMAGE, GameView

__all__ = ["Queries"]

# What the end adds to the scores (rack points, overtime): the result says it; the last play stays
# the turn that ended the game, e.g. the going-out play.
END_ADJUSTMENTS = (EndRackPoints, EndRackPenalty, TimePenalty)


class Queries:
    """Reading games: what the routes, the CLI and the station ask of a game's record (the live
    state is api/service/live.py's)."""

    def __init__(self, ctx: Context, racks: Racks) -> None:
        self.ctx, self.store, self.racks = ctx, ctx.store, racks

    def games(self) -> list[GameRow]:
        return self.store.games()

    def game(self, game_id: int) -> GameRow:
        """The game's row (players, rules, meta); NotFound for an unknown id."""
        return self.store.game(game_id)

    def count(self, game_id: int) -> int:
        """How many log entries the game has (corrections and voids included)."""
        return self.store.count(game_id)

    def entries(self, game_id: int) -> list[EntryRow]:
        """The game's log as stored, each entry with its seq and sidecar."""
        return self.store.entries(game_id)

    def frame(self, game_id: int, seq: int) -> FrameRow:
        """The evidence frame of log entry `seq`; NotFound when none was kept."""
        return self.store.frame(game_id, seq)

    def board_frame(self, game: GameView, index: int) -> bytes:
        """Move `index`'s evidence frame rectified to the board, as a JPEG (api/service/evidence.py)."""
        return board_view(game, index, self.frame(game.row.id, game.event_seq(index)))

    def table_log(self, game_id: int) -> TableLog:
        """The game's table log, read (api/service/tablelog.py): its clock's actions, the players'
        names in force, the tiles learned at its table."""
        return read_table_log(self.store.game(game_id), self.store.table_log(game_id))

    def learned(self, game_id: int) -> frozenset[str]:
        """The tiles the game's table learned outside its moves (scoring.trust's `given`)."""
        return self.table_log(game_id).learned

    def table_games(self, table: int) -> list[int]:
        """The games created for a table (meta "table"), oldest first."""
        return self.store.table_games(table)

    def current_game(self, table: int) -> int:
        """A table's newest game: its URLs follow it from round to round."""
        games = self.store.table_games(table)
        if not games:
            raise NotFound(f"no game at table {table} yet")
        return games[-1]

    def load(self, game_id: int) -> GameView:
        return self.ctx.load(game_id)

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
                    moves=len(view.events), scores=state.scores, ended=view.over(state), closed_by=view.closed_by,
                    entries=len(view.entries), on_turn=state.on_turn, bag=state.bag,
                    end_reason=view.end_reason(state),
                    turns=hedge(_turn_order(view)),
                    station=forwarded_by(view.row.meta), station_console=station_console(view.row.meta))

    def moves(self, view: GameView, racks: RackPolicy = LIVE) -> list[s.MoveOut]:
        """The recount's lines (scoring.recount, as `tilecam verify` prints them) with what the
        store adds: log rows, evidence frames, corrections, the rack camera's read each move was
        played from. `racks`: which racks the request may see (a move's rack, kept tiles and all,
        is hidden as its rack read is)."""
        frames = self.store.frame_seqs(view.row.id)
        made_from = self.racks.played_from(view.events, view.players, view.dist, self.racks.racks(view.row.id),
                                           trust=racks.trust)
        over = view.over()
        on = racks.shows(over)
        record = view.record()
        shown = tuple(for_viewer(ev, racks, over) for ev in record.events)
        confirmed = _confirmed(view)
        order = _turn_order(view)
        wrong = {w.index for w in order.out_of_turn}
        game = Game(view.profile, view.dist, view.layout, view.players)  # the board before each move
        final = _final(view)
        out = []
        lines = recount(dataclasses.replace(record, events=shown))   # its words: an exchange's tiles as shown
        for i, (ln, ev, seq) in enumerate(zip(lines, shown, view.seqs)):
            out.append(s.MoveOut(
                index=ln.index, number=ln.number, seq=seq, player=ln.player, nick=view.nicks[ln.player],
                kind=ln.kind, position=ln.position, word=ln.word, shown=ln.shown, text=ln.text, takes_back=ln.takes_back,
                **_move_rack(view.row.id, ev, made_from.get(i), on,
                             None if racks.raw else game.state, view.dist),
                claimed=ln.claimed, engine=ln.engine, agreed=ln.agreed, cumulative=ln.cumulative,
                totals=list(ln.totals), note=note_of(ev),
                corrected=seq in view.corrected, frame=seq in frames,
                blank_undecided=isinstance(ev, Play) and ev.blank_undecided,
                turn_inferred=i in order.inferred, out_of_turn=i in wrong,
                **_reading(ev, seq in confirmed, game, view, i, final)))
            game.append(view.events[i])
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
        vowels, consonants, blanks = vowel_split(pool, view.dist)
        return s.UnseenOut(game_id=view.row.id, turn=len(game.events), pool=format_pool(pool, view.dist),
                           count=sum(pool.values()), bag=game.state.bag,
                           tiles={t: pool[t] for t in view.dist.counts if pool.get(t)},
                           vowels=vowels, consonants=consonants, blanks=blanks)

    def gcg(self, view: GameView, racks: RackPolicy = LIVE) -> str:
        """The record as GCG, with a '#title' (the event, if named, and the players) and the date
        and table in '#description' unless the game's meta says otherwise. A move whose rack
        `racks` hides is written as the writer writes a rack nobody saw (the play's own tiles, or
        stand-ins, with a RACK_NOT_SEEN note saying so)."""
        record = view.record()
        meta = dict(record.meta)
        names = " vs ".join(p.name for p in record.players)
        event = meta.pop("event", "")
        meta.setdefault("title", f"{event}: {names}" if event else names)
        meta.setdefault("date", view.row.created[:10])
        over = view.over()
        events = tuple(for_viewer(ev, racks, over) for ev in record.events)
        return write_gcg(dataclasses.replace(record, meta=meta, events=events), view.profile, view.dist, view.layout)

    def woogles(self, view: GameView, racks: RackPolicy = LIVE) -> s.WooglesOut:
        """The GCG export (`gcg`, as `racks` shows it) as the Woogles editor's import link, and what
        Woogles will not take as played (scoring.gcg.woogles_gap: the end racks not seen, ...)."""
        game = view.game_at()
        why = woogles_gap(game, closed=view.close is not None)
        url = woogles_link(self.gcg(view, racks)) if game.players == 2 else None
        return s.WooglesOut(game_id=view.row.id, url=url, length=len(url or ""), complete=why is None, why=why)

    def record_json(self, view: GameView, racks: RackPolicy = LIVE) -> dict:
        """The whole record (the .json export): the game, the append-only log and the events as
        they stand; a rack `racks` hides is left out of the log entry and the event it is in."""
        over = view.over()
        log = [{"seq": e.seq, "created": e.created, **to_json(entry_for_viewer(e.entry, racks, over))}
               for e in view.entries]
        return {"game": self.summary(view), "log": log,
                "events": [to_json(for_viewer(ev, racks, over)) for ev in view.events]}

    def gcg_filename(self, view: GameView) -> str:
        """A download's name: the date and the players, '2026-11-25_Cesar_vs_Josh.gcg' (Unicode
        kept; the route adds an ASCII fallback)."""
        names = "_vs_".join(re.sub(r"[^\w.-]+", "_", p["name"]).strip("_.") or p["nick"] for p in view.row.players)
        return f"{view.row.created[:10]}_{names}.gcg"

    def recount(self, view: GameView, racks: RackPolicy = LIVE) -> s.RecountOut:
        """scoring.recount's report, with each line's log row; what the rack cameras saw as `racks`
        shows it (an exchange's tiles only they saw); and how many of the camera's plays no person
        confirmed (an agreeing recount is no check of what the camera read)."""
        record = view.record()
        over = view.over()
        lines = recount(dataclasses.replace(record, events=tuple(for_viewer(ev, racks, over) for ev in record.events)))
        found = [s.DiscrepancyOut(seq=view.seqs[d.index], **_fields(d, s.DiscrepancyOut)) for d in discrepancies(lines)]
        rows = view.entries
        index_of = {seq: i for i, seq in enumerate(view.seqs)}
        fixes = []
        for c in changes([e.entry for e in rows], view.profile, view.dist, view.layout, view.players):
            target = rows[c.target].seq
            index = index_of.get(target)
            fixes.append(s.CorrectionOut(seq=rows[c.entry].seq, target=target, index=index,
                                         number=None if index is None else index + 1, kind=c.kind,
                                         change=c.change, by=c.by, at=rows[c.entry].created, reason=c.reason,
                                         agreed=c.agreed))
        confirmed = _confirmed(view)
        camera = [seq for ev, seq in zip(view.events, view.seqs) if isinstance(ev, Play) and ev.certainty is not None]
        return s.RecountOut(game_id=view.row.id, players=list(view.row.players), rules=view.row.rules,
                            moves=[s.RecountMoveOut(seq=view.seqs[ln.index], **_fields(ln, s.RecountMoveOut))
                                   for ln in lines],
                            discrepancies=found, first_discrepancy=found[0] if found else None,
                            final=final_totals(view.record(), lines), corrections=fixes,
                            turns=turns_hedge(view.record()), camera_plays=len(camera),
                            unconfirmed=sum(seq not in confirmed for seq in camera))

    def scoresheet(self, view: GameView, player: int, sheet: list[int]) -> s.ScoresheetOut:
        if not 0 <= player < view.players:
            raise InvalidInput(f"no player {player}; players are 0..{view.players - 1}")
        rows = [s.ScoresheetRow(**dataclasses.asdict(r)) for r in scoresheet(recount(view.record()), player, sheet)]
        first = next((r for r in rows if not r.agrees), None)
        return s.ScoresheetOut(game_id=view.row.id, player=player, rows=rows, agrees=first is None,
                               first_mismatch=first)


def _move_rack(game_id: int, ev, read, shown: bool, before=None, dist=None) -> dict:
    """A move's rack for MoveOut: the event's own (the rack before the move) and the rack read it was
    played from, with its evidence; all None when the request may not see it yet. `before`: the
    state before the move, when a read the set cannot supply beside that board is to stay off air
    (a page's; the operator sees it)."""
    if not shown:
        return {"rack": None, "rack_seq": None, "rack_frame": None}
    rack = getattr(ev, "rack", None)
    if read is not None and before is not None:
        try:
            before.unseen_for(dist, "".join(t for t in read.tiles if t))
        except (GameError, ValueError):   # scoring's rule: the set has no more of a tile it shows
            read = None
    if read is None:
        return {"rack": rack, "rack_seq": None, "rack_frame": None}
    return {"rack": rack if rack is not None else rack_text(read.tiles) if None not in read.tiles else None,
            "rack_seq": read.seq,
            "rack_frame": f"/api/games/{game_id}/racks/{read.seq}/frame.jpg" if read.frame else None}


def _fields(row, model) -> dict:
    """What the response model takes from a recount dataclass: its fields and properties (`number`)."""
    return {k: getattr(row, k) for k in model.model_fields if hasattr(row, k)}


def _last_squares(events: list[Event]) -> list[str]:
    """The squares of the last play, when the last turn was one (the end's rack points and
    overtime after it leave the going-out play highlighted)."""
    turns = [ev for ev in events if not isinstance(ev, END_ADJUSTMENTS)]
    if turns and isinstance(turns[-1], Play):
        return [format_position(t.square, Direction.ACROSS) for t in turns[-1].placement.tiles]
    return []


def _grouped(pool: Counter, dist: Distribution) -> str:
    """One group per tile, 'AAA B EE ??', as broadcast overlays show the pool."""
    return " ".join(dist.spell([tile] * pool[tile]) for tile in dist.counts if pool.get(tile))


def _confirmed(view: GameView) -> set[int]:
    """Seqs of moves a person has corrected or confirmed, as the corrections and undos of the log
    leave them (scoring.amend.confirmed)."""
    return {view.entries[i].seq for i in confirmed_moves([e.entry for e in view.entries])}


def _turn_order(view: GameView) -> TurnOrder:
    """Which turns of the record were inferred or taken out of turn (scoring.turns)."""
    return turn_order(view.events, view.profile, view.dist, view.layout, view.players)


def _final(view: GameView) -> GameState | None:
    """The record replayed to its end, what a runner-up is measured against: the most of each tile
    it has held (GameState.peak) and the plays a challenge took back (GameState.withdrawn); None
    when no play has a runner-up (no replay for nothing)."""
    if not any(isinstance(ev, Play) and ev.runner_ups for ev in view.events):
        return None
    return view.game_at().state


def _reading(ev, confirmed: bool, before: Game | None = None, view: GameView | None = None, index: int = 0,
             final: GameState | None = None) -> dict:
    """How the camera read a play (or told an exchange from unsure rack reads), for MoveOut:
    certainty, review (still unconfirmed) and why, runner-ups (with what each changes on the board,
    given the game `before` the play, move `index` of `view`): only those a correction could take,
    none the reading on air is already, and none for a play a challenge took back (no tile of it is
    on the board to read again)."""
    if isinstance(ev, (Exchange, Pass)):   # one the rack camera told from unsure reads waits as a play does
        return {"certainty": None, "review": ev.review and not confirmed, "doubts": [], "runner_ups": []}
    if not isinstance(ev, Play):
        return {"certainty": None, "review": False, "doubts": [], "runner_ups": []}
    if final is not None and index in final.withdrawn:
        return {"certainty": ev.certainty, "review": ev.review and not confirmed, "doubts": list(ev.doubts),
                "runner_ups": []}
    runner_ups = [_runner_up(ev, p, w, pr, before) for p, w, pr in ev.runner_ups]
    return {"certainty": ev.certainty, "review": ev.review and not confirmed, "doubts": list(ev.doubts),
            "runner_ups": [r for r, placement in runner_ups
                           if view is None or _offered(ev, r, placement, view, index, final.peak)]}


def _offered(ev: Play, r: s.RunnerUpOut, placement, view: GameView, index: int, peak: Counter | None) -> bool:
    """Whether the review queue offers runner-up `r` (its `placement`, None when it no longer fits
    the board) of move `index`: not the reading on air (a camera correction may have made it that),
    and within the set's counts as the record stands (scoring.amend.reading_excess, the rule the
    correction taking it is held to: no 'the set has 15 E; this correction would make 16')."""
    if placement is None:
        return True  # offered as before: taking it is refused with the engine's reason
    if not tile_changes(ev.placement, placement):
        return False
    return reading_excess(view.events, index, placement, view.profile, view.dist, view.layout, view.players,
                          peak) is None


def _runner_up(ev: Play, position: str, word: str, probability: float, before: Game | None):
    """A runner-up reading, with the squares it changes against the play as read and its score
    (left out when it no longer fits the board before the play), and its placement (None then)."""
    out = s.RunnerUpOut(position=position, word=word, probability=probability)
    if before is None:
        return out, None
    try:
        placement = placement_from_gcg(before, position, word)
        score = score_placement(before.state.board, placement, before.dist, before.profile.bingo_bonus).score
    except (PlacementError, ValueError, KeyError):
        return out, None
    out.changes = [s.TileChangeOut(square=format_square(sq), was=a, now=b)
                   for sq, a, b in tile_changes(ev.placement, placement)]
    out.score = score
    return out, placement
