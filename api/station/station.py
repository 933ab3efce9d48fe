"""The station: one process that records a table's game, built from one ``Settings`` and one
``Job`` (what this run records): camera (or a file standing in for it) -> recorder -> store and
game service -> API, overlays and MJPEG preview; clock buttons and the status LED; the rack cameras
(one optional thread per player); the forwarder to a tournament's central service.

This is the composition root: it builds the parts and hands each the others it needs. The jobs it
runs are each a module of their own: the frame thread (frame_thread.py), the LED and the console's
lines (status.py), the Pi cameras' exposure between games (exposure.py), the rack cameras
(racks.py: open_rack_cameras), the forwarder (forwarder.py: open_forwarder), the game and its clock
(game.py: attach_game, clock_trigger, stop_clock).

``tilecam run`` and ``tilecam demo`` serve it (``Station.serve``); ``tilecam record`` is a station
without the server (``Station.record_here``).
"""
from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tilecam.api.service import RacksOnAir
from tilecam.scoring import learned

from .boot import SetupError, app_server, base_url, open_store, own_url, serve_until_signal
from .exposure import ExposureLock
from .frame_thread import FrameThread
from .frames import build_recorder, recorder_config, run_frames
from .game import STATION_META, Recording, attach_game, clock_trigger, game_to_resume, stop_clock
from .sinks import PreviewSink
from .status import StatusShow, open_led
from .triggers import from_http

__all__ = ["Hooks", "Job", "SetupError", "Station"]


def _say(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Job:
    """What one station run records, beside the settings: the source, the game (``game_id``, else
    the station's unfinished one unless ``new_game``, else a new one with ``players``, ``rules`` and
    ``lang``) at ``table`` (None: [tournament] table).

    ``pace``: play a file at its own frame rate; ``loop``: when the source ends, a new game at the
    same table records it again (the demo). What `record` adds to a camera station: a word list
    (``lexicon``), an enrolled ``tileset``, the tile ``model``, fixed ``corners`` or ``prewarped``
    frames, ``photos`` (one frame per move; None: a folder is), no game ``clock`` unless presses come
    in, games not marked as the station's own (``own``), and ``quiet`` (its progress bar says it all).

    ``racks``: the rack source of each player who has one, player (from 1) -> source; None: [racks]
    sources."""

    source: str
    game_id: int | None = None
    new_game: bool = False
    players: list | None = None
    rules: str = "naspa"
    lang: str = "en"
    table: int | None = None
    pace: bool = True
    loop: bool = False
    model: str | Path | None = None
    lexicon: object = None
    tileset: object = None
    corners: object = None
    prewarped: bool = False
    photos: bool | None = None
    clock: bool = True
    own: bool = True
    quiet: bool = False
    racks: dict[int, str] | None = None


@dataclass
class Hooks:
    """Where a caller follows the station: ``on_outcome(frame, outcome)`` after each frame,
    ``on_commit(seqs)`` after each commit, ``on_game_over(station)`` and ``on_new_game(station)``
    around a looped source's next game (on the recorder's thread), ``wrap_source(source) -> source``
    (the demo stretches the pauses between turns), ``on_notice(text)`` for what the station says
    beside the frames (a rack camera dropped or ended; default: stderr)."""

    on_outcome: Callable | None = None
    on_commit: Callable | None = None
    on_game_over: Callable | None = None
    on_new_game: Callable | None = None
    wrap_source: Callable | None = None
    on_notice: Callable | None = None


class Station:
    """One process: camera (or a file standing in for it), recorder, store, API/overlay/preview,
    buttons and LED, all from one ``Settings`` and one ``Job``.

    ``open()`` builds everything (raising SetupError on what cannot start), ``start()`` records on
    a thread and starts the buttons and the LED, ``serve()`` runs the HTTP server until a signal,
    ``close()`` stops it all. ``serve()`` alone does all four. ``tilecam record`` is a station
    without the server: ``open()``, then ``record_here()`` on its own thread.

    ``service``: an open game service (the caller's store, which the caller closes) instead of the
    store the settings name; ``pin_factory``: gpiozero's, for tests (MockFactory; None: the
    board's pins); ``rack_watch(player) -> watch``: each rack camera's RackWatch (tests: fakes; None:
    vision's, racks.rack_watch)."""

    def __init__(self, settings, job: Job, hooks: Hooks | None = None, *, service=None,
                 pin_factory=None, rack_watch: Callable | None = None) -> None:
        self.settings = settings
        # who sees which rack and when a rack tile counts (RackTrust): built once, for the rack
        # cameras, the recorder, the resume and the app
        self.racks_on_air = RacksOnAir.from_settings(settings)
        self.job = job
        self.hooks = hooks or Hooks()
        self.source_uri = job.source
        self.pin_factory = pin_factory
        # A new game names it: /overlay/table/N follows the station ([tournament] table unless given).
        self.table = job.table if job.table is not None else settings.tournament.table
        self.photos = Path(job.source).is_dir() if job.photos is None else job.photos
        self._given_service = service
        self._reader = None
        self._rack_watch = rack_watch
        self._lang = job.lang              # the tile set the readers read (a resumed game's own)
        self.rack_sources = dict(job.racks if job.racks is not None else settings.racks.sources)
        self.racks = None                  # racks.RackCameras, when any player has a rack source
        self._early: list[str] = []        # notices said before the recorder was built
        self.stop_event = threading.Event()
        self.store = self.service = self.preview = self.app = None
        self.recording: Recording | None = None
        self.recorder = self.source = None
        self.clock = None
        self.buttons = None
        self.shown = StatusShow(quiet=job.quiet)  # the LED (once started) and the console's lines
        self.exposure = ExposureLock(self._cameras)
        self.frame_thread = FrameThread(self._play, source_ended=self._source_ended, next_game=self._next_game,
                                        after=self._show, stop=self.stop_event)
        self.forwarder = None              # to the tournament's central service ([tournament] server)
        self._forward_store = None
        self.station_name: str | None = None  # its name at the central service

    @property
    def ended(self) -> str | None:
        """Why the frame loop ended: None while it runs, "ended", "stopped", "failed: ..."."""
        return self.frame_thread.ended

    @property
    def led(self):
        """The status LED (hardware.leds.StatusLed) once started, when [leds] wires one."""
        return self.shown.led

    # -- building --------------------------------------------------------------------------------
    def open(self) -> "Station":
        from tilecam.api.bus import Bus, PreviewHub
        from tilecam.api.service import GameService
        from tilecam.vision import SetupError as VisionSetupError, build_reader, reader_warnings

        job = self.job
        if self._given_service is not None:  # the caller's store, which the caller closes
            self.service = self._given_service
        else:
            self.store = open_store(self.settings.store)
            self.service = GameService(self.store, Bus(self.settings.live.queue_size))
        self.preview = PreviewHub(self.settings.preview.jpeg_quality)
        game_id = job.game_id if job.game_id is not None else \
            None if job.new_game else game_to_resume(self.service)
        try:
            reader_lang = self._lang = self.service.game(game_id).lang if game_id is not None else job.lang
        except LookupError as exc:
            raise SetupError(str(exc)) from None
        try:
            self._reader = build_reader(self.settings, reader_lang, model=job.model, tileset=job.tileset)
        except VisionSetupError as exc:
            raise SetupError(str(exc)) from None
        self._early.extend(reader_warnings(self._reader))  # on the console's notices too (stderr has said it)
        self._open_forwarder()  # a token file it cannot use stops the start, before any game
        self._open_source()  # before the game: a source that does not open leaves no empty game behind
        self._open_racks(game_id)
        self._attach(game_id)
        return self

    def _open_racks(self, game_id: int | None) -> None:
        """The rack cameras (racks.open_rack_cameras), checked against the game's players and the
        board's camera, before the game is created."""
        if not self.rack_sources:
            return
        from .racks import open_rack_cameras, rack_watch

        players = len(self.service.game(game_id).players) if game_id is not None else len(self.job.players or (1, 2))
        make = self._rack_watch or (lambda player: rack_watch(self.settings, self._lang, self._reader))
        self.racks = open_rack_cameras(self.settings, self.rack_sources, make, board=self.source_uri,
                                       players=players, on_rack=self._rack, say=self._notice, stop=self.stop_event)

    def _rack(self, seen, frame) -> bool:
        """A rack camera's settled rack, to the game being recorded (its recorder: taken under the
        set's counts, judged by the station's RackTrust, stored, then to the scorekeeper). Returns
        whether it waits for the operator (the recorder's one decision, which the camera counts)."""
        return self.recorder.rack_seen(seen, frame, trust=self.racks_on_air.trust).review

    def _notice(self, text: str) -> None:
        """What the station says beside the frames: on the console's notices and to the caller."""
        if self.recorder is not None:
            self.recorder.notice(text)
        else:
            self._early.append(text)
        (self.hooks.on_notice or _say)(text)

    def _open_forwarder(self) -> None:
        """The forwarder to the tournament's central service when [tournament] server is set and
        the station opened its own store (forwarder.open_forwarder); none for a single table."""
        if self._given_service is None:
            from .forwarder import open_forwarder
            opened = open_forwarder(self.settings, self.service, self.own_url())
            if opened is not None:
                self.forwarder, self._forward_store = opened
                self.station_name = self.forwarder.central.station

    def own_url(self) -> str:
        """This station's address as the director's laptop reaches it (boot.own_url)."""
        return own_url(self.settings)

    def _open_source(self) -> None:
        from tilecam.capture import CaptureError, open_source
        try:
            self.source = open_source(self.source_uri, self.settings.capture, on_status=self._camera_status)
        except (CaptureError, OSError, ValueError) as exc:
            raise SetupError(f"cannot open {self.source_uri}: {exc}") from None
        if self.hooks.wrap_source is not None:
            self.source = self.hooks.wrap_source(self.source)

    def _attach(self, game_id: int | None, carried: frozenset[str] = frozenset()) -> None:
        """The game (`game_id`, or a new one at the station's table), its recorder and its clock;
        `carried`: the tiles this station's reader learned at the table in an earlier game."""
        job, rcfg = self.job, recorder_config(self.settings)
        meta = {**(STATION_META if job.own else {}), **({"table": str(self.table)} if self.table is not None else {})}
        try:
            self.recording = attach_game(self.service, game_id, players=job.players, rules=job.rules,
                                         lang=job.lang, lexicon=job.lexicon, decode=self.settings.decode,
                                         meta=meta, jpeg_quality=rcfg.evidence_jpeg_quality,
                                         on_commit=self.hooks.on_commit,
                                         rack_trust=self.racks_on_air.trust, learned=carried)
        except ValueError as exc:  # unknown rules or tile set, players the rules do not allow
            raise SetupError(str(exc)) from None
        if self.table is not None and self.recording.resumed:  # as "table" on game creation
            self.service.set_meta(self.recording.game_id, {"table": str(self.table)})
        self.recorder = build_recorder(self.settings, self.recording.scorekeeper, self.recording.link,
                                       reader=self._reader, photos=self.photos, corners=job.corners,
                                       prewarped=job.prewarped, preview=PreviewSink(self.preview))
        self.recorder.camera_status = self.source.status.state
        self.exposure.new_game()
        for text in self._early:
            self.recorder.notice(text)
        self._early.clear()
        self.clock = self._clock()

    def _clock(self):
        """The game clock in the trigger path (`clock_trigger`); None: no clock."""
        if not self.job.clock:
            return None
        return clock_trigger(self.settings, self.service, self.recording.game_id, self.recorder.on_trigger)

    def create_app(self):
        from tilecam.api.app import create_app
        self.app = create_app(self.settings, service=self.service, preview=self.preview,
                              racks_on_air=self.racks_on_air)
        self.app.state.status = self.status
        self.app.state.on_trigger = from_http(self.on_trigger)  # the web hands presses over as JSON
        return self.app

    # -- running ---------------------------------------------------------------------------------
    def on_trigger(self, trigger) -> str:
        """Every press (GPIO buttons, HTTP, keyboard) comes through here: the clock first, then the
        recorder, which decides what it means for the game."""
        return (self.clock or self.recorder.on_trigger)(trigger)

    def status(self) -> dict:
        forward = {"forward": self.forwarder.status()} if self.forwarder is not None else {}
        racks = {"racks": self.racks.status()} if self.racks else {}
        return {**self.recorder.status(), "game_id": self.recording.game_id, "source": self.ended or "running",
                **forward, **racks}

    def _camera_status(self, st) -> None:
        if self.recorder is not None:
            self.recorder.camera_status = st.state
        self._show()

    def _show(self) -> None:
        if self.recorder is not None:
            self.shown.show(self.recorder, None, self.ended is None)

    def _cameras(self) -> list:
        """The board's source and the rack cameras' (None for one not there), for their exposure."""
        return [self.source, *(cam.source for cam in (self.racks.cameras if self.racks else ()))]

    def _outcome(self, frame, outcome) -> None:
        # over by the rules at a commit, or a director's close the recorder followed
        self.exposure.follow(self.recording.scorekeeper.over)
        self.shown.frame(frame, outcome, self.recorder, self.ended is None)
        if self.hooks.on_outcome is not None:
            self.hooks.on_outcome(frame, outcome)

    def _play(self) -> str:
        """The game's frames through its recorder (frame_thread.FrameThread runs them)."""
        from .racks import InStep
        recorder = self.recorder if self.job.pace or not self.racks else InStep(self.recorder, self.racks)
        return run_frames(self.source, recorder, self._outcome, pace=self.job.pace, stop=self.stop_event)

    def _source_ended(self) -> None:
        """The source has no more frames: the rack files read to their end first (their racks belong
        to this game), the recorder finished (a player out: the rack points), the clock stopped."""
        if self.racks:
            self.racks.drain()
        self.recorder.finish()
        if not self.job.quiet:
            _say(f"{self.source_uri} has no more frames; game {self.recording.game_id} "
                 f"holds {len(self.recording.scorekeeper.entries)} entries")
            turns = self.service.live(self.recording.game_id).turns
            if turns:  # the turn order is the camera's guess: said where the operator looks
                _say(f"game {self.recording.game_id}: {turns}")
        if self.clock is not None:
            stop_clock(self.service, self.recording)
        if self.hooks.on_game_over is not None:
            self.hooks.on_game_over(self)

    def _next_game(self) -> bool:
        """With `loop`, the source again into a new game at the same table (the demo)."""
        if not self.job.loop:
            return False
        self._open_source()
        # the next game at this table is read by the same reader, which keeps what it learned:
        # so are the tiles learned here so far (scoring.trust), given to the new game's meta
        done = self.recording   # as the store holds it: a confirmation after the last frame counts
        self._attach(None, carried=learned(done.link.entries(), done.scorekeeper.given))
        if self.hooks.on_new_game is not None:
            self.hooks.on_new_game(self)
        return True

    def start(self) -> "Station":
        """Buttons, LED, the rack cameras, and the frame thread."""
        self._start_hardware()
        if self.racks:
            self.racks.start(self.job.pace)
        self.frame_thread.start()
        if self.forwarder is not None:
            self.forwarder.start()
        return self

    def record_here(self) -> str | None:
        """Buttons and LED, and the frame loop on this thread (`tilecam record`: its errors and
        Ctrl-C reach the caller); the rack cameras on threads of their own; returns why the loop ended."""
        self._start_hardware()
        if self.racks:
            self.racks.start(self.job.pace)
        return self.frame_thread.run()

    def _start_hardware(self) -> None:
        if self.settings.buttons.enabled:
            from tilecam.hardware.buttons import ClockButtons
            self.buttons = ClockButtons(self.settings.buttons, self.on_trigger, pin_factory=self.pin_factory)
        self.shown.led = open_led(self.settings.leds, self.pin_factory)

    def wait(self, timeout: float | None = None) -> bool:
        """Until the frame loop ends; whether it has."""
        return self.frame_thread.wait(timeout)

    def close(self) -> None:
        self.stop_event.set()
        self.frame_thread.wait(timeout=10)
        if self.racks:
            self.racks.stop()
        # What the forwarder had not pushed yet goes at the next start. A thread still waiting on
        # the network keeps its store open until the process ends, rather than failing under it.
        stopped = self.forwarder.stop() if self.forwarder is not None else True
        if self._forward_store is not None and stopped:
            self._forward_store.close()
        if self.buttons is not None:
            self.buttons.close()
        self.shown.close()
        if self.source is not None:
            self.source.close()
        if self.store is not None:
            self.store.close()

    def urls(self) -> list[tuple[str, str]]:
        base = base_url(self.settings.server)
        gid = self.recording.game_id
        overlay = [("overlay", f"{base}/overlay/table/{self.table}"), ("table (JSON)", f"{base}/api/tables/{self.table}")] \
            if self.table is not None else [("overlay", f"{base}/overlay/{gid}")]
        return [*overlay, ("camera preview", f"{base}/api/preview.mjpg"),
                ("operator console", f"{base}/operator"), ("recorder status", f"{base}/api/status"),
                ("API docs", f"{base}/docs"), *self.game_urls()]

    def game_urls(self) -> list[tuple[str, str]]:
        """The URLs of the game being recorded (they change with each game; a table's do not)."""
        base = base_url(self.settings.server)
        gid = self.recording.game_id
        return [("moves (JSON)", f"{base}/api/games/{gid}/moves"), ("GCG", f"{base}/api/games/{gid}.gcg"),
                ("recount", f"{base}/recount/{gid}"), ("replay", f"{base}/replay/{gid}")]

    def serve(self) -> int:
        """Record and serve until SIGINT/SIGTERM; exit code 1 when the camera gave up (systemd
        restarts the unit), else 0."""
        server = app_server(self.app or self.create_app(), self.settings.server, on_exit=self.stop_event.set)
        self.start()

        def watch() -> None:  # a live camera that gave up ends the process, so that systemd restarts it
            self.frame_thread.wait()
            if self.frame_thread.failed:
                server.should_exit = True
        threading.Thread(target=watch, name="tilecam-watch", daemon=True).start()
        try:
            serve_until_signal(server)
        finally:
            self.close()
        return 1 if self.frame_thread.failed else 0
