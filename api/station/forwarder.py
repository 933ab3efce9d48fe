"""The station's forwarder (issue 22): every log entry of this station's games, pushed to the
tournament's central service ([tournament] server), in order and exactly once.

The station records into its own store first and trusts it during a game; the forwarder is a
thread that follows that store and makes the central's mirror equal to it:

- every game gets a station uid (meta "station_uid", a UUID written into the station's store the
  first time the game is seen, so it survives restarts); the central maps entries 1:1 by seq;
- on start, and after every failed push, it asks the central what it holds of this station's
  games (GET /api/stations/{station}) and resends only what is missing: the header (players,
  rules, meta) when its digest differs, the entries from the central's next seq, the frames it
  lacks. A resent entry the central already has is a no-op; a refused one names the seq to
  resend from (api/service/ingest.py), so nothing is lost, doubled or reordered;
- the game's rack log (issue 30: the rack cameras' settled reads and the operator's confirmations,
  each with its evidence frame) follows its entries the same way, one row at a time from the
  central's next rack seq (``racks`` in its answer), so the central's pages show the racks too;
- between pushes it follows the store's change feed (``changes_since``) on its own store
  connection, reading again only the games that changed;
- failures wait retry_initial_s, doubling up to retry_max_s; a heartbeat every HEARTBEAT_S while
  there is nothing to push tells the central the station is alive. It names the station's own
  address (its console, for /tournament's link) and carries the newest game's clock, which lives
  in the station's memory, not in the log: sent again at once when it is pressed, paused or stopped.

Nothing here reaches the store but through the game service (api/service); the HTTP client is the
standard library's, so a station needs no extra package.
"""
from __future__ import annotations

import base64
import json
import re
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from http.client import HTTPException
from pathlib import Path
from typing import Callable

from tilecam.scoring import to_json

from tilecam.api.errors import ApiError, NotFound
from tilecam.api.service.ingest import CLOCK_STATE, STATION_UID, forwarded_meta, header_digest

__all__ = ["Central", "ForwardError", "Forwarder", "Refused", "Unreachable", "open_forwarder", "read_token",
           "station_name"]

HEARTBEAT_S = 5.0      # the central flags a station after [tournament] stale_after_s (60 s) of silence
POLL_S = 0.25          # how often the change feed is asked; one cheap read of the store
BATCH_ENTRIES = 100    # entries per push (the central takes 200)
BATCH_BYTES = 256 * 1024  # ... and at most this much JSON (the central takes 1 MiB)
TIMEOUT_S = 10.0       # one request; a cut network fails here at worst


class ForwardError(ApiError):
    """A push that did not go through; the message says why. The forwarder retries."""


class Unreachable(ForwardError):
    """No answer: the network is down, or the central service is restarting (or failed: a 5xx)."""


class Refused(ForwardError):
    """The central service answered no (a 4xx other than out-of-order): a bad token, a game that
    diverged. Retrying waits retry_max_s; the station's own record is not affected."""


def read_token(path: str | Path) -> str:
    """The station's token from [tournament] token_file (one line, not readable by others)."""
    from tilecam.api.settings import check_token, read_secret

    try:  # a SettingsError is a ValueError too
        return check_token(read_secret(path, "[tournament] token_file").decode("ascii", "replace").strip(),
                           f"the token in {path}")
    except ValueError as exc:
        raise ForwardError(str(exc)) from None


def station_name(configured: str | None) -> str:
    """[tournament] station, else this machine's host name (as the name pattern allows it)."""
    return configured or re.sub(r"[^A-Za-z0-9_.-]", "-", socket.gethostname())[:64] or "station"


class Central:
    """The central service's ingest routes (api/routes/stations.py), over plain HTTP."""

    def __init__(self, server: str, station: str, token: str, timeout_s: float = TIMEOUT_S) -> None:
        self.station = station
        self.base = f"{server.rstrip('/')}/api/stations/{station}"
        self.token, self.timeout_s = token, timeout_s
        # No proxy: the central is on the venue's LAN, whatever the environment says.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def call(self, method: str, path: str = "", body: dict | bytes | None = None) -> tuple[int, dict]:
        """(status, JSON answer) for a 2xx or 4xx; Unreachable for no answer or a 5xx."""
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        kind = "image/jpeg" if isinstance(body, bytes) else "application/json"
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {self.token}", "Content-Type": kind})
        try:
            with self._opener.open(request, timeout=self.timeout_s) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as exc:
            status = exc.code
            try:
                text = exc.read()
            except (OSError, HTTPException):  # the answer was cut off: its status is what counts
                text = b""
        except (urllib.error.URLError, OSError, HTTPException, ValueError) as exc:
            raise Unreachable(f"{method} {self.base}{path}: {getattr(exc, 'reason', None) or exc}") from None
        try:
            answer = json.loads(text)
        except ValueError:
            answer = {"detail": text.decode("utf-8", "replace")[:200]}
        if status >= 500:
            raise Unreachable(f"{method} {self.base}{path}: {status} {answer.get('detail', '')}")
        return status, answer if isinstance(answer, dict) else {"detail": str(answer)}


@dataclass
class Held:
    """What the central holds of one game, as its last answer said."""
    next: int = 0
    frames: set[int] = field(default_factory=set)
    header: str | None = None
    racks: int = 0  # the rack log row the central expects next (a central without racks: 0)

    @classmethod
    def of(cls, answer: dict) -> "Held":
        try:
            return cls(int(answer["next"]), {int(seq) for seq in answer["frames"]}, str(answer["header"]),
                       int(answer.get("racks", 0)))
        except (KeyError, TypeError, ValueError):
            raise Refused(f"the central service answered something else than a game's state: {answer}") from None


class Forwarder:
    """Follows `service` (the station's store, on a connection of its own) and pushes every game
    to `central`. ``start()`` runs it on a daemon thread, ``stop()`` ends it; ``status()`` says
    how far it is. `retry_initial_s`/`retry_max_s` as [tournament] gives them."""

    def __init__(self, service, central: Central, retry_initial_s: float = 0.5, retry_max_s: float = 10.0,
                 heartbeat_s: float = HEARTBEAT_S, say=None, url: str | None = None,
                 clock_of: Callable[[int], dict | None] | None = None) -> None:
        self.service, self.central = service, central
        self.url = url            # the station's own address, sent with each heartbeat
        self.clock_of = clock_of  # game id -> its clock as the live state has it (ClockOut), or None
        self._clock_sent: tuple | None = None  # what the last heartbeat said of the clock
        self.retry_initial_s, self.retry_max_s, self.heartbeat_s = retry_initial_s, retry_max_s, heartbeat_s
        self.say = say or (lambda msg: print(f"tilecam forward: {msg}", file=sys.stderr, flush=True))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._held: dict[str, Held] | None = None  # by uid; None: ask the central first
        self._mark: int | None = None              # the change feed's mark
        self._dirty: set[int] = set()              # local games to push
        self._newest: tuple[int, str] | None = None  # the newest game (id, uid): the heartbeat names it
        self._unreadable: set[tuple[int, int]] = set()  # frames kept as paths whose file is gone
        self._last_contact = 0.0
        self.error: str | None = None              # the last failure, until a push succeeds
        self.pushed = 0                            # entries the central took from us

    # ---- the thread
    def start(self) -> "Forwarder":
        self._thread = threading.Thread(target=self._run, name="tilecam-forward", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> bool:
        """End the thread; whether it has (it may be waiting on a request, at most TIMEOUT_S)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def status(self) -> dict:
        return {"server": self.central.base, "pending_games": len(self._dirty), "pushed": self.pushed,
                "error": self.error}

    def _run(self) -> None:
        delay = self.retry_initial_s
        while not self._stop.is_set():
            try:
                self.step()
            except ApiError as exc:  # the central's answer, or our own store (busy, unreadable): try again
                if str(exc) != self.error:  # once per distinct failure: the journal stays readable
                    self.say(f"{exc}; retrying (every {self.retry_max_s:g} s at most)")
                self.error = str(exc)
                self._held = None  # after a failure, ask the central what it holds before pushing again
                self._clock_sent = None  # ... and send the clock again
                wait = self.retry_max_s if isinstance(exc, Refused) else delay
                delay = min(delay * 2, self.retry_max_s)
                self._stop.wait(wait)
                continue
            if self.error is not None:
                self.say("the central service is reachable again; caught up")
                self.error = None
            delay = self.retry_initial_s
            self._stop.wait(POLL_S)

    # ---- one round: what the thread does between waits (tests call it too)
    def step(self) -> None:
        """Ask the central (first time, or after a failure), take the changed games from the feed,
        push each until the central holds all of it; a heartbeat when nothing was pushed for a while."""
        if self._held is None:
            self._sync()
        changes = self.service.changes_since(self._mark)
        self._mark = changes.mark
        self._dirty |= {row.id for row in self.service.games()} if changes.games is None else set(changes.games)
        refused = None
        for game_id in sorted(self._dirty):
            try:
                self._push(game_id)
            except Refused as exc:  # this game only (say, it diverged): the others still go
                refused = refused or exc
                continue
            self._dirty.discard(game_id)
        if refused is not None:
            raise refused
        if self._newest is not None:
            self._heartbeat()

    def _heartbeat(self) -> None:
        """Every heartbeat_s without other contact, and at once when the newest game's clock was
        pressed, paused or stopped (a clock is in the station's table log, which is not forwarded)."""
        game_id, uid = self._newest
        clock = self.clock_of(game_id) if self.clock_of is not None else None
        said = None if clock is None else tuple(clock.get(k) for k in CLOCK_STATE)
        if time.monotonic() - self._last_contact < self.heartbeat_s and said == self._clock_sent:
            return
        body = {"games": [uid], "game": game_id, **({"url": self.url} if self.url else {}),
                **({"clock": clock} if clock is not None else {})}
        self._expect(self.central.call("POST", "/heartbeat", body))
        self._clock_sent = said

    def _sync(self) -> None:
        if self._mark is None:  # the mark first: a change made while we read is seen next round
            self._mark = self.service.changes_since(None).mark
        _, answer = self._expect(self.central.call("GET"))
        games = answer.get("games")
        if not isinstance(games, list) or not all(isinstance(g, dict) and "uid" in g for g in games):
            raise Refused(f"the central service answered something else than a station's games: {answer}")
        self._held = {g["uid"]: Held.of(g) for g in games}
        self._dirty |= {row.id for row in self.service.games()}  # each is compared, not resent

    def _expect(self, reply: tuple[int, dict]) -> tuple[int, dict]:
        status, answer = reply
        if status >= 400:
            raise Refused(f"the central service refused ({status}): {answer.get('detail', answer)}")
        self._last_contact = time.monotonic()
        return status, answer

    def _push(self, game_id: int) -> None:
        try:
            row = self.service.game(game_id)
        except NotFound:  # a recording that found no board removes its empty game
            return
        uid = row.meta.get(STATION_UID)
        if uid is None:  # the game's id at the central, kept in our store before anything is sent
            uid = uuid.uuid4().hex
            row = self.service.set_meta(game_id, {STATION_UID: uid})
        if self._newest is None or game_id >= self._newest[0]:
            self._newest = (game_id, uid)
        held = self._held.setdefault(uid, Held())
        digest = header_digest(row.players, row.rules, row.lang, row.layout, row.meta)
        if held.header != digest:
            body = {"players": list(row.players), "rules": row.rules, "lang": row.lang, "layout": row.layout,
                    "meta": forwarded_meta(row.meta)}
            held = self._held[uid] = Held.of(self._expect(self.central.call("PUT", f"/games/{uid}", body))[1])
        entries = self.service.entries(game_id)
        if held.next > len(entries):
            raise Refused(f"the central holds {held.next} entries of game {uid}, this station {len(entries)}: "
                          "the two records have diverged")
        while held.next < len(entries):
            batch, size = [], 0
            for e in entries[held.next:held.next + BATCH_ENTRIES]:
                item = {"seq": e.seq, "entry": to_json(e.entry), "sidecar": e.sidecar}
                size += len(json.dumps(item))
                if batch and size > BATCH_BYTES:
                    break
                batch.append(item)
            status, answer = self.central.call("POST", f"/games/{uid}/entries", {"entries": batch})
            if status == 409 and "next" in answer:  # the central lacks an earlier one: resend from there
                self._rewind(held, answer["next"], uid)
                continue
            before = held.next
            held = self._held[uid] = Held.of(self._expect((status, answer))[1])
            self.pushed += max(0, held.next - before)
        for seq in sorted(s for s in self.service.frame_seqs(game_id) - held.frames if s < held.next):
            jpeg = self._jpeg(game_id, seq)
            if jpeg is None:
                continue
            status, answer = self.central.call("PUT", f"/games/{uid}/frames/{seq}", jpeg)
            if status == 409 and "next" in answer:
                raise ForwardError(f"the central holds {answer['next']} entries of game {uid}, not "
                                   f"{held.next}; asking it again")
            held = self._held[uid] = Held.of(self._expect((status, answer))[1])
        self._push_racks(game_id, uid, held)

    def _push_racks(self, game_id: int, uid: str, held: Held) -> None:
        """The game's rack log from the central's next row on, one row (and its frame) a request."""
        rows = self.service.rack_log(game_id)
        if held.racks > len(rows):
            raise Refused(f"the central holds {held.racks} rack reads of game {uid}, this station {len(rows)}: "
                          "the two records have diverged")
        while held.racks < len(rows):
            row = rows[held.racks]
            jpeg = self._jpeg(game_id, row.seq, rack=True) if row.frame else None
            body = {"seq": row.seq, "kind": row.kind, "data": row.data,
                    "jpeg": base64.b64encode(jpeg).decode("ascii") if jpeg is not None else None}
            status, answer = self.central.call("POST", f"/games/{uid}/racks", body)
            if status == 409 and "next" in answer:
                if not isinstance(answer["next"], int) or not 0 <= answer["next"] < held.racks:
                    raise Refused(f"the central service refused rack read {held.racks} of game {uid} and expects "
                                  f"{answer['next']!r}")
                held.racks = answer["next"]
                continue
            held = self._held[uid] = Held.of(self._expect((status, answer))[1])

    @staticmethod
    def _rewind(held: Held, central_next, uid: str) -> None:
        if not isinstance(central_next, int) or not 0 <= central_next < held.next:  # only back: never a loop
            raise Refused(f"the central service refused entries of game {uid} from {held.next} and expects "
                          f"{central_next!r}")
        held.next = central_next

    def _jpeg(self, game_id: int, seq: int, rack: bool = False) -> bytes | None:
        """An entry's evidence frame (a rack read's with `rack`), from the store or its file; a file
        that cannot be read is said once, and the entry itself is forwarded without it."""
        frame = self.service.rack_frame(game_id, seq) if rack else self.service.frame(game_id, seq)
        if frame.jpeg is not None:
            return frame.jpeg
        try:
            return Path(frame.path).read_bytes()
        except OSError as exc:
            key = (game_id, -1 - seq) if rack else (game_id, seq)
            if key not in self._unreadable:
                self._unreadable.add(key)
                what = "rack read" if rack else "entry"
                self.say(f"game {game_id} {what} {seq}: evidence frame {frame.path} not forwarded: {exc.strerror}")
            return None


def open_forwarder(settings, clocks, url: str) -> "tuple[Forwarder, object] | None":
    """The forwarder [tournament] asks for, and the store it follows (the caller closes it once
    the forwarder has stopped); None for a single table (no [tournament] server). It reads the store
    [store] names on a connection of its own, so its change feed names every game the recorder and
    the console write; each game's clock comes from `clocks` (the recorder's game service: it
    runs the clocks, rebuilt from the table log), and `url` is this station's own address (boot.own_url). A server
    without a token file, or a token it cannot use, is a SetupError, before any game is made."""
    from tilecam.api.bus import Bus
    from tilecam.api.service import GameService

    from .boot import SetupError, open_store

    t = settings.tournament
    if t.server is None:
        return None
    if t.token_file is None:
        raise SetupError("[tournament] server is set but not token_file: the file holding this station's "
                         "token for the central service")
    try:
        token = read_token(t.token_file)
    except ForwardError as exc:
        raise SetupError(str(exc)) from None
    store = open_store(settings.store)

    def clock_of(game_id: int) -> dict | None:
        clock = clocks.clock_now(game_id)
        return None if clock is None else clock.model_dump()
    forwarder = Forwarder(GameService(store, Bus(1)), Central(t.server, station_name(t.station), token),
                          t.retry_initial_s, t.retry_max_s, url=url, clock_of=clock_of)
    return forwarder, store
