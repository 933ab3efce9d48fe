"""The game a station records: opened or created in the store, its scorekeeper caught up on the
log, the recorder's link to it, the game to resume after a restart, and its clock: in the trigger
path while the game runs, stopped when its source ends with the game over."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable

__all__ = ["STATION_META", "Recording", "attach_game", "clock_trigger", "game_to_resume", "resume_racks",
           "stop_clock"]

# Marks the games a station records (and may resume); a service key, kept out of the GCG export.
STATION_META = {"created_by": "tilecam run"}


def _say(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


@dataclass
class Recording:
    """A game in the store and what records it: its scorekeeper (resumed from the store's log) and
    the recorder's link to the game."""

    game_id: int
    scorekeeper: object
    link: object
    resumed: bool
    lang: str


def attach_game(service, game_id: int | None, *, players=None, rules: str = "naspa", lang: str = "en",
                lexicon=None, decode=None, meta: dict | None = None, jpeg_quality: int = 85,
                on_commit=None, rack_trust=None, learned: frozenset[str] = frozenset()) -> Recording:
    """Open game `game_id` (its tile set, rules and players are the store's) or create one (with the
    tiles its table already `learned`), with a scorekeeper caught up on its log (and its rack log,
    its tiles counted as `rack_trust` says: the station's RackTrust, from [racks] review_below; None:
    the settings' default)."""
    from .link import GameLink
    from .sinks import JpegEvidence
    from tilecam.scoring import DISTRIBUTIONS, LAYOUTS, DecodeConfig, Game, Scorekeeper, get_profile

    resumed = game_id is not None
    if resumed:
        row = service.game(game_id)
    else:
        # names, or (name, nickname) pairs
        named = [(p, None) if isinstance(p, str) else tuple(p) for p in (players or ("Player 1", "Player 2"))]
        row = service.create_game(named, rules, lang, meta=meta)
        if learned:
            service.set_learned(row.id, learned)
    keeper = Scorekeeper(Game(get_profile(row.rules), DISTRIBUTIONS[row.lang], LAYOUTS[row.layout], len(row.players)),
                         lexicon, decode or DecodeConfig())
    keeper.given = service.learned(row.id)  # what the table learned outside this game's moves (scoring.trust)
    link = GameLink(service, row.id, JpegEvidence(jpeg_quality), on_commit=on_commit)
    if resumed:
        keeper.resume(link.entries())
        if rack_trust is None:  # the settings' default, as the station builds it
            from ..service import RacksOnAir
            from ..settings import Settings
            rack_trust = RacksOnAir.from_settings(Settings()).trust
        resume_racks(keeper, service.racks(row.id), rack_trust)
    return Recording(row.id, keeper, link, resumed, row.lang)


def resume_racks(keeper, reads, trust) -> None:
    """The rack reads the game's rack log holds (service.racks: the operator's word where they fixed
    one), back in the scorekeeper's rack book after a restart, in the order they came: the moves to
    come are judged with them. Nothing is decided here: what a read amended was committed when it
    came. A read that broke the set's counts, unconfirmed, is kept with no tile trusted."""
    from tilecam.scoring import RackSeen
    if not reads:
        return
    book = keeper.watch_racks(trust)
    for r in reads:
        sure = r.fixed or r.confirmed_by is not None   # the operator's word: no doubt left
        cert = () if sure else (0.0,) * len(r.tiles) if r.breaks else tuple(r.certainty)
        book.add(RackSeen(r.player, r.t, tuple(r.tiles), cert, None))


def game_to_resume(service) -> int | None:
    """The latest game a station was recording that has neither ended nor been closed: after a
    crash or a power cut the station picks it up again."""
    for row in sorted(service.games(), key=lambda r: r.id, reverse=True):
        if all(row.meta.get(k) == v for k, v in STATION_META.items()):
            view = service.load(row.id)
            if not view.over():
                return row.id
    return None


def clock_trigger(settings, service, game_id: int, on_trigger: Callable):
    """The game clock (settings.clock) in the trigger path: a press runs the clock first, and the
    recorder (`on_trigger`) hears only the turn ends the clock accepted (station.triggers.connect).
    None: no clock (disabled, or rules without a time control)."""
    cfg = settings.clock
    if not cfg.enabled:
        return None
    if not service.has_clock(game_id):  # a resumed game keeps the clock its table log holds
        try:
            service.start_clock(game_id, cfg.minutes_per_player)
        except ValueError as exc:  # rules without a time control, a game already over
            _say(f"no game clock: {exc}")
            return None
    from .triggers import connect
    return connect(on_trigger, **service.clock_handlers(game_id))




def stop_clock(service, recording: Recording, say: Callable = _say) -> bool:
    """A station's source ended: a game that is over (its scorekeeper's rule: the rules ended it,
    or a director's close it followed) stops its clock, its overtime going into the record
    (GameService.end_clock, the one place a clock stops at the end); a game not over keeps it.
    A store gone meanwhile is said, and the recording is done all the same. Whether it stopped."""
    if not recording.scorekeeper.over:
        return False
    try:
        service.end_clock(recording.game_id)
    except Exception as exc:
        say(f"game {recording.game_id}: clock not finished: {exc}")
        return False
    return True
