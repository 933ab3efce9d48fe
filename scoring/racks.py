"""What a rack means: the racks each player's camera saw, aligned to the moves by their tiles.

Pure bookkeeping, no pixels and no clocks compared: a rack camera's `t` is its own. The board
camera stays the authority for what was played; the racks add what the board cannot show.

A player's rack changes only on that player's own turn: tiles leave it for the board (a play),
new ones come from the bag (the draw), or tiles go back for others (an exchange). So the reads
are aligned to the moves BY THEIR TILES: the rack before a play of tiles T is the latest read of
the turn's rack (as many tiles as the player holds) that holds T; the turn's reads end at the first
read that shows the rack after it (the tiles not played still there, others drawn: rack - T +
drawn). Reads of another size are the player lifting tiles or drawing: never a turn's rack.

When a read counts is one policy, `RackTrust` (built once from [racks] review_below by whatever
builds the running system, and asked by the station, the service and the scorekeeper): a tile read
under its threshold counts as not seen, so a partial rack counts only for what it shows, and no
decision (a play not from the rack, an exchange) rests on a doubtful read.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import ClassVar, Iterable, Sequence

from .board import Board
from .errors import ScoringError
from .rack_decode import decode
from .events import Event, Exchange, Pass, PhonyWithdrawn, Play, TurnLost
from .gcg.records import RACK_NOT_SEEN
from .tally import excess, tally, unseen
from .tiles import BLANK, Distribution

__all__ = ["SURE", "UNSEEN", "UNSURE", "Fitted", "Judged", "Move", "RackBook", "RackError", "RackSeen",
           "RackTrust", "TurnChange", "draw", "from_rack", "moves", "rack_string", "unquoted_rack_note"]

# What a slot of a rack read is (RackTrust.slot): a tile read surely, one read under [racks]
# review_below (its letter is not on air until the operator speaks), one the camera could not see.
SURE, UNSURE, UNSEEN = "sure", "unsure", "unseen"


class RackError(ScoringError):
    """Racks that cannot follow each other: tiles kept that are gone, a draw the bag cannot give."""


def rack_string(tiles: Iterable[str]) -> str:
    """Tiles as a rack is written: sorted, the blank first, multi-letter tiles in brackets."""
    return "".join(f"[{t}]" if len(t) > 1 else t for t in sorted(tiles, key=lambda t: (t != BLANK, t)))


@dataclass(frozen=True)
class RackSeen:
    """One settled view of a player's rack, left to right as seen.

    `tiles`: None for a slot nobody saw (a hand over it), '?' for a blank; `certainty` per slot
    (None: not given, or the slot unseen); `t`: the rack camera's own clock (never compared with
    the board camera's); `frame`: a reference to the evidence, if kept; `alts`: per slot, the
    reader's runner-ups `(tile, probability)`, best first (() when not given): what RackBook.fit
    tries when the read breaks the set's counts."""

    player: int
    t: float
    tiles: tuple[str | None, ...]
    certainty: tuple[float | None, ...] = ()
    frame: str | None = None
    alts: tuple[tuple[tuple[str, float], ...], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiles", tuple(self.tiles))
        cert = tuple(self.certainty) if self.certainty else (None,) * len(self.tiles)
        if len(cert) != len(self.tiles):
            raise ValueError(f"{len(self.tiles)} tiles but {len(cert)} certainties")
        for tile in self.tiles:
            if tile is not None and (not tile or (tile != BLANK and tile != tile.upper())):
                raise ValueError(f"a rack tile is a letter in upper case or '?', not {tile!r}")
        object.__setattr__(self, "certainty", cert)
        alts = tuple(tuple((str(a), float(p)) for a, p in slot) for slot in self.alts)
        if alts and len(alts) != len(self.tiles):
            raise ValueError(f"{len(self.tiles)} tiles but runner-ups for {len(alts)}")
        object.__setattr__(self, "alts", alts)

    @property
    def complete(self) -> bool:
        """Every slot seen."""
        return all(t is not None for t in self.tiles)

    @property
    def hidden(self) -> int:
        return sum(t is None for t in self.tiles)

    @property
    def seen(self) -> Counter:
        return Counter(t for t in self.tiles if t is not None)

    @property
    def letters(self) -> str:
        """The tiles seen, as a rack is written (sorted, blank first): what it shows of the rack."""
        return rack_string(t for t in self.tiles if t is not None)

    @property
    def shown(self) -> str:
        """Left to right as seen, '.' for a slot not seen: 'AE.NR.T'."""
        return "".join("." if t is None else f"[{t}]" if len(t) > 1 else t for t in self.tiles)

    def to_json(self) -> dict:
        out = {"player": self.player, "t": self.t, "tiles": list(self.tiles), "certainty": list(self.certainty),
               "frame": self.frame}
        if self.alts:
            out["alts"] = [[[a, p] for a, p in slot] for slot in self.alts]
        return out

    @classmethod
    def from_json(cls, data: dict) -> "RackSeen":
        """Inverse of to_json; ValueError naming what is wrong."""
        try:
            return cls(int(data["player"]), float(data["t"]), tuple(data["tiles"]),
                       tuple(None if c is None else float(c) for c in data.get("certainty") or ()),
                       data.get("frame"), tuple(tuple((a, p) for a, p in slot) for slot in data.get("alts") or ()))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"bad rack view: {exc}") from None


@dataclass(frozen=True)
class RackTrust:
    """When a rack read counts (docs/racks.md, "Sure, unsure, review"): the one place a tile's
    certainty meets [racks] review_below. Built once from the settings by what builds the running
    system (the station, the app) and asked by the rack cameras, the recorder, the scorekeeper's rack
    book, the service and the routes; none of them compares a certainty itself.

    A slot is SURE when its tile was read at `review_below` or better (exactly at it counts; a tile
    given no certainty counts as sure), UNSURE under it, UNSEEN when no tile was seen there. A read is
    `doubtful` by its unsure tiles, and waits for a person (`review`) when one of them is unsure or it
    breaks the set's counts."""

    review_below: float
    SURE: ClassVar[str] = SURE       # what a slot is (`slot`), for those outside scoring (its face)
    UNSURE: ClassVar[str] = UNSURE
    UNSEEN: ClassVar[str] = UNSEEN

    def sure(self, certainty: float | None) -> bool:
        """A tile read with `certainty` counts (None: none given, as a person's word)."""
        return certainty is None or certainty >= self.review_below

    def slot(self, tile: str | None, certainty: float | None) -> str:
        """SURE, UNSURE or UNSEEN: what one slot of a read is."""
        return UNSEEN if tile is None else SURE if self.sure(certainty) else UNSURE

    def slots(self, seen: RackSeen) -> tuple[str, ...]:
        """Each slot of `seen`, left to right."""
        return tuple(self.slot(t, c) for t, c in zip(seen.tiles, seen.certainty))

    def doubtful(self, seen: RackSeen) -> list[str]:
        """The tiles of `seen` read under the threshold."""
        return [t for t, k in zip(seen.tiles, self.slots(seen)) if k == UNSURE]

    def trusted(self, seen: RackSeen) -> RackSeen:
        """`seen` with each tile read under the threshold taken as not seen."""
        keep = [k == SURE for k in self.slots(seen)]
        if all(k or t is None for k, t in zip(keep, seen.tiles)):
            return seen
        return replace(seen, tiles=tuple(t if k else None for t, k in zip(seen.tiles, keep)),
                       certainty=tuple(c if k else None for c, k in zip(seen.certainty, keep)))

    def review(self, fitted: "Fitted") -> bool:
        """The read waits for a person's word: it breaks the counts (`fitted.breaks`), or a tile of
        what the log keeps of it is unsure. The station stores this answer with the read."""
        return bool(fitted.breaks or self.doubtful(fitted.logged))


# ---- the rules, on tiles ------------------------------------------------------------------

def _count(tiles: str | Counter, dist: Distribution) -> Counter:
    if isinstance(tiles, Counter):
        return tiles
    return Counter(t if t == BLANK else t.upper() for t in dist.tokens(tiles))


def _holds(rack: RackSeen, tiles: Counter) -> bool:
    """The rack may hold `tiles`: those it does not show fit under its unseen slots."""
    return sum((tiles - rack.seen).values()) <= rack.hidden


def _differs(a: RackSeen, b: RackSeen) -> bool:
    """Not the same tiles: one shows more of a tile than the other could hold."""
    return sum((a.seen - b.seen).values()) > b.hidden or sum((b.seen - a.seen).values()) > a.hidden


def from_rack(rack: RackSeen | str, played: str, dist: Distribution) -> str:
    """The tiles of a play that were not on the rack ('' when the rack holds them all; a partial
    rack holds whatever fits under its unseen slots). Such a play is flagged, never refused."""
    tiles = _count(played, dist)
    if isinstance(rack, str):
        rack = RackSeen(-1, 0.0, tuple(_count(rack, dist).elements()))
    if _holds(rack, tiles):
        return ""
    return rack_string((tiles - rack.seen).elements())


def draw(before: str, played: str, after: str, dist: Distribution, pool: Counter | None = None) -> str:
    """The tiles drawn after a move: after - (before - played). RackError when tiles kept are gone
    from `after`, or (given `pool`, the tiles the player could not see) a drawn tile is not in it."""
    b, p, a = _count(before, dist), _count(played, dist), _count(after, dist)
    kept = b - p
    if kept - a:
        raise RackError(f"the rack after holds no {rack_string((kept - a).elements())}, which stayed on it")
    drawn = a - kept
    if pool is not None and drawn - pool:
        raise RackError(f"{rack_string((drawn - pool).elements())} drawn, but no such tile was left unseen")
    return rack_string(drawn.elements())


@dataclass(frozen=True)
class Move:
    """A turn of the record as the rack sees it: what left the rack, how many tiles it held before
    (None: not known) and how many the player drew after."""

    player: int
    kind: str          # "play" | "exchange" | "pass" (a lost turn too) | "withdrawn"
    tiles: str = ""    # the tiles that left the rack (an exchange's, when known)
    size: int | None = None
    drawn: int = 0


def moves(events: Sequence[Event], dist: Distribution, players: int,
          then: tuple[int, str] | None = None) -> tuple[list[Move], list[int]]:
    """The turns of an event log, with each player's rack size before them (as Game keeps it), and
    each player's rack size after them all. `then`: (player, tiles) of a play about to follow the
    log, its Move last (the sizes are those before it)."""
    sizes = [dist.rack_size] * players
    bag = dist.total - dist.rack_size * players
    last: dict[int, tuple[int, int]] = {}
    out: list[Move] = []
    for e in events:
        p = e.player
        if isinstance(e, Play):
            n = len(e.placement.tiles)
            got = min(n, bag)
            out.append(Move(p, "play", dist.spell([BLANK if t.blank else t.letter for t in e.placement.tiles]),
                            sizes[p], got))
            sizes[p] += got - n
            bag -= got
            last[p] = (n, got)
        elif isinstance(e, PhonyWithdrawn):
            n, got = last.pop(p, (0, 0))
            sizes[p] += n - got
            bag += got
            out.append(Move(p, "withdrawn", "", sizes[p]))
        elif isinstance(e, Exchange):
            out.append(Move(p, "exchange", e.tiles or "", sizes[p], e.count))
        elif isinstance(e, (Pass, TurnLost)):
            out.append(Move(p, "pass", "", sizes[p]))
    if then is not None:
        p, tiles = then
        out.append(Move(p, "play", tiles, sizes[p], min(len(dist.tokens(tiles)), bag)))
    return out, sizes


def unquoted_rack_note(event) -> str:
    """What a rack read said of a move (its `rack_note`, whose words quote the read) without a
    tile of the read, for a reader the read is not shown to: from the typed fields alone (issue 43:
    an unsure letter or a read under review is on no page but the operator's)."""
    if not getattr(event, "rack_note", ""):
        return ""
    if getattr(event, "not_from_rack", False):
        return f"{RACK_NOT_SEEN} with this play's tiles: they were not all on the rack read"
    return f"{RACK_NOT_SEEN} whole"


@dataclass(frozen=True)
class TurnChange:
    """What the rack did during a turn that put nothing on the board: unchanged (a pass), or
    changed (an exchange: `tiles` left it, `count` of them; `after` the rack now)."""

    kind: str                   # "pass" | "exchange"
    before: RackSeen
    after: RackSeen | None = None
    tiles: str = ""
    count: int = 0
    problem: str = ""           # why a changed rack is not taken for an exchange
    sure: bool = True           # False: told by reads with unsure slots; `tiles` unnamed, `count` as read
                                # (a pass: the reads differ only where unsure, it may be an exchange)


@dataclass(frozen=True)
class Judged:
    """What a move's event says of the rack read before it: `rack` for the event (None: none that
    can be written), a `note` (a RACK_NOT_SEEN line when the rack field is not the rack seen
    whole), `review` when the play's tiles were not on it (the play's `not_from_rack`: the note says it to
    people, this field to the code)."""

    rack: str | None
    note: str = ""
    review: bool = False


@dataclass(frozen=True)
class Fitted:
    """A read decoded against the game (RackBook.fit, scoring.rack_decode): `read` as the camera read
    it; `rack` the rack it stands for (the read, or the read with the reader's runner-ups where it
    breaks the counts or the leave, each slot's certainty then its share among the racks that
    fit); `breaks` when no
    runner-up mends it: what it breaks (the read is then no rack: for review, never on air as
    read; the book keeps it with the tiles over the counts as not seen)."""

    read: RackSeen
    rack: RackSeen
    breaks: str = ""

    @property
    def changed(self) -> bool:
        """Runner-ups were taken: the rack is not the read."""
        return self.rack.tiles != self.read.tiles

    @property
    def logged(self) -> RackSeen:
        """What a rack log keeps as the read's tiles: the rack, or the read as read when it breaks
        the counts (with `breaks`)."""
        return self.read if self.breaks else self.rack


@dataclass
class _Walk:
    pos: int = 0                                  # where this turn's reads start
    before: list[int | None] = field(default_factory=list)   # per move of the player: its rack's read
    found: list[bool] = field(default_factory=list)          # per move: the read after it was seen
    held: list[bool] = field(default_factory=list)           # per move: its rack's read held its tiles


class RackBook:
    """The settled racks of each player in the order they came, and what they say of the moves."""

    def __init__(self, dist: Distribution, players: int, trust: RackTrust) -> None:
        self.dist = dist
        self.players = players
        self.trust = trust     # which tiles of a read count (RackTrust)
        self._reads: list[list[RackSeen]] = [[] for _ in range(players)]

    def add(self, seen: RackSeen) -> None:
        if not 0 <= seen.player < self.players:
            raise ValueError(f"no player {seen.player}")
        for tile in seen.tiles:
            if tile is not None and not self.dist.is_tile(tile):
                raise ValueError(f"{tile!r} is not a tile of the {self.dist.name} set")
        self._reads[seen.player].append(seen)

    def reads(self, player: int) -> tuple[RackSeen, ...]:
        return tuple(self._reads[player])

    # -- alignment ------------------------------------------------------------------------
    def _trusted(self, player: int) -> list[RackSeen]:
        return [self.trust.trusted(r) for r in self._reads[player]]

    @staticmethod
    def _sized(r: RackSeen, size: int | None) -> bool:
        return size is None or len(r.tiles) == size

    def _play_step(self, reads: list[RackSeen], pos: int, tiles: Counter, size: int | None,
                   after_size: int | None, known: bool = True, now: bool = False) -> tuple[int | None, int, bool, bool]:
        """One play (or exchange) from `pos`: (its rack's read, where the next turn's reads start,
        whether the read after it was seen, whether the rack held the tiles). `now`: the play being
        committed, whose rack is the turn's first read even when it does not hold the tiles (the
        caller flags the play); a past move's rack is only a read that holds its tiles (a read that
        does not may be the rack after it, when the one before was never seen)."""
        n = len(reads)
        turn = [j for j in range(pos, n) if self._sized(reads[j], size)]
        cands = [j for j in turn if _holds(reads[j], tiles)]
        held = bool(cands)
        if not cands:
            if not turn or not now:
                return None, pos, False, False
            cands = turn[:1]   # the turn's rack, which does not hold the tiles: flagged by the caller
        first = reads[cands[0]]
        kept = first.seen - tiles
        later = [j for j in range(cands[0] + 1, n) if self._sized(reads[j], after_size) and _differs(reads[j], first)]
        after = next((j for j in later if not known or sum((kept - reads[j].seen).values()) <= reads[j].hidden),
                     later[0] if later else None)
        end = n if after is None else after
        return max(j for j in cands if j < end), end, after is not None, held

    def _walk(self, player: int, events: Sequence[Event], then: str | None = None
              ) -> tuple[_Walk, list[RackSeen], int | None]:
        """The player's moves aligned with their reads; also the reads (trusted) and the size of
        their rack now. `then`: the tiles of a play the player is about to make after `events`, the
        walk's last move, taken as the play being committed (`_play_step`'s `now`): the step a stored
        play takes, but that the turn's reads may end at any read that differs (the draw is not known
        yet), so which read a play came from is one walk's answer before and after it is committed."""
        reads = self._trusted(player)
        ms, sizes = moves(events, self.dist, self.players, None if then is None else (player, then))
        w = _Walk()
        played_before: list[int | None] = []
        for k, m in enumerate(ms):
            if m.player != player:
                continue
            if m.kind == "pass":
                w.before.append(next((j for j in range(w.pos, len(reads)) if self._sized(reads[j], m.size)), None))
                w.found.append(False)
                w.held.append(False)
            elif m.kind == "withdrawn":
                back = played_before.pop() if played_before else None
                if back is not None:
                    w.pos = back  # the tiles came back: the rack is the one before the play again
                w.before.append(back)
                w.found.append(False)
                w.held.append(False)
            else:
                tiles = _count(m.tiles, self.dist)
                now = then is not None and k == len(ms) - 1
                # a play leaves the rack `drawn` tiles fuller than it left it; an exchange as full; the
                # play being committed: any read that differs may be the rack after it (its draw unseen)
                after_size = None if now else m.size if m.size is None or m.kind == "exchange" else \
                    m.size - sum(tiles.values()) + m.drawn
                i, w.pos, found, held = self._play_step(reads, w.pos, tiles, m.size, after_size,
                                                        known=m.kind == "play" or bool(m.tiles), now=now)
                w.before.append(i)
                w.found.append(found)
                w.held.append(held)
                if m.kind == "play":
                    played_before.append(i)
        return w, reads, sizes[player]

    def played_from(self, player: int, events: Sequence[Event]) -> dict[int, int]:
        """The player's turns in `events` (by event index) with the read their rack was, by its
        position in `reads(player)`: aligned by the tiles, never by when a read came; a turn whose
        rack no read shows is left out."""
        w, _, _ = self._walk(player, events)
        turns = [i for i, e in enumerate(events)  # the events `moves` makes a turn of, in its order
                 if e.player == player and isinstance(e, (Play, PhonyWithdrawn, Exchange, Pass, TurnLost))]
        return {i: j for i, j in zip(turns, w.before) if j is not None}

    def rack_before(self, player: int, played: str, events: Sequence[Event]) -> RackSeen | None:
        """The rack the player chose `played` from, as read, for a play about to follow `events`
        (the game's effective events); None when no read of this turn's rack came. The read
        returned may not hold the tiles (`from_rack` says which): the caller flags that play."""
        i = self.read_before(player, played, events)
        return None if i is None else self._reads[player][i]

    def read_before(self, player: int, played: str, events: Sequence[Event]) -> int | None:
        """`rack_before`'s read by its position in `reads(player)`: the one rule of which read a play
        was made from, for the play being committed and for a stored one (`events`: those before it).
        The walk's own step (`_walk`'s `then`): a stored play whose read held its tiles has the read
        `played_from` gives it (but when the player's reads between took another size, see `_walk`);
        one whose read did not is flagged by that read, and `played_from` (the racks shown as a
        move's) leaves it out."""
        w, _, _ = self._walk(player, events, then=played)
        return w.before[-1]

    def departed(self, player: int, played: str, events: Sequence[Event]) -> bool:
        """A read after the rack before this play showed it gone (rack - played + drawn): the reads of
        the turn are over, so a late fill of the play's rack cannot take an after-rack for it."""
        w, reads, size = self._walk(player, events)
        tiles = _count(played, self.dist)
        _, _, found, held = self._play_step(reads, w.pos, tiles, size, None)
        return found and held

    def changed_since_turn(self, player: int, events: Sequence[Event], board: Board | None = None) -> TurnChange | None:
        """At a clock press with nothing new on the board, after `events`: did the player's rack
        change since their turn began? An exchange (tiles left it, others came) or a pass (the same
        tiles); None when no read of the turn's rack showed every slot. The turn's first and last
        reads that show every slot decide: read whole and sure, the tiles that left are named; with
        slots read under `review_below`, only a change the sure tiles show whatever those slots hold
        is an exchange (how many tiles left by the reads as read, the tiles unnamed: `sure` False),
        else the whole, sure reads decide as before. Given the `board`, a change whose new tiles the
        bag could not give is no exchange: a pass with the `problem` said."""
        w, reads, size = self._walk(player, events)
        raw = self._reads[player]
        turn = [j for j in range(w.pos, len(reads)) if self._sized(reads[j], size)]
        shown = [j for j in turn if raw[j].complete]   # every slot seen, surely or not
        undecided = False
        if shown and not (reads[shown[0]].complete and reads[shown[-1]].complete):
            change = self._unsure_change(raw[shown[0]], raw[shown[-1]], reads[shown[0]], reads[shown[-1]], board)
            if change is not None:
                return change
            # as read the racks differ, but only in slots read unsure: a pass or an exchange, the
            # reads cannot say which (issue 43: an exchange went on air as a plain pass)
            undecided = _differs(raw[shown[0]], raw[shown[-1]])
        whole = [j for j in turn if reads[j].complete]
        if not whole:
            return TurnChange("pass", raw[shown[0]], raw[shown[-1]], sure=False) if undecided else None
        before, now = reads[whole[0]], reads[whole[-1]]
        gone = before.seen - now.seen
        if not gone:   # two whole, sure reads of the same tiles settle it; one alone cannot
            # a read of another size after the last whole one: the rack changed after it (tiles left,
            # others came: an exchange whose new rack was read short, a tile missed), so nothing is sure
            changed = any(not self._sized(reads[j], size) for j in range(whole[-1] + 1, len(reads)))
            return TurnChange("pass", raw[whole[0]], sure=not changed and (not undecided or whole[0] != whole[-1]))
        tiles = rack_string(gone.elements())
        if board is not None:
            try:  # the tiles drawn came from those the player could not see
                draw(before.letters, tiles, now.letters, self.dist, unseen(board, self.dist, before.letters))
            except RackError as exc:
                return TurnChange("pass", raw[whole[0]], raw[whole[-1]], problem=str(exc))
        return TurnChange("exchange", raw[whole[0]], raw[whole[-1]], tiles, sum(gone.values()))

    def _unsure_change(self, raw_before: RackSeen, raw_now: RackSeen, before: RackSeen, now: RackSeen,
                       board: Board | None) -> TurnChange | None:
        """An exchange told by reads with unsure slots (`before`, `now` the trusted reads): the sure
        tiles differ more than the other read's unsure slots could make up (a rearranged rack,
        however misread in its unsure slots, never does). None: these reads cannot tell."""
        if not _differs(before, now):
            return None
        # how many left: by the reads as read, never fewer than the sure tiles show
        least = max(sum((before.seen - now.seen).values()) - now.hidden,
                    sum((now.seen - before.seen).values()) - before.hidden, 1)
        count = max(sum((raw_before.seen - raw_now.seen).values()), least)
        if board is not None:
            pool = unseen(board, self.dist, before.letters)
            drawn = now.seen - raw_before.seen   # surely new: the rack before never read them
            if drawn - pool:
                problem = (f"the rack now shows {rack_string((drawn - pool).elements())}, which the bag "
                           f"could not give")
                return TurnChange("pass", raw_before, raw_now, problem=problem)
        return TurnChange("exchange", raw_before, raw_now, "", count, sure=False)

    def current(self, player: int, events: Sequence[Event]) -> RackSeen | None:
        """The rack the player holds after `events`, as last read (trusted tiles only); None when no
        read of it came since their last move."""
        w, reads, size = self._walk(player, events)
        turn = [j for j in range(w.pos, len(reads)) if self._sized(reads[j], size)]
        return reads[turn[-1]] if turn else None

    def end_racks(self, events: Sequence[Event]) -> list[str | None]:
        """Each player's rack at the end of the game, from their last whole, sure read (None: none)."""
        out: list[str | None] = []
        for p in range(self.players):
            r = self.current(p, events)
            out.append(r.letters if r is not None and r.complete else None)
        return out

    def unseen_for(self, player: int, board: Board, events: Sequence[Event]) -> Counter:
        """The unseen pool as `player` sees it: the set minus the board and the tiles their rack
        shows (the bag and the opponents' racks). A partial rack counts only for what it shows."""
        r = self.current(player, events)
        return unseen(board, self.dist, r.letters if r is not None else "")

    def kept(self, player: int, events: Sequence[Event]) -> Counter:
        """The tiles the player's rack must still hold after `events`: the leave of their last move
        (its event's rack, `judge`'s: the rack, or the tiles surely seen and those played when it was
        not seen whole): a play's rack less its tiles, an exchange's less the tiles that went, a
        pass's rack; nothing when no rack came with it or an exchange's tiles are not named."""
        last = next((e for e in reversed(events) if e.player == player
                     and isinstance(e, (Play, Exchange, Pass, TurnLost, PhonyWithdrawn))), None)
        if last is None or not getattr(last, "rack", None):
            return Counter()
        rack = _count(last.rack, self.dist)
        if isinstance(last, Play):
            return rack - _count(self.dist.spell([BLANK if t.blank else t.letter for t in last.placement.tiles]),
                                 self.dist)
        if isinstance(last, Exchange):
            return rack - _count(last.tiles, self.dist) if last.tiles else Counter()
        return rack if isinstance(last, Pass) else Counter()

    def fit(self, seen: RackSeen, board: Board, events: Sequence[Event]) -> Fitted:
        """`seen` decoded against what the game knows (scoring.rack_decode): a rack holds only tiles
        that are neither on the board nor on another player's rack as last read (sure tiles only),
        and still holds the tiles kept from the player's last known rack (`kept`). A read that
        breaks this is not the rack: the likeliest of the reader's runner-ups that fits is taken,
        each slot the game decided as sure as its share of the racks that fit. A read that fits
        the counts but not the leave may be of a later turn (a play not yet on the board): then
        the counts alone. When the counts cannot be met, `breaks` says what the read breaks."""
        others = "".join(r.letters for p in range(self.players) if p != seen.player
                         and (r := self.current(p, events)) is not None)
        room = unseen(board, self.dist, others)
        kept = self.kept(seen.player, events)
        rack = decode(seen, room, kept) if kept and sum(kept.values()) <= len(seen.tiles) else None
        if rack is None:
            rack = decode(seen, room)
        if rack is not None:
            return Fitted(seen, rack)
        over = seen.seen - room
        ex = excess(tally(board, [others, seen.letters], self.dist), self.dist)
        why = ex.says(f"the rack read {seen.shown} with the board and the other racks") if ex is not None else \
            f"the rack read {seen.shown} holds {rack_string(over.elements())}, which the set has no more of"
        kept_read = replace(seen, certainty=tuple(0.0 if t is not None and t in over else c
                                                  for t, c in zip(seen.tiles, seen.certainty)))
        return Fitted(seen, kept_read, why)

    def exchange_before(self, player: int, played: str, events: Sequence[Event], board: Board) -> TurnChange | None:
        """Before a play is credited (no clock press said whose it is): did `player`, on turn, let
        their turn go by in an exchange the rack camera saw? Their rack changed (whole, sure reads;
        the tiles drawn ones the bag could give) while the board did not, and the change is not
        this play's own (its tiles gone and others drawn). A read that changes and comes back is a
        misread, not an exchange. None: no such exchange seen."""
        w, reads, size = self._walk(player, events)
        whole = [reads[j] for j in range(w.pos, len(reads)) if self._sized(reads[j], size) and reads[j].complete]
        if len(whole) < 2:
            return None
        raw = {id(r): x for r, x in zip(reads, self._reads[player])}
        before = whole[0]
        k = next((k for k in range(1, len(whole)) if _differs(whole[k], before)), None)
        if k is None or any(not _differs(r, before) for r in whole[k + 1:]):
            return None
        after = whole[k]
        try:  # this play from `before` and its draw: the play is theirs
            draw(before.letters, played, after.letters, self.dist)
            return None
        except RackError:
            pass
        gone = before.seen - after.seen
        tiles = rack_string(gone.elements())
        try:  # the tiles drawn came from those the player could not see
            draw(before.letters, tiles, after.letters, self.dist, unseen(board, self.dist, before.letters))
        except RackError:
            return None
        return TurnChange("exchange", raw[id(before)], raw[id(after)], tiles, sum(gone.values()))

    # -- what an event says of a read ---------------------------------------------------------
    def judge(self, seen: RackSeen, played: str, board: Board) -> Judged:
        """The rack an event before which `seen` was read carries, and its note. `played`: the
        play's tiles ('' for a pass or an exchange); `board`: the board before the move.

        Whole and sure, holding the tiles: the rack; so is a read whose sure tiles and the tiles
        played fill every slot (the unsure slots held the played tiles). Not holding them: no rack (none that GCG can
        write beside the play), for review, the note naming the tiles. Partial or doubtful: the
        tiles seen and those played (all the rack surely held), with a RACK_NOT_SEEN note showing
        what was read. A read the set cannot hold beside the board is no rack either."""
        tiles = _count(played, self.dist)
        # before a play, the rack held the play's tiles: its read decoded so (rack_decode), when the
        # game leaves each letter it changed no other choice (sure by its share). Else the board's
        # play and the rack's read disagree (the board misread, or a play not from this rack): the
        # read stands as read and the play is flagged, evidence a person weighs, never bent away.
        decoded = decode(seen, unseen(board, self.dist), tiles)
        if decoded is not None and all(c is not None and self.trust.sure(c) for a, b, c in
                                       zip(seen.tiles, decoded.tiles, decoded.certainty) if a != b):
            seen = decoded
        sure = self.trust.trusted(seen)
        doubt = self.trust.doubtful(seen)
        unsure = f"; read under {self.trust.review_below:g}: {', '.join(doubt)}" if doubt else ""
        shown = f"{sure.shown}{unsure}"
        missing = from_rack(sure, played, self.dist)
        if missing:
            return Judged(None, f"{RACK_NOT_SEEN} with this play's tiles: {missing} not on the rack read {shown}", True)
        held = sure.seen | tiles
        if held - unseen(board, self.dist):
            return Judged(None, f"{RACK_NOT_SEEN}: the rack read {shown} holds more of a tile than the set has "
                                "beside the board")
        if sure.complete or sum(held.values()) == len(seen.tiles):
            # every slot accounted for: the sure tiles and the tiles played (which came off this
            # rack) fill it, so the rack is known whatever its unsure slots read
            return Judged(rack_string(held.elements()))
        what = "the tiles seen and those played" if played else "the tiles seen"
        return Judged(rack_string(held.elements()),
                      f"{RACK_NOT_SEEN} whole: read {shown} ('.' not seen); the rack field holds {what}")
