"""The rack truth of a real game (issue 30): each player's rack before every turn and the draw after it.

A GCG record tells what was played, and only sometimes the racks. `rack_plan` fills in the rest,
deterministically per seed, so that every rack is one the bag could have dealt:

* the rack before a play holds the play's tiles (a blank as '?');
* a GCG rack that is a full rack is the rack (a partial one, the opponent's tiles as the annotator
  saw them, must be on it); the end-of-game racks are the GCG's;
* draws are lazy: a draw brings what the player's coming turns need that the leave lacks (looking
  ahead as far as a 7-tile rack requires: a bingo after a one-tile play needs six tiles kept), and
  the rest at random from the unseen pool less what the other player's coming plays will draw;
* a seed-chosen few pairs of turns are added: an exchange and a pass (or two exchanges), each
  player one turn, so the turn order still alternates. An exchange draws first, then returns its
  tiles to the bag; a pass changes nothing.

The racks are multisets; `RackTurn` spells them sorted, '?' first (as GCG racks are written).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

import numpy as np

from tilecam.scoring import BLANK, DISTRIBUTIONS, Distribution, Event, Exchange, Game, GameError, Pass, get_profile

__all__ = ["RackPlanError", "RackTurn", "RackGame", "check_rack_game", "rack_plan", "rack_plan_from_gcg", "spell"]

TURN_KINDS = ("play", "exchange", "pass")


class RackPlanError(ValueError):
    """No rack history fits the record (a GCG whose racks contradict each other or the bag)."""


def spell(tiles: Counter | list[str] | str) -> str:
    """A rack as GCG writes one: sorted, blanks first."""
    items = list(tiles.elements()) if isinstance(tiles, Counter) else list(tiles)
    return "".join(sorted(items, key=lambda t: (t != BLANK, t)))


@dataclass(frozen=True)
class RackTurn:
    """One event of the game as the rack cameras see it. `rack`: the player's tiles before it;
    `out`: the tiles taken off the rack (played, or exchanged); `drawn`: the tiles drawn after it;
    `after`: the rack once the draw is on it (a withdrawn phony's tiles back on it). A play later
    withdrawn (`phony`) draws nothing: its tiles come back to the rack at the withdrawal."""

    event: int              # index in RackGame.events
    player: int
    kind: str               # play | exchange | pass | withdrawn | other (challenge bonus, end of game, ...)
    rack: str
    out: str = ""
    drawn: str = ""
    after: str = ""
    inserted: bool = False  # an exchange or pass the plan added (not in the record)
    phony: bool = False
    bag: int = 0            # tiles in the bag after it

    @property
    def leave(self) -> str:
        left = Counter(self.rack)
        left.subtract(Counter(self.out))
        return spell(+left)


@dataclass(frozen=True)
class RackGame:
    """A game's rack truth: `events` the record with the added turns, each turn's `rack` filled in;
    `turns` one RackTurn per event; `start` each player's first rack; `final` the racks at the end."""

    name: str
    events: tuple[Event, ...]
    turns: tuple[RackTurn, ...]
    start: tuple[str, ...]
    final: tuple[str, ...]
    players: tuple[str, ...] = ("player1", "player2")
    gcg_racks: int = 0                  # GCG racks that fixed a rack (full) or part of one
    notes: tuple[str, ...] = field(default=())

    def racks_before(self, event: int) -> tuple[str, ...]:
        """Both players' racks just before event `event` (the last racks after the game's end)."""
        racks = list(self.start)
        for t in self.turns[:event]:
            racks[t.player] = t.after
        return tuple(racks)


@dataclass
class _Step:
    """One event in the players' terms: what must be on the rack, what leaves it, what it draws."""

    event: int
    player: int
    kind: str
    need: Counter                       # on the rack before it (the play's tiles, known exchange tiles)
    consume: Counter                    # taken off for good (a play, a known exchange)
    draw: int = 0
    exchange: int = 0                   # tiles exchanged, chosen at draw time when not known
    known: Counter | None = None        # a full rack from the record
    partial: Counter | None = None      # tiles the record saw on the rack
    phony: bool = False
    size: int = 7                       # tiles on the rack before it
    seen: Counter | None = None         # what the record shows on the rack (this turn's and earlier racks)
    hold: Counter | None = None         # filled by the backward pass: the least the rack must hold


def _tiles(placement) -> Counter:
    return Counter(BLANK if t.blank else t.letter for t in placement.tiles)


def _rack_counter(rack: str | None, dist: Distribution) -> Counter | None:
    if not rack:
        return None
    return Counter(t.upper() if t != BLANK else t for t in dist.tokens(rack))


def _sub(a: Counter, b: Counter) -> Counter:
    out = Counter(a)
    out.subtract(b)
    return +out


def _within(a: Counter, b: Counter) -> bool:
    return all(b.get(k, 0) >= n for k, n in a.items())


def _insert_turns(events: list[Event], rng, pairs: int, within: int, dist: Distribution) -> tuple[list, set]:
    """Pairs of added turns (exchange, pass / pass, exchange / exchange, exchange) placed before
    seed-chosen plays among the first `within` turns, where the bag allows an exchange."""
    turn_at = [i for i, e in enumerate(events) if e.kind in TURN_KINDS]
    bag, bags = dist.total - 14, []
    for e in events:
        bags.append(bag)
        if e.kind == "play":
            bag -= min(len(e.placement.tiles), bag)
        elif e.kind == "phony_withdrawn":
            pass  # the phony drew nothing in the plan
    options = [i for i in turn_at[2:within]
               if events[i].kind == "play" and bags[i] >= 14 and events[i - 1].kind == "play"
               and (i + 1 >= len(events) or events[i + 1].kind != "phony_withdrawn")]
    chosen = sorted(rng.choice(options, size=min(pairs, len(options)), replace=False).tolist()) if options else []
    kinds = [("exchange", "pass"), ("pass", "exchange"), ("exchange", "exchange")]
    out, added = [], set()
    for i, e in enumerate(events):
        if i in chosen:
            first, second = kinds[int(rng.integers(len(kinds)))]
            for player, kind in ((e.player, first), (1 - e.player, second)):
                added.add(len(out))
                out.append(("exchange", player, int(rng.integers(1, 8))) if kind == "exchange" else ("pass", player))
        out.append(e)
    return out, added


def rack_plan(record_events, seed: int, *, name: str = "game", pairs: int = 2, within: int = 12,
              use_gcg_racks: bool = True, players: tuple[str, ...] = ("player1", "player2"),
              lang: str = "en", rules: str = "naspa-csw") -> RackGame:
    """The rack truth of a two-player game (`record_events`: a GameRecord's events) with `pairs`
    pairs of added turns among its first `within` turns. Raises RackPlanError when no rack history
    fits (then `use_gcg_racks=False` tries again without the record's racks)."""
    dist, profile = DISTRIBUTIONS[lang], get_profile(rules)
    rng = np.random.default_rng([seed, 30])
    mixed, added = _insert_turns(list(record_events), rng, pairs, within, dist)
    notes: list[str] = []
    # Replay: the added turns must keep the game legal (six scoreless turns end it).
    game = Game(profile, dist)
    events: list[Event] = []
    for e in mixed:
        if isinstance(e, tuple):
            ev = Pass(e[1], game.state.scores[e[1]]) if e[0] == "pass" else \
                Exchange(e[1], e[2], None, game.state.scores[e[1]])
        else:
            ev = e
        try:
            game.append(ev)
        except GameError as exc:
            raise RackPlanError(f"{name}: the record does not replay with the added turns: {exc}") from None
        events.append(ev)
    steps = _steps(events, dist, use_gcg_racks)
    final = _final_racks(events, dist)
    try:
        _backward(steps, final, name)
        return _forward(name, events, steps, final, added, dist, rng, players, notes, use_gcg_racks)
    except RackPlanError:
        if not use_gcg_racks:
            raise
    notes.append("the record's racks contradict each other or the bag: not used")
    return rack_plan(record_events, seed, name=name, pairs=pairs, within=within, use_gcg_racks=False,
                     players=players, lang=lang, rules=rules)


def rack_plan_from_gcg(path, seed: int, **kw) -> RackGame:
    """`rack_plan` of a GCG file (its players' nicknames kept)."""
    from pathlib import Path

    from tilecam.scoring.gcg import read_gcg, record_from_gcg
    lang, rules = kw.get("lang", "en"), kw.get("rules", "naspa-csw")
    gcg = read_gcg(Path(path).read_bytes())
    record, _, _ = record_from_gcg(gcg, get_profile(rules), DISTRIBUTIONS[lang])
    return rack_plan(record.events, seed, name=Path(path).name,
                     players=tuple(p.nick for p in record.players), **kw)


def _steps(events: list[Event], dist: Distribution, use_gcg: bool) -> list[_Step]:
    bag = dist.total - 14
    held = [7, 7]
    steps = []
    for i, e in enumerate(events):
        p = e.player
        s = _Step(i, p, e.kind if e.kind in TURN_KINDS or e.kind == "phony_withdrawn" else "other",
                  Counter(), Counter(), size=held[p])
        if e.kind == "play":
            tiles = _tiles(e.placement)
            phony = i + 1 < len(events) and events[i + 1].kind == "phony_withdrawn"
            s.need, s.phony = tiles, phony
            if not phony:
                s.consume = tiles
                s.draw = min(sum(tiles.values()), bag)
                bag -= s.draw
                held[p] += s.draw - sum(tiles.values())
        elif e.kind == "exchange":
            known = _rack_counter(e.tiles, dist) if e.tiles and use_gcg else None
            if known:
                s.need, s.consume = known, known
            s.exchange = e.count
            s.draw = e.count
        if e.kind in ("play", "exchange", "pass") and use_gcg:
            rack = _rack_counter(getattr(e, "rack", None), dist)
            if rack is not None and _within(s.need, rack):
                if sum(rack.values()) == s.size:
                    s.known = rack
                elif sum(rack.values()) < s.size:
                    s.partial = rack
        steps.append(s)
    # A full rack the player's previous leave does not fit is not used (a record's slip); after a
    # withdrawn phony the player holds the same rack again.
    last: dict[int, _Step] = {}
    for s in steps:
        if s.kind not in TURN_KINDS:
            continue
        prev = last.get(s.player)
        if prev is not None and prev.phony and s.known is None:
            s.known = prev.known
        if prev is not None and prev.phony and prev.known is None and s.known is not None:
            prev.known = s.known if _within(prev.need, s.known) else None
        last[s.player] = s
    # What the record shows on each rack, carried forward: tiles stay on a rack until played.
    last = {}
    for s in steps:
        if s.kind not in TURN_KINDS:
            continue
        prev = last.get(s.player)
        seen = s.need | (s.partial or Counter())
        if prev is not None and prev.seen is not None:
            seen = seen | (prev.seen if prev.phony else _sub(prev.seen, prev.consume))
        if s.known is not None:
            seen = Counter(s.known) if _within(seen, s.known) else seen
        s.seen = seen if sum(seen.values()) <= s.size else s.need | (s.partial or Counter())
        if s.known is not None and prev is not None and prev.known is not None and not prev.phony:
            if not _within(_sub(prev.known, prev.consume), s.known):
                s.known = None
        last[s.player] = s
    return steps


def _final_racks(events: list[Event], dist: Distribution) -> list[Counter | None]:
    """The end-of-game racks the record gives (None: not given)."""
    final: list[Counter | None] = [None, None]
    for e in events:
        if e.kind == "end_rack_points":
            final[1 - e.player] = _rack_counter(e.opponent_rack, dist) or Counter()
            final[e.player] = Counter()
        elif e.kind == "end_rack_penalty":
            final[e.player] = _rack_counter(e.rack, dist) or Counter()
    return final


def _carry(nxt: Counter, draw: int, soon: Counter, prefer: Counter | None = None) -> Counter:
    """What of `nxt` (the least the next rack holds) must already be on the rack when only `draw`
    tiles come: tiles the record saw on this rack (`prefer`) first, then those needed soonest."""
    keep = max(0, sum(nxt.values()) - draw)
    left, out = Counter(nxt), Counter()
    for pool in (prefer or Counter(), soon, nxt):
        for t in sorted(pool):
            while sum(out.values()) < keep and left[t] > 0 and out[t] < pool[t]:
                out[t] += 1
                left[t] -= 1
    return out


def _backward(steps: list[_Step], final: list[Counter | None], name: str) -> None:
    """Fill each turn's `hold`: the least the rack must hold before it for every later turn of the
    same player to be possible."""
    for p in (0, 1):
        nxt = final[p] or Counter()
        soon = Counter(nxt)
        for s in reversed([s for s in steps if s.player == p and s.kind in TURN_KINDS]):
            if s.kind == "pass":
                hold = Counter(nxt)
            elif s.phony:
                hold = nxt | s.need
            else:
                seen = s.known if s.known is not None else s.seen
                hold = s.need + _carry(nxt, s.draw, soon, _sub(seen, s.need) if seen is not None else None)
            if s.seen is not None and sum((hold | s.seen).values()) <= s.size:
                hold = hold | s.seen
            if s.known is not None:
                if not _within(hold, s.known):
                    s.known = None  # the record's rack cannot be: not used
                else:
                    hold = Counter(s.known)
            if sum(hold.values()) > s.size:
                raise RackPlanError(f"{name}: event {s.event} needs {spell(hold)} on a rack of {s.size}")
            s.hold = hold
            nxt, soon = hold, (s.need or hold)


class _Draws:
    """The forward pass's state: the bag and both racks."""

    def __init__(self, dist: Distribution, steps: list[_Step], final, rng) -> None:
        self.bag, self.racks = dist.bag(), [Counter(), Counter()]
        self.steps, self.final, self.rng = steps, final, rng
        self.turns = [[s for s in steps if s.player == p and s.kind in TURN_KINDS] for p in (0, 1)]

    def need(self, p: int, rack: Counter, after: int) -> Counter:
        """What player p must still draw, keeping every tile, for their turns after event `after`."""
        have, total = Counter(rack), Counter()
        for s in self.turns[p]:
            if s.event <= after:
                continue
            missing = _sub(s.hold, have)
            total += missing
            have += missing
            if not s.phony:
                have = _sub(have, s.consume)
        if self.final[p] is not None:
            total += _sub(self.final[p], have)
        return total

    def fits(self, p: int, rack: Counter, after: int) -> bool:
        """Can player p, holding `rack` after event `after`, make every later turn with its draws?"""
        have = Counter(rack)
        for s in self.turns[p]:
            if s.event <= after:
                continue
            if not _within(s.hold, have):
                return False
            have = have if s.phony else _sub(have, s.consume)
            if s.exchange and not s.consume:
                have = _drop_free(have, s.hold, s.exchange)
            nxt = next((t.hold for t in self.turns[p] if t.event > s.event), self.final[p] or Counter())
            if sum(_sub(nxt, have).values()) > s.draw:
                return False
            have += _sub(nxt, have)   # the rest of the draw is free tiles: they need nothing
        return True

    def draw(self, p: int, rack: Counter, n: int, want: Counter, after: int, name: str) -> Counter:
        """`n` tiles for player p: `want` and the rest at random, never a tile the other player's
        coming turns need, and only own future tiles that keep p's later turns possible."""
        drawn = Counter(want)
        if not _within(want, self.bag):
            raise RackPlanError(f"{name}: the bag has no {spell(_sub(want, self.bag))} for event {after}")
        pool = _sub(self.bag, want)
        pool = _sub(pool, self.need(1 - p, self.racks[1 - p], after))
        while sum(drawn.values()) < n:
            kinds = [t for t, c in sorted(pool.items()) if c > 0]
            if not kinds:
                raise RackPlanError(f"{name}: no tile left to draw for event {after}")
            weights = np.array([pool[t] for t in kinds], float)
            t = kinds[int(self.rng.choice(len(kinds), p=weights / weights.sum()))]
            trial = rack + drawn + Counter([t])
            own = self.need(p, rack + drawn, after)
            if own.get(t, 0) > 0 and not self.fits(p, trial, after):
                pool[t] = 0   # drawing it early would crowd a later turn
                continue
            drawn[t] += 1
            pool[t] -= 1
        self.bag = _sub(self.bag, drawn)
        return drawn


def _exchange_out(rack: Counter, nxt: Counter, later: Counter, n: int, rng, avail: Counter) -> Counter:
    """The `n` tiles an exchange throws back, at random among the tiles it may: the rack keeps
    first the next turn's tiles the bag has no other of (`avail`: the bag less the other player's
    needs; drawn before the return, a tile thrown back cannot come back), then the next turn's
    other tiles, then tiles a later turn needs."""
    room = sum(rack.values()) - n
    keep: Counter = Counter()
    for pool, scarce_first in ((rack & nxt, True), (rack & later, False), (rack, False)):
        tiles = list(_sub(pool, keep).elements())
        rng.shuffle(tiles)
        if scarce_first:
            tiles.sort(key=lambda t: avail[t] > 0)
        for t in tiles:
            if sum(keep.values()) < room:
                keep[t] += 1
    return _sub(rack, keep)


def _drop_free(have: Counter, hold: Counter, n: int) -> Counter:
    free = sorted(_sub(have, hold).elements())
    return _sub(have, Counter(free[:n]))


def _forward(name, events, steps, final, added, dist, rng, players, notes, used) -> RackGame:
    d = _Draws(dist, steps, final, rng)
    firsts = [next((s.hold for s in d.turns[p]), final[p] or Counter()) for p in (0, 1)]
    for p in (0, 1):
        d.racks[p] = d.draw(p, Counter(), 7, firsts[p], -1, name)
    start = tuple(spell(r) for r in d.racks)
    turns: list[RackTurn] = []
    out_events: list[Event] = []
    gcg_racks = 0
    for s, e in zip(steps, events):
        p = s.player
        rack = Counter(d.racks[p])
        if s.kind not in TURN_KINDS:
            if s.kind == "phony_withdrawn":
                turns.append(RackTurn(s.event, p, "withdrawn", spell(rack), after=spell(rack), bag=sum(d.bag.values())))
            else:
                turns.append(RackTurn(s.event, p, "other", spell(rack), after=spell(rack), bag=sum(d.bag.values())))
            out_events.append(e)
            continue
        if not _within(s.hold, rack) and not (s.kind == "exchange" and not s.consume):
            raise RackPlanError(f"{name}: event {s.event}: rack {spell(rack)} lacks {spell(_sub(s.hold, rack))}")
        gcg_racks += s.known is not None or s.partial is not None
        if s.kind == "pass":
            out = Counter()
        elif s.kind == "exchange" and not s.consume:
            nxt = next((t.hold for t in d.turns[p] if t.event > s.event), final[p] or Counter())
            out = _exchange_out(rack, nxt, d.need(p, Counter(), s.event), s.exchange, rng,
                                _sub(d.bag, d.need(1 - p, d.racks[1 - p], s.event)))
        else:
            out = Counter(s.need)
        leave = rack if s.phony else _sub(rack, out)
        nxt = next((t.hold for t in d.turns[p] if t.event > s.event), final[p] or Counter())
        want = _sub(nxt, leave) if s.draw else Counter()
        if sum(want.values()) > s.draw:
            raise RackPlanError(f"{name}: event {s.event}: the next turn needs {spell(want)}, {s.draw} drawn")
        drawn = d.draw(p, leave, s.draw, want, s.event, name) if s.draw else Counter()
        if s.kind == "exchange":
            d.bag += out   # drawn first, then the tiles go back
        d.racks[p] = leave + drawn
        turns.append(RackTurn(s.event, p, s.kind, spell(rack), spell(out), spell(drawn), spell(d.racks[p]),
                              s.event in added, s.phony, sum(d.bag.values())))
        if s.kind == "exchange":
            e = replace(e, tiles=spell(out), count=sum(out.values()), rack=spell(rack))
        else:
            e = replace(e, rack=spell(rack))
        out_events.append(e)
    return RackGame(name, tuple(out_events), tuple(turns), start, tuple(spell(r) for r in d.racks), players,
                    gcg_racks, tuple(notes) + (() if used else ("racks drawn without the record's",)))


def check_rack_game(game: RackGame, lang: str = "en") -> list[str]:
    """Every rule the rack truth keeps, as messages ([] = all kept): a rack holds 7 tiles while the
    bag has tiles; a play's tiles are on its rack; an exchange changes the rack and keeps its size;
    a pass changes nothing; the board, the racks and the bag are exactly the set at every step."""
    dist = DISTRIBUTIONS[lang]
    problems: list[str] = []
    racks = [Counter(r) for r in game.start]
    board: Counter = Counter()
    bag = _sub(dist.bag(), racks[0] + racks[1])
    if +bag != bag or sum(bag.values()) != dist.total - 14:
        problems.append(f"start racks {game.start} are not from the set")
    for t, e in zip(game.turns, game.events):
        p = t.player
        if Counter(t.rack) != racks[p]:
            problems.append(f"event {t.event}: rack {t.rack} is not the last one, {spell(racks[p])}")
        if t.kind in TURN_KINDS and sum(bag.values()) > 0 and len(t.rack) != dist.rack_size:
            problems.append(f"event {t.event}: {len(t.rack)} tiles on the rack with {sum(bag.values())} in the bag")
        if t.kind == "play":
            played = _tiles(e.placement)
            if not _within(played, Counter(t.rack)):
                problems.append(f"event {t.event}: play {spell(played)} not on rack {t.rack}")
            if not t.phony:
                board += played
        if t.kind == "exchange" and (Counter(t.out) == Counter() or len(t.after) != len(t.rack)):
            problems.append(f"event {t.event}: exchange {t.rack} -> {t.after}")
        if t.kind == "pass" and t.after != t.rack:
            problems.append(f"event {t.event}: a pass changed the rack {t.rack} -> {t.after}")
        bag = _sub(bag, Counter(t.drawn))
        if t.kind == "exchange":
            bag += Counter(t.out)
        racks[p] = Counter(t.after)
        total = board + racks[0] + racks[1] + bag
        if total != dist.bag():
            problems.append(f"event {t.event}: board, racks and bag hold {spell(total)}, not the set")
        if sum(bag.values()) != t.bag:
            problems.append(f"event {t.event}: bag {sum(bag.values())} != {t.bag}")
    if tuple(spell(r) for r in racks) != game.final:
        problems.append(f"final racks {game.final} are not the last racks")
    return problems
