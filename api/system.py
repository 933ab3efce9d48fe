"""The running system, built from one settings tree: source -> recorder -> store/service -> app,
plus the clock buttons and the status LED.

Three pieces, used by every command, test and bench that records:

* ``build_recorder(settings, scorekeeper, link, ...)``: the one factory of the recorder pipeline
  (locator/tracker, tile reader, stability gate, recorder), each stage configured from its
  section of ``settings``;
* ``run_frames(source, recorder, on_outcome)``: the one frame loop;
* ``Station``: what ``tilecam run`` (and ``tilecam demo``) runs in one process: it opens the
  store, the game, the source and the recorder, records on a thread, serves the API, overlays
  and MJPEG preview, reads the buttons and drives the LED, and stops it all again.
"""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tilecam.api.errors import ApiError

__all__ = ["STATION_META", "attach_game", "build_recorder", "clock_trigger", "game_to_resume", "recorder_config",
           "Recording", "run_frames", "SetupError", "Station"]

# Marks the games a station records (and may resume); a service key, kept out of the GCG export.
STATION_META = {"created_by": "tilecam run"}


class SetupError(ApiError, ValueError):
    """Something the system cannot start with (a missing model, a source that does not open);
    the message names it. The CLI prints it and exits 2."""


# ---- the recorder pipeline, each stage from its section of the settings --------------------------

def recorder_config(settings, photos: bool = False):
    # One photo per move (a folder): every frame is a press, whatever the settings say.
    cfg = settings.recorder
    return cfg.model_copy(update={"every_frame_is_a_press": True}) if photos else cfg


def build_recorder(settings, scorekeeper, link, *, reader, photos: bool = False, corners=None,
                   prewarped: bool = False, preview=None):
    """The recorder pipeline from settings: locator (or tracker), reader, stability gate, recorder,
    committing through `link` (a GameLink: the store's, or a MemoryLink)."""
    from tilecam.api.recorder import Recorder
    from tilecam.vision import build_locator

    locator = build_locator(settings, photos=photos, corners=corners, prewarped=prewarped)
    return Recorder(scorekeeper, locator, reader, link, recorder_config(settings, photos), settings.stability,
                    preview=preview)


# ---- the one frame loop -------------------------------------------------------------------------

def run_frames(source, recorder, on_outcome: Callable | None = None, *, pace: bool = False,
               stop: threading.Event | None = None) -> str:
    """Every frame of `source` (a FrameSource, or any iterable of Frames) through `recorder`, each
    outcome to ``on_outcome(frame, outcome)``.

    `pace`: play a file at its own frame rate, as a camera would deliver it (live sources are
    never paced). Returns why it ended: "ended" (the source has no more frames) or "stopped"
    (`stop` was set). A CaptureError (a camera that gave up) propagates; the source is closed
    in every case."""
    from tilecam.capture import SourceEnded

    live = bool(getattr(source, "live", False))
    start = t0 = None
    try:
        for frame in source:
            if stop is not None and stop.is_set():
                return "stopped"
            if pace and not live:
                if start is None:
                    start, t0 = time.monotonic(), frame.t
                delay = start + (frame.t - t0) - time.monotonic()
                if delay > 0 and (stop.wait(delay) if stop is not None else time.sleep(delay)):
                    return "stopped"
            outcome = recorder.process(frame)
            if on_outcome is not None:
                on_outcome(frame, outcome)
    except SourceEnded:
        pass
    finally:
        if hasattr(source, "close"):
            source.close()
    return "ended"


# ---- the game a recorder writes to --------------------------------------------------------------

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
                on_commit=None) -> Recording:
    """Open game `game_id` (its tile set, rules and players are the store's) or create one, with a
    scorekeeper caught up on its log."""
    from tilecam.api.recorder import GameLink
    from tilecam.scoring.board import LAYOUTS
    from tilecam.scoring.decode import DecodeConfig
    from tilecam.scoring.game import Game
    from tilecam.scoring.rules import get_profile
    from tilecam.scoring.scorekeeper import Scorekeeper
    from tilecam.scoring.tiles import DISTRIBUTIONS

    resumed = game_id is not None
    if resumed:
        row = service.game(game_id)
    else:
        # names, or (name, nickname) pairs
        named = [(p, None) if isinstance(p, str) else tuple(p) for p in (players or ("Player 1", "Player 2"))]
        row = service.create_game(named, rules, lang, meta=meta)
    keeper = Scorekeeper(Game(get_profile(row.rules), DISTRIBUTIONS[row.lang], LAYOUTS[row.layout], len(row.players)),
                         lexicon, decode or DecodeConfig())
    link = GameLink(service, row.id, jpeg_quality, on_commit=on_commit)
    if resumed:
        keeper.resume(link.entries())
    return Recording(row.id, keeper, link, resumed, row.lang)


def game_to_resume(service) -> int | None:
    """The latest game a station was recording that has neither ended nor been closed: after a
    crash or a power cut the station picks it up again."""
    for row in sorted(service.games(), key=lambda r: r.id, reverse=True):
        if all(row.meta.get(k) == v for k, v in STATION_META.items()):
            view = service.load(row.id)
            if not view.closed and not view.game_at().state.ended:
                return row.id
    return None


def clock_trigger(settings, service, game_id: int, on_trigger: Callable):
    """The game clock (settings.clock) in the trigger path: a press runs the clock first, and the
    recorder (`on_trigger`) hears only the turn ends the clock accepted (api.triggers.connect).
    None: no clock (disabled, or rules without a time control)."""
    cfg = settings.clock
    if not cfg.enabled:
        return None
    if not service.has_clock(game_id):  # the clock lives in this process: a restart starts afresh
        try:
            service.start_clock(game_id, cfg.minutes_per_player)
        except ValueError as exc:  # rules without a time control, a game already over
            _say(f"no game clock: {exc}")
            return None
    from tilecam.api.triggers import connect
    return connect(on_trigger, **service.clock_handlers(game_id))


# ---- the station --------------------------------------------------------------------------------

def _say(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


class Station:
    """One process: camera (or a file standing in for it), recorder, store, API/overlay/preview,
    buttons and LED, all from one ``Settings``.

    ``open()`` builds everything (raising SetupError on what cannot start), ``start()`` records on
    a thread and starts the buttons and the LED, ``serve()`` runs the HTTP server until a signal,
    ``close()`` stops it all. ``serve()`` alone does all four. ``tilecam record`` is a station
    without the server: ``open()``, then ``record_here()`` on its own thread.

    What `record` adds to a camera station: a word list (``lexicon``), an enrolled ``tileset``,
    fixed ``corners`` or ``prewarped`` frames, ``photos`` (one frame per move; default: a folder),
    ``on_commit(seqs)`` after each commit, no game ``clock`` unless presses come in, an open
    game ``service`` (the caller's store), and games not marked as the station's own (``own``)."""

    def __init__(self, settings, source: str, *, game_id: int | None = None, new_game: bool = False,
                 players=None, rules: str = "naspa", lang: str = "en", pace: bool = True, model=None,
                 pin_factory=None, on_outcome: Callable | None = None, table: int | None = None,
                 loop: bool = False, wrap_source: Callable | None = None,
                 on_game_over: Callable | None = None, on_new_game: Callable | None = None,
                 lexicon=None, tileset=None, corners=None, prewarped: bool = False, photos: bool | None = None,
                 on_commit: Callable | None = None, clock: bool = True, service=None, own: bool = True,
                 quiet: bool = False) -> None:
        self.settings = settings
        self.source_uri = source
        self.game_id, self.new_game = game_id, new_game
        self.players, self.rules, self.lang = players, rules, lang
        self.pace = pace
        self.model = model               # the tile model, when not the one settings.read names
        self.pin_factory = pin_factory   # gpiozero's, for tests (MockFactory); None: the board's pins
        self.on_outcome = on_outcome
        # A new game names it: /overlay/table/N follows the station ([tournament] table unless given).
        self.table = table if table is not None else settings.tournament.table
        # loop: when the source ends, the game is finished and a new game at the same table records
        # the source again from its start (the demo, until Ctrl-C); on_game_over(station) and
        # on_new_game(station) are called on the recorder's thread around that.
        self.loop = loop
        self.wrap_source = wrap_source   # source -> source (the demo stretches the pauses between turns)
        self.on_game_over, self.on_new_game = on_game_over, on_new_game
        self.lexicon, self.tileset, self.corners, self.prewarped = lexicon, tileset, corners, prewarped
        self.photos = Path(source).is_dir() if photos is None else photos
        self.on_commit, self.use_clock, self.own = on_commit, clock, own
        self.quiet = quiet             # record's progress bar says it all: no line per commit
        self._given_service = service
        self._reader = None
        self.stop_event = threading.Event()
        self.store = self.service = self.preview = self.app = None
        self.recording: Recording | None = None
        self.recorder = self.source = None
        self.clock = None
        self.buttons = self.led = None
        self.ended: str | None = None     # why the frame loop ended: "ended", "stopped", "failed: ..."
        self._decision: str | None = None  # "unclear" while the last decision could not be committed
        self._lost_said: str | None = None  # the recorder's lost-game alert as last said on the console
        self._thread: threading.Thread | None = None
        self.forwarder = None              # to the tournament's central service ([tournament] server)
        self._forward_store = None
        self.station_name: str | None = None  # its name at the central service

    # -- building --------------------------------------------------------------------------------
    def open(self) -> "Station":
        from tilecam.api.bus import Bus, PreviewHub
        from tilecam.api.service import GameService
        from tilecam.api.store import StoreError, open_store, store_file, store_name
        from tilecam.vision import SetupError as VisionSetupError, build_reader

        if self._given_service is not None:  # the caller's store, which the caller closes
            self.service = self._given_service
        else:
            try:  # sqlite creates no folders, and a fresh machine has no ~/.cache/tilecam
                if (file := store_file(self.settings.store)) is not None:
                    file.parent.mkdir(parents=True, exist_ok=True)
                self.store = open_store(self.settings.store)
            except OSError as exc:
                raise SetupError(f"cannot create the folder of {store_name(self.settings.store)}: "
                                 f"{exc.strerror}") from None
            except StoreError as exc:
                raise SetupError(str(exc)) from None
            self.service = GameService(self.store, Bus(self.settings.live.queue_size))
        self.preview = PreviewHub(self.settings.preview.jpeg_quality)
        game_id = self.game_id if self.game_id is not None else \
            None if self.new_game else game_to_resume(self.service)
        try:
            reader_lang = self.service.game(game_id).lang if game_id is not None else self.lang
        except LookupError as exc:
            raise SetupError(str(exc)) from None
        try:
            self._reader = build_reader(self.settings, reader_lang, model=self.model, tileset=self.tileset)
        except VisionSetupError as exc:
            raise SetupError(str(exc)) from None
        self.forwarder = self._forwarder()  # a token file it cannot use stops the start, before any game
        self._open_source()  # before the game: a source that does not open leaves no empty game behind
        self._attach(game_id)
        return self

    def _forwarder(self):
        """The forwarder to the tournament's central service when [tournament] server is set
        (api/forwarder.py), on a store connection of its own: the change feed then names every
        game the recorder and the console write. None for a single table."""
        t = self.settings.tournament
        if t.server is None or self._given_service is not None:
            return None
        from tilecam.api.bus import Bus
        from tilecam.api.forwarder import Central, ForwardError, Forwarder, read_token, station_name
        from tilecam.api.service import GameService
        from tilecam.api.store import StoreError, open_store

        if t.token_file is None:
            raise SetupError("[tournament] server is set but not token_file: the file holding this station's "
                             "token for the central service")
        try:
            token = read_token(t.token_file)
            self._forward_store = open_store(self.settings.store)
        except (ForwardError, StoreError) as exc:
            raise SetupError(str(exc)) from None
        self.station_name = station_name(t.station)
        central = Central(t.server, self.station_name, token)

        def clock_of(game_id: int) -> dict | None:  # the recorder's clocks are in this service's memory
            clock = self.service.clock_now(game_id)
            return None if clock is None else clock.model_dump()
        return Forwarder(GameService(self._forward_store, Bus(1)), central, t.retry_initial_s, t.retry_max_s,
                         url=self.own_url(), clock_of=clock_of)

    def own_url(self) -> str:
        """This station's address as the director's laptop reaches it: [tournament] url, else from
        [server] (the machine's host name when it listens on every address)."""
        import socket

        host, port = self.settings.server.host, self.settings.server.port
        if self.settings.tournament.url:
            return self.settings.tournament.url.rstrip("/")
        host = socket.gethostname() if host in ("0.0.0.0", "::") else host
        return f"http://{f'[{host}]' if ':' in host else host}:{port}"

    def _open_source(self) -> None:
        from tilecam.capture import CaptureError, open_source
        try:
            self.source = open_source(self.source_uri, self.settings.capture, on_status=self._camera_status)
        except (CaptureError, OSError, ValueError) as exc:
            raise SetupError(f"cannot open {self.source_uri}: {exc}") from None
        if self.wrap_source is not None:
            self.source = self.wrap_source(self.source)

    def _attach(self, game_id: int | None) -> None:
        """The game (`game_id`, or a new one at the station's table), its recorder and its clock."""
        rcfg = recorder_config(self.settings)
        meta = {**(STATION_META if self.own else {}), **({"table": str(self.table)} if self.table is not None else {})}
        try:
            self.recording = attach_game(self.service, game_id, players=self.players, rules=self.rules,
                                         lang=self.lang, lexicon=self.lexicon, decode=self.settings.decode,
                                         meta=meta, jpeg_quality=rcfg.evidence_jpeg_quality,
                                         on_commit=self.on_commit)
        except ValueError as exc:  # unknown rules or tile set, players the rules do not allow
            raise SetupError(str(exc)) from None
        if self.table is not None and self.recording.resumed:  # as "table" on game creation
            self.service.set_meta(self.recording.game_id, {"table": str(self.table)})
        self.recorder = build_recorder(self.settings, self.recording.scorekeeper, self.recording.link,
                                       reader=self._reader, photos=self.photos, corners=self.corners,
                                       prewarped=self.prewarped, preview=self.preview)
        self.recorder.camera_status = self.source.status.state
        self.clock = self._clock()

    def _clock(self):
        """The game clock in the trigger path (`clock_trigger`); None: no clock."""
        if not self.use_clock:
            return None
        return clock_trigger(self.settings, self.service, self.recording.game_id, self.recorder.on_trigger)

    def create_app(self):
        from tilecam.api.app import create_app
        self.app = create_app(self.settings, service=self.service, preview=self.preview)
        self.app.state.status = self.status
        self.app.state.on_trigger = self.on_trigger
        return self.app

    # -- running ---------------------------------------------------------------------------------
    def on_trigger(self, trigger) -> str:
        """Every press (GPIO buttons, HTTP, keyboard) comes through here: the clock first, then the
        recorder, which decides what it means for the game."""
        return (self.clock or self.recorder.on_trigger)(trigger)

    def status(self) -> dict:
        forward = {"forward": self.forwarder.status()} if self.forwarder is not None else {}
        return {**self.recorder.status(), "game_id": self.recording.game_id, "source": self.ended or "running",
                **forward}

    def _camera_status(self, st) -> None:
        if self.recorder is not None:
            self.recorder.camera_status = st.state
        self._show()

    def _show(self, frame_state: str | None = None) -> None:
        if self.led is not None:
            self.led.show(self.recorder.camera_status, frame_state, self._decision, self.ended is None,
                          self.recorder.lost is not None)

    def _outcome(self, frame, outcome) -> None:
        obs = outcome.observation
        if obs is not None:  # an unclear read keeps the LED blinking until a later decision commits
            self._decision = "unclear" if obs.status == "unclear" else None if obs.entries else self._decision
            if obs.entries and not self.quiet:
                _say(f"frame {frame.index}: {obs.status}: {obs.detail}")
            if obs.entries and self.recording.scorekeeper.game.state.ended:
                self._between_games()
        lost = self.recorder.lost
        if lost != self._lost_said and not self.quiet:   # said at once, and once (record says it itself)
            _say(f"frame {frame.index}: " + (f"the camera has lost the game: {lost}" if lost else
                                             "the camera follows the game again"))
        self._lost_said = lost
        self._show(outcome.state)
        if self.on_outcome is not None:
            self.on_outcome(frame, outcome)

    def _between_games(self) -> None:
        """The game is over: the Pi camera goes back to automatic exposure and white balance (it
        settled and locked them for the game when it opened, capture.picam); the next game's
        start locks them again."""
        from tilecam.capture.picam import picamera_of
        camera = picamera_of(self.source)
        if camera is not None:
            camera.unlock()

    def _record(self) -> None:
        from tilecam.capture import CaptureError
        try:
            self.ended = run_frames(self.source, self.recorder, self._outcome, pace=self.pace, stop=self.stop_event)
        except CaptureError as exc:
            self.ended = f"failed: {exc}"
            _say(f"capture failed: {exc}")
        except Exception as exc:  # the recorder's thread must say why it stopped, not die silently
            self.ended = f"failed: {exc!r}"
            raise
        finally:
            self._show()
        if self.ended == "ended":
            self.recorder.finish()  # a player out: the rack points
            if not self.quiet:
                _say(f"{self.source_uri} has no more frames; game {self.recording.game_id} "
                     f"holds {len(self.recording.scorekeeper.entries)} entries")
                turns = self.service.live(self.recording.game_id).turns
                if turns:  # the turn order is the camera's guess: said where the operator looks
                    _say(f"game {self.recording.game_id}: {turns}")
            self._stop_clock()
            if self.on_game_over is not None:
                self.on_game_over(self)

    def _stop_clock(self) -> None:
        """A game that is over stops its clock (overtime, if any, goes into the record)."""
        gid = self.recording.game_id
        if self.clock is not None and self.service.has_clock(gid) and self.recording.scorekeeper.game.state.ended:
            try:
                self.service.clock_finish(gid)
            except Exception as exc:  # a clock that never started, a game the operator closed
                _say(f"game {gid}: clock not finished: {exc}")

    def _record_loop(self) -> None:
        """Record the source; with `loop`, again into a new game at the same table each time it
        ends, until stopped."""
        self._record()
        while self.loop and self.ended == "ended" and not self.stop_event.is_set():
            self._open_source()
            self._attach(None)
            self.ended = None
            if self.on_new_game is not None:
                self.on_new_game(self)
            self._record()

    def start(self) -> "Station":
        """Buttons, LED, and the frame loop on its own thread."""
        self._start_hardware()
        self._thread = threading.Thread(target=self._record_loop, name="tilecam-recorder", daemon=True)
        self._thread.start()
        if self.forwarder is not None:
            self.forwarder.start()
        return self

    def record_here(self) -> str | None:
        """Buttons and LED, and the frame loop on this thread (`tilecam record`: its errors and
        Ctrl-C reach the caller); returns why the loop ended."""
        self._start_hardware()
        self._record_loop()
        return self.ended

    def _start_hardware(self) -> None:
        buttons, led = self.settings.buttons, self.settings.leds
        if buttons.enabled:
            from tilecam.hardware.buttons import ClockButtons
            self.buttons = ClockButtons(buttons, self.on_trigger, pin_factory=self.pin_factory)
        if led.enabled:
            from tilecam.hardware.leds import StatusLed
            self.led = StatusLed.from_config(led, pin_factory=self.pin_factory)

    def wait(self, timeout: float | None = None) -> bool:
        """Until the frame loop ends; whether it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def close(self) -> None:
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        # What the forwarder had not pushed yet goes at the next start. A thread still waiting on
        # the network keeps its store open until the process ends, rather than failing under it.
        stopped = self.forwarder.stop() if self.forwarder is not None else True
        if self._forward_store is not None and stopped:
            self._forward_store.close()
        for part in (self.buttons, self.led):
            if part is not None:
                part.close()
        if self.source is not None:
            self.source.close()
        if self.store is not None:
            self.store.close()

    def urls(self) -> list[tuple[str, str]]:
        host, port = self.settings.server.host, self.settings.server.port
        base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
        gid = self.recording.game_id
        overlay = [("overlay", f"{base}/overlay/table/{self.table}"), ("table (JSON)", f"{base}/api/tables/{self.table}")] \
            if self.table is not None else [("overlay", f"{base}/overlay/{gid}")]
        return [*overlay, ("camera preview", f"{base}/api/preview.mjpg"),
                ("operator console", f"{base}/operator"), ("recorder status", f"{base}/api/status"),
                ("API docs", f"{base}/docs"), *self.game_urls()]

    def game_urls(self) -> list[tuple[str, str]]:
        """The URLs of the game being recorded (they change with each game; a table's do not)."""
        host, port = self.settings.server.host, self.settings.server.port
        base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}"
        gid = self.recording.game_id
        return [("moves (JSON)", f"{base}/api/games/{gid}/moves"), ("GCG", f"{base}/api/games/{gid}.gcg"),
                ("recount", f"{base}/recount/{gid}"), ("replay", f"{base}/replay/{gid}")]

    def serve(self) -> int:
        """Record and serve until SIGINT/SIGTERM; exit code 1 when the camera gave up (systemd
        restarts the unit), else 0."""
        import uvicorn

        from tilecam.api.app import close_streams

        app = self.app or self.create_app()
        station = self

        class Server(uvicorn.Server):
            def handle_exit(self, sig, frame) -> None:
                station.stop_event.set()
                close_streams(app)  # open SSE/MJPEG clients would otherwise hold the shutdown up
                super().handle_exit(sig, frame)

        config = uvicorn.Config(app, host=self.settings.server.host, port=self.settings.server.port,
                                log_level="warning", timeout_graceful_shutdown=self.settings.server.graceful_shutdown_s)
        server = Server(config)
        self.start()

        def watch() -> None:  # a live camera that gave up ends the process, so that systemd restarts it
            self._thread.join()
            if self.ended and self.ended.startswith("failed"):
                server.should_exit = True
        threading.Thread(target=watch, name="tilecam-watch", daemon=True).start()
        try:
            server.run()
        except KeyboardInterrupt:  # uvicorn re-raises Ctrl-C after its graceful shutdown
            pass
        finally:
            self.close()
        return 1 if self.ended and self.ended.startswith("failed") else 0
