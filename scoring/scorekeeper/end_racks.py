"""The end of the recording: when a player went out, the end-of-game rack adjustments; when two
or more opponents still hold tiles, their racks as the rack cameras last saw them (whole and
sure), if together they are the unseen tiles; else the operator enters them."""
from __future__ import annotations

from ..events import LogEntry
from ..game import TurnDetailsError
from .state import KeeperState


def finish(sk: KeeperState) -> list[LogEntry]:
    """End of the recording: if a player went out, add the end-of-game rack adjustments."""
    if sk.game.state.end_reason == "out" and not any(
            e.kind in ("end_rack_points", "end_rack_penalty") for e in sk.game.events):
        try:
            added = sk.game.finish_out()
        except ValueError:
            racks = end_racks(sk)
            if racks is None:
                return []  # two or more opponents hold tiles: the operator enters their racks
            try:
                added = sk.game.finish_out(racks)
            except TurnDetailsError:
                return []  # the racks seen are not the unseen tiles: the operator enters them
        return [sk.append(e) for e in added]
    return []


def end_racks(sk: KeeperState) -> list[str] | None:
    """Each player's rack at the end as the rack cameras saw it ('' for none held), or None when
    a player who holds tiles has no whole, sure read of them."""
    if sk.racks is None:
        return None
    s = sk.game.state
    seen = sk.racks.end_racks(sk.game.events)
    racks = ["" if s.rack_sizes[p] == 0 or p == s.out_player else seen[p] for p in range(sk.game.players)]
    return None if any(r is None for r in racks) else racks
