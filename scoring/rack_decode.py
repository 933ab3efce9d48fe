"""A rack read decoded against what the game knows (issue 45): the one place a read's letters are
weighed against the game.

A rack is a short word of the set's tiles, and the game knows much of it: it holds only tiles of
the unseen pool (`room`: not on the board, not on another player's rack as last read), the tiles
kept from the player's last known rack (the leave: after a play the rack is before - played +
drawn) and, before a play, the play's own tiles (`holds`). Each slot is its read letter or one of
the reader's runner-ups (RackSeen.alts); the mass the reader left unlisted stands for any other
tile (for one tile the rack must hold, an even share of it). The decoded rack is the likeliest choice of a letter per slot that fits; each slot's
certainty is then its letter's share of the weight of every choice that fits (the unlisted mass
counting as a choice that fits too), so a slot the game decided is sure only when the game leaves
it no other letter. A read that fits as read keeps the reader's certainties (the game may only
raise one, by the same share).

Pure: RackBook.fit (at a read) and RackBook.judge (at a play) ask it; nothing else decodes a rack.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

__all__ = ["RUNNER_UPS", "decode"]

RUNNER_UPS = 3      # the reader's runner-ups tried per slot (vision gives three)
_TINY = 1e-4        # a runner-up less likely than this is not worth a branch
_ANY = "*"          # a slot's unlisted mass: some tile the reader did not name


def _options(tile: str | None, cert: float | None, alts) -> list[tuple[str | None, float]]:
    if tile is None:
        return [(None, 1.0)]   # not seen: any tile, and it stays not seen
    listed = [(tile, 1.0 if cert is None else cert)]
    listed += [(a, p) for a, p in alts[:RUNNER_UPS] if a != tile and p > _TINY]
    rest = 1.0 - sum(p for _, p in listed)
    return listed + ([(_ANY, rest)] if rest > _TINY else [])


def decode(seen, room: Counter, holds: Counter | None = None):
    """`seen` (a scoring.racks.RackSeen; racks.py asks this module, so no import back) decoded under the game's knowledge: the likeliest rack whose named tiles fit in `room`
    and that holds `holds` (what it does not name fitting under its slots not seen). None when no
    choice of the reader's letters fits (the read is then not this rack, or the knowledge is not
    its: a read of a later turn). A read that fits as read is returned as it is (the same object)
    unless the game raises a slot's certainty."""
    holds = +Counter(holds or {})
    alts = seen.alts or ((),) * len(seen.tiles)
    opts = [_options(t, c, a) for t, c, a in zip(seen.tiles, seen.certainty, alts)]
    n = len(opts)
    # Only some tiles bind: those the rack must hold and those more slots may name than the room
    # has. A slot's other letters are one choice for the search (their weights summed, the likeliest
    # of them standing for it, its share then split by weight): the search stays small.
    may = Counter(t for o in opts for t in {x for x, _ in o} if t is not None and t != _ANY)
    binding = set(holds) | {t for t, k in may.items() if k > room.get(t, 0)}
    ratio = [1.0] * n
    for i, o in enumerate(opts):
        loose = [(t, p) for t, p in o if t is not None and t != _ANY and t not in binding]
        if len(loose) > 1:
            top = max(loose, key=lambda x: x[1])
            total = sum(p for _, p in loose)
            ratio[i] = top[1] / total
            opts[i] = [x for x in o if x not in loose] + [(top[0], total)]
    left = Counter(room)
    named: Counter = Counter()
    fits: list[tuple[float, tuple]] = []
    acc: list[str | None] = []
    # A slot's unlisted mass is some one tile of the others the set has: one it must hold is a
    # share of that mass as even as the reader's silence allows.
    spread = 1.0 / max(1, sum(1 for v in room.values() if v > 0) - RUNNER_UPS)
    # `short`: tiles of `holds` the choice so far does not name; `free`: its slots that may be any
    # tile (`hidden`: of them, slots not seen, which may be that tile at no cost)
    state = {"short": sum(holds.values()), "free": 0, "hidden": 0}

    def go(k: int, w: float) -> None:
        if state["short"] > state["free"] + (n - k):
            return   # not enough slots left to hold what the rack must
        if k == n:
            fits.append((w * spread ** max(0, state["short"] - state["hidden"]), tuple(acc)))
            return
        for tile, p in opts[k]:
            free = tile is None or tile == _ANY
            counted = not free and tile in binding
            if counted:
                if left[tile] <= 0:
                    continue
                left[tile] -= 1
                took = named[tile] < holds[tile]
                named[tile] += 1
                state["short"] -= took
            elif free:
                state["free"] += 1
                state["hidden"] += tile is None
            acc.append(tile)
            go(k + 1, w * p)
            acc.pop()
            if counted:
                left[tile] += 1
                named[tile] -= 1
                state["short"] += took
            elif free:
                state["free"] -= 1
                state["hidden"] -= tile is None

    go(0, 1.0)
    total = sum(w for w, _ in fits)
    named_fits = [f for f in fits if _ANY not in f[1]]
    if not named_fits or total <= 0:
        return None
    _, best = max(named_fits, key=lambda f: f[0])
    share = [sum(w for w, a in fits if a[i] == best[i]) / total * (1.0 if best[i] in binding else ratio[i])
             for i in range(n)]
    as_read = best == seen.tiles
    cert = []
    for i, (t, c) in enumerate(zip(seen.tiles, seen.certainty)):
        if t is None:
            cert.append(c)
        elif as_read:
            cert.append(c if c is None or share[i] <= c + 1e-6 else round(share[i], 4))
        else:
            cert.append(round(share[i], 4))
    if as_read and tuple(cert) == seen.certainty:
        return seen
    return replace(seen, tiles=best, certainty=tuple(cert))
