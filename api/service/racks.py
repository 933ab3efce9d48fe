"""Rack cameras on the service's side (issue 30, docs/racks.md): the rack log and what goes on air.

The station calls ``add_rack`` each time a player's rack camera settles (the JSON of
scoring.racks.RackSeen: player, t, tiles left to right with None for a tile not seen, certainty
per tile, frame), with the evidence JPEG; the read is appended to the game's rack log, apart from
the entries and append-only like them, with the turn it was seen at (how many moves the record
held). A read the caller marks (``review``: a tile under the station's [racks] review_below, the one
threshold; ``flag``: a play not from the rack; ``breaks``: the read breaks the set's counts and no
runner-up mends it) waits for the operator's one click (``confirm_rack``: as read, or fixed), itself
a row of the log; a read that ``breaks`` the counts is off air until then. ``racks`` folds the log:
every read with its confirmation.

On air a hidden rack never leaves the server: ``RacksOnAir``, the one rule of to whom and when,
built once from the settings ([racks] on_air, and scoring's ``RackTrust`` from [racks]
review_below) by what builds the running system, gives each request its ``RackPolicy`` (issue 43:
the racks held now only to the broadcast token's overlay and the operator; every other view once
the game is over, as the rack a stored move was made from, ``played_from`` tying reads to moves by
their tiles); ``Racks.with_racks`` fills a live state under a policy, ``Racks.shown_read`` says
whether a read's evidence frame is on air, and ``for_viewer`` shows an event as a policy lets it
out (its rack, an exchange's tiles only the rack cameras saw, what a rack read said of it without
quoting the read). Off the air until sure (issue 38): a rack is on a page whole only when every slot
is seen and sure under the policy's ``trust`` (``RackRead.slots``); else the page gets its sure
tiles and the others marked, never their letters.
"""
from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any, Callable

from tilecam.scoring import (note_of, unquoted_rack_note, Correction, EndRackPenalty, EndRackPoints, Exchange, Play,
                             RackBook, RackSeen, RackTrust, ScoringError)
from tilecam.scoring.gcg import played_tiles

import tilecam.api.service.types as s
from ..errors import InvalidInput, NotFound
from ..store import RackRow
from .context import Context
from .ingest import refuse_mirror
from .view import GameView

__all__ = ["LIVE", "ON_AIR", "RACK_FIELDS", "SURE", "UNSEEN", "UNSURE", "RackPolicy", "RackRead", "Racks",
           "RacksOnAir", "entry_for_viewer", "entry_without_rack", "for_viewer", "rack_text", "without_rack"]

UNSEEN_TILE = "·"    # a rack position not on air (a hand over it, or read unsure), in the text shown
SURE, UNSURE, UNSEEN = RackTrust.SURE, RackTrust.UNSURE, RackTrust.UNSEEN   # what a slot is (scoring's)
MAX_TILES = 12       # more tiles than a rack holds is not a read (7 in every set; room for a wide rack)


@dataclass(frozen=True, slots=True)
class RackPolicy:
    """Which racks a response may carry, and how: the one rule of who sees a rack (issue 43).

    A broadcast shows the racks players hold as they play, and delays its whole stream (OBS's
    stream delay): so `live` (the broadcast token's, the operator's) sees each player's latest
    read; every other view gets a rack only once the game is over (nobody holds one then), as
    the rack a stored play or exchange was made from (`Racks.played_from`). `raw` (the operator
    token's alone): every read as it came, unsure letters and breaking reads included, and what
    a rack read said of a move in its own words (they quote the read). `shown` False: no rack and
    nothing a rack camera saw, ever."""
    shown: bool = True
    live: bool = False      # the racks held now: the broadcast token's and the operator's
    raw: bool = False       # the operator's: every read as it came, marks and words and all
    # when a tile counts (scoring's RackTrust, RacksOnAir's): a tile read under it is not on air as a
    # letter; None: the station's word (`review`) alone
    trust: RackTrust | None = None

    def shows(self, over: bool) -> bool:
        """Whether a response may carry what the rack cameras saw of the moves (their racks, an
        exchange's tiles only they saw): live, or once the game is `over`."""
        return self.shown and (self.live or over)

    def join(self, racks: str | None) -> "RackPolicy":
        """This policy with a request's own asking (`racks=off`): it can hide more, never show more."""
        return self if racks != "off" else dataclasses.replace(self, shown=False, live=False, raw=False)


LIVE = RackPolicy(live=True, raw=True)
HIDDEN = RackPolicy(False)
ON_AIR = ("broadcast", "off")   # [racks] on_air


@dataclass(frozen=True, slots=True)
class RacksOnAir:
    """The rack-on-air rule (issues 38, 39, 43): which racks each asker may see. Built once from the
    settings (`from_settings`: [racks] on_air, and the trust of [racks] review_below) by what builds
    the running system (the station; the app when it is served alone), and asked by the routes
    (`policy`), which decide nothing of it themselves.

    The operator token: every read live, each slot marked (`operator`). The broadcast token: each
    player's rack live, its sure tiles alone (the broadcast delays its stream; the room never sees
    this view). Any other request: each rack once the game is over (`public`). With [racks] on_air
    = "off" nobody but the operator sees a rack, ever."""
    trust: RackTrust
    off: bool = False     # [racks] on_air = "off"

    @classmethod
    def from_settings(cls, settings: Any) -> "RacksOnAir":
        racks = settings.racks
        return cls(RackTrust(racks.review_below), racks.on_air == "off")

    @property
    def public(self) -> RackPolicy:
        return HIDDEN if self.off else RackPolicy(True, trust=self.trust)

    @property
    def broadcast(self) -> RackPolicy:
        return HIDDEN if self.off else RackPolicy(True, live=True, trust=self.trust)

    @property
    def operator(self) -> RackPolicy:
        return dataclasses.replace(LIVE, trust=self.trust)

    def policy(self, *, operator: bool, broadcast: bool, racks: str | None = None) -> RackPolicy:
        """The racks a request may see: by its token (`operator`, `broadcast`), then what its query
        hides on top (`racks=off`: RackPolicy.join)."""
        return (self.operator if operator else self.broadcast if broadcast else self.public).join(racks)


def for_viewer(ev, policy: RackPolicy, over: bool):
    """An event as a response under `policy` may carry it. The operator's (`raw`): as it stands.
    Where the rack cameras' view is shown (`policy.shows(over)`): its rack, and what the rack read
    said of it without a tile of the read (`scoring.unquoted_rack_note`: the read's unsure letters
    are on no page). Else: no `rack`, no `rack_note`, and an exchange whose tiles only the rack
    cameras saw (`Exchange.tiles_from_racks`) keeps its count alone. The end's rack points and
    penalty keep their racks (the score of a game that is over)."""
    if policy.raw or isinstance(ev, (EndRackPoints, EndRackPenalty)) or not hasattr(ev, "rack"):
        return ev
    if policy.shows(over):
        return dataclasses.replace(ev, rack_note=unquoted_rack_note(ev)) if getattr(ev, "rack_note", "") else ev
    changes: dict[str, Any] = {"rack": None}
    if getattr(ev, "rack_note", ""):
        changes["rack_note"] = ""
    if isinstance(ev, Exchange) and ev.tiles_from_racks:
        changes["tiles"] = None
    return dataclasses.replace(ev, **changes)


def without_rack(ev):
    """An event as a response that sees nothing the rack cameras saw carries it (`for_viewer`)."""
    return for_viewer(ev, HIDDEN, False)


def entry_for_viewer(entry, policy: RackPolicy, over: bool):
    """A log entry as `for_viewer` shows the event it holds (a correction's replacement included)."""
    if isinstance(entry, Correction):
        return dataclasses.replace(entry, replacement=for_viewer(entry.replacement, policy, over))
    return for_viewer(entry, policy, over)


def entry_without_rack(entry):
    """A log entry without the rack of the event it holds (a correction's replacement included)."""
    return entry_for_viewer(entry, HIDDEN, False)


@dataclass(frozen=True, slots=True)
class RackRead:
    """One settled read of a player's rack, with what the operator said of it."""
    seq: int
    player: int
    t: float
    tiles: tuple[str | None, ...]        # as stands: the confirmation's tiles once confirmed
    certainty: tuple[float | None, ...]
    turn: int                            # moves in the record when it was seen
    flag: str | None                     # why the caller flagged it (a play not from the rack)
    review: bool                         # under review: unsure, a tile not seen, or flagged; nobody confirmed it
    read: tuple[str | None, ...]         # as the camera read it
    confirmed_by: str | None
    fixed: bool                          # the operator changed the tiles
    frame: bool
    created: str
    breaks: str | None = None            # the read breaks the set's counts (scoring's words): off air unconfirmed
    doubted: bool = False                # the station found a tile doubtful ([racks] review_below), unconfirmed

    @property
    def on_air(self) -> bool:
        """A read that breaks the set's counts is never on air as read: only once the operator spoke."""
        return self.breaks is None or self.confirmed_by is not None

    def slots(self, trust: RackTrust | None) -> tuple[str, ...]:
        """Each slot as it may go on air: SURE, UNSURE or UNSEEN. The operator's word is sure; else
        each slot as `trust` says of its stored certainty (scoring's RackTrust; None: every tile
        seen is sure by itself), and every tile is unsure of a read waiting for review that names
        none (flagged, or judged against another threshold) or that breaks the set's counts: never a
        letter nobody is sure of."""
        if self.confirmed_by is not None:
            return tuple(UNSEEN if t is None else SURE for t in self.tiles)
        marks = tuple(trust.slot(t, c) if trust is not None else UNSEEN if t is None else SURE
                      for t, c in zip_longest(self.tiles, self.certainty[:len(self.tiles)]))
        doubtful_all = not self.on_air or self.flag is not None or (self.doubted and UNSURE not in marks)
        return tuple(UNSURE if k == SURE and doubtful_all else k for k in marks)

    def whole(self, trust: RackTrust | None) -> bool:
        """On air as it is: every slot seen and sure."""
        return all(k == SURE for k in self.slots(trust))

    def sure_tiles(self, trust: RackTrust | None) -> tuple[str | None, ...]:
        """The tiles as they may go on air: None where a slot is not seen or not sure."""
        return tuple(t if k == SURE else None for t, k in zip(self.tiles, self.slots(trust)))

    def to_out(self, game_id: int, trust: RackTrust | None = None) -> s.RackReadOut:
        return s.RackReadOut(seq=self.seq, player=self.player, t=self.t, tiles=list(self.tiles),
                             text=rack_text(self.tiles), slots=list(self.slots(trust)),
                             certainty=list(self.certainty), turn=self.turn,
                             flag=self.flag, review=self.review, read=list(self.read), confirmed_by=self.confirmed_by,
                             fixed=self.fixed, created=self.created, breaks=self.breaks,
                             frame=f"/api/games/{game_id}/racks/{self.seq}/frame.jpg" if self.frame else None)


def rack_text(tiles) -> str:
    """The rack as one line, left to right: '?' a blank, '·' a tile not seen; a multi-letter tile in brackets."""
    return "".join(UNSEEN_TILE if t is None else f"[{t}]" if len(t) > 1 else t for t in tiles)


# The OBS fields of the racks: each player's rack and what that player cannot see (bag and other racks).
# The rack books the service builds get each read's tiles as they stand and no certainties (the
# policy's trust was applied before: RackRead.sure_tiles), so every tile given counts, whatever the
# threshold.
_AS_STORED = RackTrust(1.0)

RACK_FIELDS = tuple(f"rack{i + 1}" for i in range(s.MAX_PLAYERS)) + \
    tuple(f"unseen{i + 1}" for i in range(s.MAX_PLAYERS))


def fold(rows: list[RackRow]) -> list[RackRead]:
    """The rack log's reads with their confirmations applied (the latest confirmation stands)."""
    confirms: dict[int, dict] = {}
    for r in rows:
        if r.kind == "confirm":
            confirms[int(r.data["target"])] = r.data
    out = []
    for r in rows:
        if r.kind != "seen":
            continue
        d = r.data
        c = confirms.get(r.seq)
        tiles = tuple(c["tiles"]) if c is not None else tuple(d["tiles"])
        read = tuple(d.get("read") or d["tiles"])   # as the camera read it, when scoring took runner-ups
        out.append(RackRead(r.seq, int(d["player"]), float(d.get("t") or 0.0), tiles, tuple(d.get("certainty") or ()),
                            int(d.get("turn", 0)), d.get("flag"),
                            (bool(d.get("review")) or None in d["tiles"]) and c is None, read,
                            c.get("by") if c else None, bool(c and c.get("fixed")), r.frame, r.created,
                            d.get("breaks"), bool(d.get("review")) and c is None))
    return out


class Racks:
    """The rack log: the rack cameras' reads and the operator's confirmations, and which of them a
    response may carry (``played_from``, ``current_racks``, ``with_racks``)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx, self.store = ctx, ctx.store

    # ---- writes
    def add_rack(self, game_id: int, seen: "dict | Any", jpeg: bytes | None = None) -> int:
        """A rack camera's settled read (RackSeen.to_json(): player, t, tiles, certainty, frame;
        optionally `review` True (a tile under the station's [racks] review_below), `flag` (a
        reason, when scoring flags it), `read` (the tiles as the camera read them, when scoring
        took the reader's runner-ups to fit the set's counts) or `breaks` (scoring's words: the
        read breaks the counts and nothing fits; for review and off air)) with its evidence
        JPEG, appended to the game's rack log at the turn the record stands at; published to
        every page (under each page's policy). Returns its seq in the rack log. InvalidInput
        for a read that is not one (a player the game lacks, a tile not of the set)."""
        if hasattr(seen, "to_json"):  # a scoring.racks.RackSeen itself
            seen = seen.to_json()
        with self.ctx.lock(game_id), self.store.writing():
            view = self.ctx.load(game_id)
            refuse_mirror(view.row)
            data = _checked_seen(seen, view)
            seq = self.store.append_rack(game_id, "seen", data, jpeg=jpeg)
        self.ctx.publish(game_id)
        return seq

    def confirm_rack(self, game_id: int, seq: int, tiles: str | None, by: str) -> int:
        """The operator's one click on rack read `seq`: as read (`tiles` None) or fixed to `tiles`
        (left to right, '?' a blank); a row of the rack log naming `by`. Returns its seq."""
        with self.ctx.lock(game_id), self.store.writing():
            view = self.ctx.load(game_id)
            refuse_mirror(view.row)
            rows = self.store.racks(game_id)
            target = next((r for r in rows if r.seq == seq and r.kind == "seen"), None)
            if target is None:
                raise NotFound(f"game {game_id} has no rack read {seq}")
            read = list(target.data["tiles"])
            if tiles is None:
                fixed = read
            else:
                fixed = _rack_tiles(tiles, view)
            data = {"target": seq, "tiles": fixed, "by": by, "fixed": fixed != read}
            out = self.store.append_rack(game_id, "confirm", data)
        self.ctx.publish(game_id)
        return out

    # ---- reads
    def racks(self, game_id: int) -> list[RackRead]:
        """Every settled rack read of the game, oldest first, each with its confirmation."""
        self.store.game(game_id)  # NotFound for an unknown game
        return fold(self.store.racks(game_id))

    def rack_reviews(self, game_id: int, trust: RackTrust | None = None) -> list[RackRead]:
        """`racks` with scoring's flags on the moves added: the read a play was made from is under
        review (unless confirmed since) when scoring found the play's tiles not on it (the play's
        `not_from_rack`, and the play is under review itself). Which read that was is scoring's
        rule (scoring.racks.RackBook.read_before), as when the play was committed. A read with a
        tile `trust` finds unsure is under review too, whatever its caller said: it is not on air
        whole until the operator speaks (the rule: a stricter [racks] review_below than the
        station's takes a letter off the air at once; a looser one never puts one on)."""
        view = self.ctx.load(game_id)
        reads = fold(self.store.racks(game_id))
        flagged = _not_from(view.events, view.players, view.dist, reads)
        return [dataclasses.replace(r, flag=r.flag or flagged[r.seq], review=r.confirmed_by is None)
                if r.seq in flagged else dataclasses.replace(r, review=True)
                if not r.review and UNSURE in r.slots(trust) else r for r in reads]

    def rack_log(self, game_id: int) -> list[RackRow]:
        """The rack log as stored (reads and confirmations), for the forwarder."""
        return self.store.racks(game_id)

    def rack_frame(self, game_id: int, seq: int):
        """The evidence frame of rack read `seq`; NotFound when none was kept."""
        return self.store.rack_frame(game_id, seq)

    def shown_read(self, view: GameView, seq: int, policy: RackPolicy) -> RackRead | None:
        """Rack read `seq` if a response under `policy` may carry it (its evidence frame is on air as
        the rack itself): the operator's, any read; else only the whole rack of a stored move
        (`played_from`), where the policy shows racks now. None: not to this asker (or no such read)."""
        if not policy.shown:
            return None
        reads = fold(self.store.racks(view.row.id))
        read = next((r for r in reads if r.seq == seq), None)
        if read is None or policy.raw:
            return read
        made = any(r.seq == seq for r in self.played_from(view.events, view.players, view.dist, reads,
                                                          trust=policy.trust).values())
        return read if made and policy.shows(view.over()) else None

    def played_from(self, events, players: int, dist, reads: list[RackRead] | None = None,
                    game_id: int | None = None, trust: RackTrust | None = None,
                    partial: bool = False) -> dict[int, RackRead]:
        """Each play and exchange of `events` (by index) with the rack read it was made from, tied
        to the move by its tiles (scoring.racks.RackBook), never by the move count a read was stored
        with: the only reads a response without an operator token may carry. A read no stored move
        was made from (the rack a player holds now; the tiles left on it while a play goes down) is
        in none, nor is a pass's or a withdrawn play's, whose tiles the player still holds.

        Only whole reads (every slot seen and sure under `trust`, or the operator's word: the
        exports', the evidence frames') unless `partial`: then a move no whole read was tied to
        gets the read its sure tiles tie it to (the live state shows those and marks the rest)."""
        if reads is None:
            reads = fold(self.store.racks(game_id))
        # a read a play was judged not to come from (rack_reviews' flag) is no rack until the operator
        # speaks: the console lists it as unsure, so no page shows it as a move's rack either
        flagged = _not_from(events, players, dist, reads)
        reads = [r for r in reads if r.seq not in flagged or r.confirmed_by is not None]
        out = self._tied(events, players, dist, [r for r in reads if not r.review and r.whole(trust)], trust)
        if partial:
            # a flagged read, or one that breaks the counts, is no rack at all until the operator speaks
            rest = [r for r in reads if r.on_air and (r.flag is None or r.confirmed_by is not None)]
            for i, r in self._tied(events, players, dist, rest, trust).items():
                out.setdefault(i, r)
        return out

    @staticmethod
    def _tied(events, players: int, dist, reads: list[RackRead], trust: RackTrust | None) -> dict[int, RackRead]:
        # Each read goes in with only its sure tiles (an unsure one as not seen), so the book ties
        # no move by a letter nobody is sure of.
        book, kept = _book(dist, players, reads, lambda r: r.sure_tiles(trust))
        out: dict[int, RackRead] = {}
        for p in range(players):
            for i, j in book.played_from(p, events).items():
                if isinstance(events[i], (Play, Exchange)):
                    out[i] = kept[p][j]
        return out

    def current_racks(self, game_id: int, moves: int, policy: RackPolicy = LIVE,
                      players: int | None = None, events=None, dist=None,
                      over: bool = False) -> list[tuple[RackRead, int | None] | None]:
        """Each player's rack `policy` lets out now that the record holds `moves` moves, with the
        move it was made from (None: the latest read, live). `live`: each player's latest read.
        Otherwise, once the game is `over`, the rack of the player's latest play or exchange
        (`events` and `dist` needed); before, none."""
        if players is None:
            players = len(self.store.game(game_id).players)
        latest: list[tuple[RackRead, int | None] | None] = [None] * players
        if not policy.shows(over):
            return latest  # nothing read from the store: nothing to leave out
        reads = fold(self.store.racks(game_id))
        if policy.live:
            for r in reads:
                if 0 <= r.player < players:   # a read that breaks the counts is no rack: none shown
                    latest[r.player] = (r, None) if r.on_air else None
            return latest
        for i, r in sorted(self.played_from(events, players, dist, reads, trust=policy.trust,
                                            partial=True).items()):
            if r.on_air:   # the rack as read is no rack (it breaks the counts): none shown
                latest[r.player] = (r, i)
        return latest

    def with_racks(self, game_id: int, live: s.LiveOut, view_moves: int, policy: RackPolicy,
                    unseen_of: Callable[[str, int | None], Counter | None], grouped: Callable[[Counter], str],
                    events=None, dist=None, over: bool = False) -> s.LiveOut:
        """`live` with the racks `policy` lets out: `racks` and the OBS fields rack1.. and unseen1..
        (empty for a rack not shown). `unseen_of(rack, index)`: what a player holding it cannot
        see, before move `index` (None: now)."""
        current = self.current_racks(game_id, view_moves, policy, len(live.players), events, dist, over)
        fields = dict(live.fields)
        shown = []
        for i in range(s.MAX_PLAYERS):
            r, at = (current[i] if i < len(current) else None) or (None, None)
            tiles = slots = pool = None
            if r is not None:
                slots = r.slots(policy.trust)
                # on air only the sure tiles; the operator sees the read as it came, marks and all
                tiles = r.tiles if policy.raw else r.sure_tiles(policy.trust)
                pool = unseen_of("".join(t for t in tiles if t), at)
                if pool is None and not policy.raw:
                    r = None   # a rack the set cannot supply beside the board is no rack: off air
            fields[f"rack{i + 1}"] = rack_text(tiles) if r else ""
            fields[f"unseen{i + 1}"] = grouped(pool) if r and pool is not None else ""
            if i < len(current):
                shown.append(None if r is None else s.RackShownOut(
                    player=i, seq=r.seq, tiles=list(tiles), text=rack_text(tiles), slots=list(slots),
                    whole=all(k == SURE for k in slots), turn=r.turn, review=r.review,
                    unseen=fields[f"unseen{i + 1}"], unseen_count=sum(pool.values()) if pool is not None else None))
        return live.model_copy(update={"fields": fields, "racks": shown})


def _book(dist, players: int, reads: list[RackRead], tiles: Callable[[RackRead], tuple]
          ) -> tuple[RackBook, list[list[RackRead]]]:
    """A rack book of `reads` (each as `tiles` gives it, no certainties) and each player's reads in
    it, in order: `kept[p][j]` is the read a book answer `j` names."""
    book = RackBook(dist, players, _AS_STORED)
    kept: list[list[RackRead]] = [[] for _ in range(players)]
    for r in reads:
        if not 0 <= r.player < players:
            continue
        try:
            book.add(RackSeen(r.player, r.t, tiles(r), ()))
        except ValueError:
            continue  # a read scoring cannot take is no move's rack
        kept[r.player].append(r)
    return book, kept


def _not_from(events, players: int, dist, reads: list[RackRead]) -> dict[int, str]:
    """The reads (by seq) a stored play was judged not to come from (its `not_from_rack`, under
    review), with why: which read that was is scoring's rule (RackBook.read_before), as when the
    play was committed."""
    flagged: dict[int, str] = {}
    if not any(isinstance(ev, Play) and ev.review and ev.not_from_rack for ev in events):
        return flagged
    book, kept = _book(dist, players, reads, lambda r: tuple(r.tiles))
    for i, ev in enumerate(events):
        if isinstance(ev, Play) and ev.review and ev.not_from_rack:
            j = book.read_before(ev.player, played_tiles(ev.placement, dist), events[:i])
            if j is not None:
                flagged[kept[ev.player][j].seq] = f"move {i + 1}: {note_of(ev)}"
    return flagged


def _rack_tiles(text: str, view: GameView) -> list[str]:
    """A rack typed by the operator, as tiles: letters of the set and '?' for a blank."""
    text = text.strip().upper().replace(" ", "")
    try:
        view.dist.check_tiles(text, "rack")
        tiles = view.dist.tokens(text)
    except (ScoringError, ValueError) as exc:
        raise InvalidInput(str(exc)) from None
    if not 1 <= len(tiles) <= view.dist.rack_size:
        raise InvalidInput(f"a rack holds 1 to {view.dist.rack_size} tiles, not {len(tiles)}")
    return tiles


def _checked_seen(seen: dict, view: GameView) -> dict:
    """The read as the rack log keeps it, checked; InvalidInput naming what is wrong."""
    if not isinstance(seen, dict):
        raise InvalidInput("a rack read is a JSON object (scoring.racks.RackSeen.to_json())")
    player, tiles, certainty = seen.get("player"), seen.get("tiles"), seen.get("certainty")
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < view.players:
        raise InvalidInput(f"rack read: no player {player!r}; players are 0..{view.players - 1}")
    # an empty list is an empty rack (after a bingo, in a 7-tile exchange, a player out): a read, as
    # `tilecam rack` reads it
    if not isinstance(tiles, (list, tuple)) or len(tiles) > MAX_TILES:
        raise InvalidInput(f"rack read: tiles must be a list of at most {MAX_TILES} tiles (null: not seen; "
                           "[]: an empty rack)")
    for tile in tiles:
        if tile is not None and (not isinstance(tile, str) or not view.dist.is_tile(tile)):
            raise InvalidInput(f"rack read: {tile!r} is not a tile of the {view.dist.name} set")
    if certainty is None:
        certainty = [None] * len(tiles)
    if not isinstance(certainty, (list, tuple)) or len(certainty) != len(tiles) or not all(
            c is None or (isinstance(c, (int, float)) and not isinstance(c, bool) and 0.0 <= c <= 1.0)
            for c in certainty):
        raise InvalidInput("rack read: certainty must give one number from 0 to 1 (or null) per tile")
    t = seen.get("t", 0.0)
    if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
        raise InvalidInput(f"rack read: t must be a number of seconds, not {t!r}")
    flag = seen.get("flag")
    if flag is not None and not isinstance(flag, str):
        raise InvalidInput("rack read: flag is a reason, in words")
    breaks = seen.get("breaks")
    if breaks is not None and (not isinstance(breaks, str) or not breaks):
        raise InvalidInput("rack read: breaks says, in words, which count of the set the read breaks")
    read = seen.get("read")
    if read is not None and (not isinstance(read, (list, tuple)) or len(read) != len(tiles) or not all(
            t is None or (isinstance(t, str) and view.dist.is_tile(t)) for t in read)):
        raise InvalidInput("rack read: read is the camera's tiles, one a slot (null: not seen)")
    frame = seen.get("frame")
    # under review as the caller says: the station judges certainty against [racks] review_below
    # (scoring's rule, one threshold); the service keeps no threshold of its own
    data = {"player": player, "t": float(t), "tiles": list(tiles), "certainty": [None if c is None else float(c)
                                                                                  for c in certainty],
            "frame": frame if isinstance(frame, str) else None, "turn": len(view.events),
            "flag": (flag or breaks or "")[:200] or None, "review": bool(flag or breaks or seen.get("review") is True)}
    if read is not None and list(read) != list(tiles):
        data["read"] = list(read)
    if breaks:
        data["breaks"] = breaks[:200]
    return data
