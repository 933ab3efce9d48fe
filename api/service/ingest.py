"""Ingest: the central service's side of a tournament (issue 22).

Each station records into its own store and forwards every log entry of its games here
(api/station/forwarder.py); the central service keeps a mirror of each station game and never writes
to one itself. A forwarded game is known by the uid the station gave it (meta "station_uid",
a UUID kept in the station's store, so it survives restarts) and its entries map 1:1 by seq:

- an entry the mirror already holds is a no-op when it is the same, and a Conflict when it
  differs (never overwritten: the two records would no longer be one);
- an entry whose predecessor is missing is refused with OutOfOrder naming the seq the mirror
  expects, and nothing of the batch is written;
- every forwarded write, and the station's heartbeat, sets meta "station_heard_at" (unix
  seconds) beside "station" (its name) and "table" (the station's own meta), which the
  director's /tournament page reads;
- the heartbeat also names the station's own address and its id of the game ("station_url",
  "station_game": /tournament links the station's console) and carries the game's clock
  ("station_clock": the clock as the station showed it and when it arrived here), which this
  service's live state runs on between heartbeats (``forwarded_clock``).

Only the station's operator corrects a forwarded game; ``refuse_mirror`` is how the writer
turns away the central's own operator (docs/api.md, "Stations and the central service").
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from pydantic import ValidationError

from tilecam.scoring import DISTRIBUTIONS, LAYOUTS, GameError, LogEntry, from_json, get_profile, to_json

import tilecam.api.service.types as s
from ..errors import Conflict, InvalidInput, NotFound, OutOfOrder
from ..store import Changes, GameRow
from .context import Context
from .view import DAMAGE, load_view

__all__ = ["CENTRAL_META", "Ingest", "Mirror", "STATION_CLOCK", "STATION_GAME", "STATION_UID", "STATION_URL",
           "clock_state", "forwarded_clock", "forwarded_meta", "header_digest", "refuse_mirror"]

STATION_UID = "station_uid"  # the station's id of a game: in both stores' meta
STATION_URL, STATION_GAME, STATION_CLOCK = "station_url", "station_game", "station_clock"  # from the heartbeat
# Keys only the central service writes into a mirror's meta (the station never sends them).
CENTRAL_META = ("station", "station_token", "station_heard_at", STATION_URL, STATION_GAME, STATION_CLOCK)
# What a clock's update changes (a press, a pause, the end); the time left runs on by itself.
CLOCK_STATE = ("running", "on_clock", "paused", "started", "finished")


def forwarded_meta(meta: dict) -> dict:
    """The part of a game's meta a station forwards: everything but the central's own keys."""
    return {k: v for k, v in meta.items() if k not in CENTRAL_META}


def header_digest(players, rules: str, lang: str, layout: str, meta: dict) -> str:
    """One string per game header, the same on the station and the central service, so that a
    station that restarts resends only the headers that changed."""
    text = json.dumps({"players": [dict(p) for p in players], "rules": rules, "lang": lang, "layout": layout,
                       "meta": forwarded_meta(meta)}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def forwarded_clock(meta: dict, now: float) -> s.ClockOut | None:
    """A forwarded game's clock as of `now` (this service's time): as the station's last heartbeat
    showed it, the running player's time run down since it arrived (so two machines' clocks never
    need to agree); None without one."""
    raw = meta.get(STATION_CLOCK)
    if not raw:
        return None
    try:
        held = json.loads(raw)
        clock, received = s.ClockOut.model_validate(held["clock"]), float(held["received"])
    except (ValueError, KeyError, TypeError, ValidationError):  # not ours to read: no clock, not a failed page
        return None
    remaining = list(clock.remaining_ms)
    if clock.running is not None and not clock.paused and not clock.finished and clock.running < len(remaining):
        remaining[clock.running] -= max(0, round((now - received) * 1000))
    return clock.model_copy(update={"at": now, "remaining_ms": remaining})


def clock_state(clock: s.ClockOut | dict | None) -> tuple | None:
    """What a press, a pause or the end changes of a clock; the time left runs on by itself."""
    if clock is None:
        return None
    values = clock if isinstance(clock, dict) else clock.model_dump()
    return tuple(values.get(k) for k in CLOCK_STATE)  # as the forwarder compares what it sent


def _check_forwarded_rack(kind: str, data: dict, held: list, seq: int) -> None:
    """A forwarded rack row the service can read later: a read's player, tiles (none: an empty rack)
    and turn; a
    confirmation's target, a read before it. InvalidInput naming what is wrong."""
    if kind == "seen":
        tiles, player, turn = data.get("tiles"), data.get("player"), data.get("turn")
        if not (isinstance(player, int) and isinstance(turn, int) and isinstance(tiles, list)
                and all(t is None or isinstance(t, str) for t in tiles)):
            raise InvalidInput(f"rack read {seq}: not a rack read (player, turn and tiles)")
    elif kind == "confirm":
        target, tiles = data.get("target"), data.get("tiles")
        if not (isinstance(target, int) and 0 <= target < seq and held[target].kind == "seen"
                and isinstance(tiles, list)):
            raise InvalidInput(f"rack read {seq}: a confirmation names a read before it, and its tiles")
    else:
        raise InvalidInput(f"rack read {seq}: kind {kind!r} is neither 'seen' nor 'confirm'")


def station_console(meta: dict) -> str | None:
    """The forwarding station's operator console on its game (its heartbeat's address and game id),
    or None when it gave no address."""
    url = meta.get(STATION_URL) or None
    local = meta.get(STATION_GAME, "")
    return f"{url.rstrip('/')}/operator{f'?game={local}' if local.isdecimal() else ''}" if url else None


def forwarded_by(meta: dict) -> str | None:
    """The station a game is the central's mirror of (its name, "?" when it gave none), or None for
    a game recorded here: such a game is written only by that station's forwarding."""
    return meta.get("station") or "?" if "station_token" in meta else None


def refuse_mirror(row: GameRow) -> None:
    """A Conflict naming the station and table (and its console, when the station gave its address)
    when `row` is a game a station forwards here: its record is the station's, corrected at the
    station, and the mirror only follows."""
    station = forwarded_by(row.meta)
    if station is not None:
        table = row.meta.get("table")
        console = station_console(row.meta)
        raise Conflict(f"game {row.id} is recorded by station {station}"
                       f"{f' at table {table}' if table else ''}; correct it at that station (its operator "
                       f"console{f', {console}' if console else ''}): the central service only mirrors what "
                       "the station forwards")


@dataclass(frozen=True, slots=True)
class Mirror:
    """What the central service holds of one forwarded game."""
    uid: str
    game_id: int
    next: int          # the seq it expects next: how many entries it holds
    frames: list[int]  # the seqs whose evidence frame it holds
    header: str        # header_digest of the players, rules, tile set, layout and forwarded meta
    racks: int = 0     # the rack log row it expects next (issue 30)


class Ingest:
    """Forwarded games on the central service: the mirrors, written only by their stations."""

    def __init__(self, ctx: Context) -> None:
        self.ctx, self.store = ctx, ctx.store
        self._mirrors: dict[str, int] = {}  # station uid -> game id, filled from the store on a miss

    # ---- the station's side: what its forwarder reads (api/station/forwarder.py)
    def changes_since(self, mark: int | None) -> Changes:
        """The games other writers changed since `mark` (the store's change feed); the forwarder
        holds its own store connection, so the recorder's and the console's writes are "other"."""
        return self.store.changes(mark)

    def frame_seqs(self, game_id: int) -> set[int]:
        """The seqs of the game's entries that have an evidence frame."""
        return self.store.frame_seqs(game_id)

    # ---- finding a station's games
    def _scan(self) -> None:
        # One pass over every game's meta, when a uid is not known yet (a new game, a restart).
        for row in self.store.games():
            uid = row.meta.get(STATION_UID)
            if uid and "station_token" in row.meta:
                self._mirrors[uid] = row.id

    def _mirror_row(self, uid: str) -> GameRow | None:
        if uid not in self._mirrors:
            self._scan()
        game_id = self._mirrors.get(uid)
        if game_id is None:
            return None
        try:
            return self.store.game(game_id)
        except NotFound:  # removed by hand since: forget it
            del self._mirrors[uid]
            return None

    @staticmethod
    def _owned(row: GameRow, station: str, token: str, uid: str) -> GameRow:
        if row.meta.get("station") != station or row.meta.get("station_token") != token:
            raise Conflict(f"game {uid} is forwarded by station {row.meta.get('station')} "
                           f"(token {row.meta.get('station_token')!r}), not by {station} (token {token!r})")
        return row

    def _state(self, row: GameRow) -> Mirror:
        return Mirror(row.meta[STATION_UID], row.id, self.store.count(row.id), sorted(self.store.frame_seqs(row.id)),
                      header_digest(row.players, row.rules, row.lang, row.layout, row.meta),
                      len(self.store.racks(row.id)))

    def _heard(self, game_id: int) -> None:
        self.store.update_game(game_id, meta={"station_heard_at": f"{int(self.ctx.clock())}"})

    def station_games(self, station: str, token: str) -> list[Mirror]:
        """What the central service holds of every game `station` forwarded with `token`."""
        rows = [row for row in self.store.games()
                if row.meta.get("station") == station and row.meta.get("station_token") == token
                and row.meta.get(STATION_UID)]
        self._mirrors.update((row.meta[STATION_UID], row.id) for row in rows)
        return [self._state(row) for row in rows]

    # ---- writes from a station
    def ingest_header(self, station: str, token: str, uid: str, players: list[dict], rules: str, lang: str,
                      layout: str, meta: dict[str, str]) -> Mirror:
        """Create the mirror of game `uid`, or bring its players and meta up to the station's
        (keys the station no longer has are removed). Rules, tile set and layout never change."""
        get_profile(rules).check_players(len(players))  # RulesError naming the choices: a 422
        if lang not in DISTRIBUTIONS:
            raise InvalidInput(f"unknown tile set {lang!r}; choose one of {', '.join(DISTRIBUTIONS)}")
        if layout not in LAYOUTS:
            raise InvalidInput(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
        meta = {**forwarded_meta(meta), STATION_UID: uid}
        mine = {"station": station, "station_token": token, "station_heard_at": f"{int(self.ctx.clock())}"}
        with self.store.writing():  # a new game is created once, whoever else forwards at the same time
            row = self._mirror_row(uid)
            if row is None:
                row = self.store.create_game(players, rules, lang, layout, {**meta, **mine})
                self._mirrors[uid] = row.id
                return self._state(row)
        with self.ctx.lock(row.id):
            with self.store.writing():
                row = self._owned(self.store.game(row.id), station, token, uid)
                given = (rules, lang, layout)
                if (row.rules, row.lang, row.layout) != given:
                    raise Conflict(f"game {uid} of station {station} is {row.rules}/{row.lang}/{row.layout} "
                                   f"here, not {'/'.join(given)}: a game's rules never change")
                gone = {k: None for k in forwarded_meta(row.meta) if k not in meta}
                row = self.store.update_game(row.id, players=players, meta={**gone, **meta, **mine})
                state = self._state(row)
            self.ctx.publish(row.id)
        return state

    def ingest_entries(self, station: str, token: str, uid: str,
                       batch: list[tuple[int, dict, dict | None]]) -> Mirror:
        """Entries (seq, to_json data, sidecar) of game `uid`, in order and consecutive. Those the
        mirror holds are checked to be the same; the rest are appended, all in one transaction."""
        if not batch:
            raise InvalidInput("no entries")
        first = batch[0][0]
        if [seq for seq, _, _ in batch] != list(range(first, first + len(batch))):
            raise InvalidInput("the entries must be consecutive seqs, in order")
        parsed = []
        for seq, data, sidecar in batch:
            try:
                parsed.append((seq, from_json(data), sidecar))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise InvalidInput(f"entry {seq}: {exc}") from None
        row = self._mirror_row(uid)
        if row is None:
            raise NotFound(f"station {station} has not forwarded game {uid} yet: send its header first")
        added: list[tuple[int, LogEntry]] = []
        with self.ctx.lock(row.id):
            with self.store.writing():
                self._owned(self.store.game(row.id), station, token, uid)
                held = self.store.entries(row.id)
                if first > len(held):
                    raise OutOfOrder(f"game {uid} of station {station}: entry {first} follows entry "
                                     f"{first - 1}, which is not here; send from {len(held)}", len(held))
                for seq, entry, sidecar in parsed:
                    if seq < len(held):
                        self._same(held[seq], entry, sidecar, uid, station)
                        continue
                    self.store.append(row.id, entry, seq, sidecar=sidecar)
                    added.append((seq, entry))
                if added:
                    try:  # a log the service could not read later is refused now, while nothing is written
                        load_view(self.store, row.id).game_at()
                    except (*DAMAGE, GameError) as exc:
                        raise InvalidInput(f"game {uid} of station {station} does not replay with entry "
                                           f"{added[0][0]}: {exc}") from None
                self._heard(row.id)
                state = self._state(self.store.game(row.id))
            for seq, entry in added:
                self.ctx.publish(row.id, entry, seq)
        return state

    @staticmethod
    def _same(held, entry: LogEntry, sidecar: dict | None, uid: str, station: str) -> None:
        if to_json(held.entry) != to_json(entry) or held.sidecar != sidecar:
            what = "its sidecar" if to_json(held.entry) == to_json(entry) else f"{held.entry.kind} here, " \
                                                                               f"{entry.kind} sent"
            raise Conflict(f"entry {held.seq} of game {uid} from station {station} differs from the one the "
                           f"central service holds ({what}); a forwarded entry is never overwritten: the "
                           "station's record and this one have diverged")

    def ingest_frame(self, station: str, token: str, uid: str, seq: int, jpeg: bytes) -> Mirror:
        """The evidence frame of entry `seq` of game `uid` (the entry must be here first)."""
        row = self._mirror_row(uid)
        if row is None:
            raise NotFound(f"station {station} has not forwarded game {uid} yet: send its header first")
        with self.ctx.lock(row.id), self.store.writing():
            self._owned(self.store.game(row.id), station, token, uid)
            n = self.store.count(row.id)
            if seq >= n:
                raise OutOfOrder(f"game {uid} of station {station} has no entry {seq} here yet; send "
                                 f"entries from {n}", n)
            self.store.put_frame(row.id, seq, jpeg=jpeg)
            self._heard(row.id)
            return self._state(self.store.game(row.id))

    def ingest_rack(self, station: str, token: str, uid: str, seq: int, kind: str, data: dict,
                    jpeg: bytes | None = None) -> Mirror:
        """One row of the station's rack log (a rack camera's read, or its operator's confirmation)
        at its seq there, with its evidence frame: one the mirror holds is a no-op when the same and
        a Conflict when it differs; one beyond the next is OutOfOrder naming the seq to send."""
        row = self._mirror_row(uid)
        if row is None:
            raise NotFound(f"station {station} has not forwarded game {uid} yet: send its header first")
        with self.ctx.lock(row.id):
            with self.store.writing():
                self._owned(self.store.game(row.id), station, token, uid)
                held = self.store.racks(row.id)
                if seq < len(held):
                    if (held[seq].kind, held[seq].data) != (kind, data):
                        raise Conflict(f"rack read {seq} of game {uid} from station {station} differs from the one "
                                       "the central service holds; a forwarded row is never overwritten")
                    return self._state(self.store.game(row.id))
                if seq > len(held):
                    raise OutOfOrder(f"game {uid} of station {station}: rack read {seq} follows {seq - 1}, which is "
                                     f"not here; send from {len(held)}", len(held))
                _check_forwarded_rack(kind, data, held, seq)
                self.store.append_rack(row.id, kind, data, expect=seq, jpeg=jpeg)
                self._heard(row.id)
                state = self._state(self.store.game(row.id))
            self.ctx.publish(row.id)
        return state

    def heartbeat(self, station: str, token: str, uids: list[str], url: str | None = None,
                  game: int | None = None, clock: dict | None = None) -> dict[str, int]:
        """The station is alive: "station_heard_at" on the games it names (its current one first)
        that it forwarded here; on the first, the station's address (`url`), its own id of the game
        (`game`) and the game's clock as the station shows it (`clock`, a ClockOut; None: no clock).
        A clock pressed, paused or stopped is published at once to this service's pages. Returns
        the games' ids by uid; a uid not forwarded yet is left out."""
        found = {}
        for i, uid in enumerate(uids):
            row = self._mirror_row(uid)
            if row is None:
                continue
            with self.ctx.lock(row.id):
                with self.store.writing():
                    before = self._owned(self.store.game(row.id), station, token, uid).meta
                    meta = {"station_heard_at": f"{int(self.ctx.clock())}"}
                    if i == 0:
                        meta[STATION_CLOCK] = None if clock is None else json.dumps(
                            {"clock": clock, "received": self.ctx.clock()}, separators=(",", ":"))
                        if url is not None:
                            meta[STATION_URL] = url
                        if game is not None:
                            meta[STATION_GAME] = str(game)
                    self.store.update_game(row.id, meta=meta)
                if i == 0 and clock_state(forwarded_clock(before, 0.0)) != clock_state(clock):
                    self.ctx.publish(row.id)  # the overlays here show the press now, not at the next entry
            found[uid] = row.id
        return found
