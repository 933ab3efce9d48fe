"""The rack cameras (docs/racks.md): one thread per player's rack source, beside the board's frame
loop, each at its own pace and on its own clock.

    rack_watch(settings, lang, table)    vision's RackWatch for one rack camera: the one place it is built
    seen_of(player, view, frame)         a settled RackView -> scoring's RackSeen
    RackCamera                           one source on its own thread: frames -> watch -> on_rack
    RackCameras                          every player's: opened with the station, started, stopped, said
    open_rack_cameras(settings, sources, ...)   checked against the game and the board camera, opened
    InStep(recorder, racks)              an unpaced board file waits for the rack files (tilecam record)

A settled rack goes to ``on_rack(seen, frame)`` (the station hands it to the recorder, which judges
it by the station's RackTrust, keeps it through the link and gives it to the scorekeeper under the
board's lock, and answers whether it waits for review: the camera counts that answer, and judges
nothing itself). A rack camera that
cannot open, drops, fails or ends is said at once through ``say`` (the console's notices and stderr)
and kept in ``status()``; the board records on.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from tilecam.capture.frame import Frame
from tilecam.scoring import RackSeen

from .boot import SetupError
from .frames import run_frames

__all__ = ["InStep", "RackCamera", "RackCameras", "open_rack_cameras", "rack_capture", "rack_watch", "seen_of"]

log = logging.getLogger(__name__)


def rack_watch(settings, lang: str, table_reader):
    """vision's RackWatch for one rack camera, its reader (vision.build_rack_reader, [rack_read])
    on the table's reader: the board's models, tile set and calibration as they are at each read, so
    what the table learns reads the racks too. The one place a rack reader is built."""
    from tilecam.vision import RackWatch, build_rack_reader
    return RackWatch(build_rack_reader(settings, lang, table=table_reader), settle_s=settings.racks.settle_s)


def seen_of(player: int, view, frame: Frame):
    """A settled rack (vision's RackView: tiles left to right, a letter or None where a hand hides
    it, each with its certainty and the reader's runner-ups) as scoring's RackSeen: `player`
    counted from 0 as the game counts them, on the rack camera's own clock, and the frame it was
    read from."""
    tiles = tuple(tile.letter for tile in view.tiles)
    certainty = tuple(None if tile.letter is None else round(float(tile.certainty), 4) for tile in view.tiles)
    alts = tuple(tuple(getattr(tile, "alts", ()) or ()) for tile in view.tiles)
    ref = frame.path or f"{frame.source}#{frame.index}"
    return RackSeen(player, round(frame.t, 3), tiles, certainty, ref, alts if any(alts) else ())


def rack_capture(settings, uri: str):
    """The [capture] settings a rack camera opens with: the board camera's, with [racks]'s frame
    size and rate."""
    r = settings.racks
    return settings.capture.model_copy(update={"source": uri, "fps": r.fps, "width_px": r.width_px,
                                               "height_px": r.height_px})


class RackCamera:
    """One player's rack source on a thread of its own: each frame to the player's RackWatch, each
    settled rack to `on_rack(seen, frame)`, which answers whether the read waits for review (the
    recorder's decision, counted in `reviews`). `player` counts from 1, as settings and flags do."""

    def __init__(self, player: int, uri: str, watch, cfg, *, on_rack: Callable, say: Callable) -> None:
        self.player = player
        self.uri = uri
        self.watch = watch
        self.cfg = cfg                  # capture.CaptureConfig
        self.on_rack = on_rack
        self.say = say
        self.source = None
        self.frames = 0
        self.racks = 0
        self.reviews = 0                # racks kept for review (on_rack's answer)
        self.dropped = 0                # racks read that the game did not keep (said when it happens)
        self.last_dropped: str | None = None
        self.state = "not opened"       # the source's state, or why it stopped ("failed: ...", "ended", "stopped")
        self.thread: threading.Thread | None = None
        self.at = float("-inf")         # the media time of the last frame read (files kept in step)

    @property
    def name(self) -> str:
        from tilecam.capture.source import redact
        return f"rack camera {self.player} ({redact(self.uri)})"

    @property
    def live(self) -> bool:
        from tilecam.capture import names_live
        return names_live(self.uri)

    def open(self) -> None:
        """Open the source (raises CaptureError)."""
        from tilecam.capture import open_source
        self.source = open_source(self.uri, self.cfg, on_status=self._status)
        self.state = self.source.status.state

    def _status(self, st) -> None:
        """The source's own word: a drop is said when it happens (a failure when the thread stops);
        an open that fails is the opener's to say."""
        if self.source is None or st.state == self.state:
            return
        was, self.state = self.state, st.state
        if st.state == "reconnecting":
            self.say(f"{self.name}: reconnecting: {st.message}; the board records on")
        elif st.state == "connected" and was == "reconnecting":
            self.say(f"{self.name}: {st.message or 'connected again'}")

    def process(self, frame: Frame):
        """One frame to the watch (run_frames calls this); a settled rack goes on to on_rack."""
        self.frames += 1
        try:
            view = self.watch.feed(frame.image, frame.t)   # a reader that raises stops this rack camera
        finally:
            self.at = frame.t
        if view is not None:
            self.racks += 1
            seen = seen_of(self.player - 1, view, frame)
            try:
                self.reviews += bool(self.on_rack(seen, frame))
            except Exception as exc:
                # the store away for a moment, a read the service refuses: this rack is lost, the next
                # is kept; said on the console's notices and counted in status(), never a traceback
                self.dropped += 1
                self.last_dropped = f"frame {frame.index} ({seen.shown or 'empty'}): {exc}"
                log.warning("%s: rack not kept: %s", self.name, self.last_dropped)
                self.say(f"{self.name}: the rack read at frame {frame.index} ({seen.shown or 'an empty rack'}) "
                         f"was not kept: {exc}")
        return view

    def run(self, stop: threading.Event, pace: bool) -> None:
        """Until the source ends or fails, or `stop`: a camera absent at the start is tried again
        every reconnect_max_s (a file that does not open stopped the station's start instead)."""
        from tilecam.capture import CaptureError
        try:
            while self.source is None:
                if stop.wait(self.cfg.reconnect_max_s):
                    self.state = "stopped"
                    return
                try:
                    self.open()
                except (CaptureError, OSError, ValueError):
                    continue
                self.say(f"{self.name}: connected")
            ended = run_frames(self.source, self, pace=pace, stop=stop)
        except CaptureError as exc:
            self._stopped(f"failed: {exc}")
        except Exception as exc:  # the reader, the store: said, and the board records on
            log.exception("%s", self.name)
            self._stopped(f"failed: {exc!r}")
        else:
            self.state = ended
            if ended == "ended":
                self.say(f"{self.name} has no more frames ({self.summary()})")

    def _stopped(self, why: str) -> None:
        self.state = why
        self.say(f"{self.name} stopped after {self.frames} frames ({self.racks} racks read): {why}; "
                 "the board records on")
        if self.source is not None:
            self.source.close()

    def summary(self) -> str:
        """How it went, in words: frames read, racks read, how it stands."""
        racks = f"{self.racks} rack{'s' * (self.racks != 1)} read" + (f" ({self.reviews} for review)"
                                                                       if self.reviews else "") + \
            (f", {self.dropped} not kept" if self.dropped else "")
        return f"{self.frames} frames, {racks}, {self.state}"

    def status(self) -> dict:
        return {"source": self.uri, "state": self.state, "frames": self.frames, "racks": self.racks,
                "reviews": self.reviews, "dropped": self.dropped, "last_dropped": self.last_dropped}


class RackCameras:
    """Every player's rack camera: `open()` with the station (a file or folder that does not open
    is a SetupError; an absent camera is said and tried again on its thread), `start()`, `stop()`,
    `status()` for /api/status and the lines `tilecam record` ends with. `stop`: the event that
    stops them (the station's)."""

    def __init__(self, settings, sources: dict[int, str], make_watch: Callable[[int], object], *,
                 on_rack: Callable, say: Callable, stop: threading.Event | None = None) -> None:
        self.say = say
        self.cameras = [RackCamera(player, uri, make_watch(player), rack_capture(settings, uri),
                                   on_rack=on_rack, say=say)
                        for player, uri in sorted(sources.items())]
        self.stop_event = stop or threading.Event()  # the station's: a stopped station stops them too

    def __bool__(self) -> bool:
        return bool(self.cameras)

    def open(self) -> None:
        from tilecam.capture import CaptureError
        for cam in self.cameras:
            try:
                cam.open()
            except (CaptureError, OSError, ValueError) as exc:
                if not cam.live:
                    self.close()
                    raise SetupError(f"cannot open the rack source of player {cam.player}: {exc}") from None
                cam.state = f"not there: {exc}"
                self.say(f"{cam.name} is not there ({exc}); tried again every {cam.cfg.reconnect_max_s:g} s, "
                         "and the board records meanwhile")

    def start(self, pace: bool) -> None:
        for cam in self.cameras:
            if cam.thread is None or not cam.thread.is_alive():
                cam.thread = threading.Thread(target=cam.run, args=(self.stop_event, pace),
                                              name=f"tilecam-rack-{cam.player}", daemon=True)
                cam.thread.start()

    def keep_up(self, t: float, poll_s: float = 0.01) -> None:
        """A file recorded unpaced (tilecam record): wait until every rack file has been read up to
        media time `t` of the board's file (or has ended), so that each rack is read before the board
        frames that come after it, as at the table (the racks are matched to the moves as they are
        committed). Cameras and streams keep their own pace and are not waited for."""
        for cam in self.cameras:
            while (not cam.live and cam.thread is not None and cam.thread.is_alive() and cam.at < t
                   and not self.stop_event.is_set()):
                time.sleep(poll_s)

    def drain(self, timeout: float | None = None) -> None:
        """Wait until the rack sources that are files or folders have no more frames (the board's
        file has ended: what their racks say belongs to the game before it is finished off);
        cameras and streams are not waited for."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for cam in self.cameras:
            if cam.thread is not None and not cam.live:
                cam.thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        for cam in self.cameras:
            if cam.source is not None and hasattr(cam.source, "cancel"):
                cam.source.cancel()   # a reconnect wait ends at once
        deadline = time.monotonic() + timeout
        for cam in self.cameras:
            if cam.thread is not None:
                cam.thread.join(max(0.0, deadline - time.monotonic()))
                if cam.state in ("connected", "reconnecting"):
                    cam.state = "stopped"
        self.close()

    def close(self) -> None:
        for cam in self.cameras:
            if cam.source is not None and (cam.thread is None or not cam.thread.is_alive()):
                cam.source.close()

    def status(self) -> dict:
        """Per player (from 1): its source, state, frames, racks read and racks for review."""
        return {str(cam.player): cam.status() for cam in self.cameras}

    def lines(self) -> list[str]:
        return [f"{cam.name}: {cam.summary()}" for cam in self.cameras]


def open_rack_cameras(settings, sources: dict[int, str], make_watch: Callable[[int], object], *, board: str,
                      players: int, on_rack: Callable, say: Callable,
                      stop: threading.Event | None = None) -> RackCameras | None:
    """The rack cameras of a game of `players` players whose board camera is `board`, opened before
    the game is created: a rack source for a player the game does not have, or the board's own
    camera, is a SetupError (as is a file or folder that does not open; an absent camera is said
    and tried again on its thread). None when no player has a rack source."""
    if not sources:
        return None
    from tilecam.capture import device_key

    for player, uri in sorted(sources.items()):
        if not 1 <= player <= players:
            raise SetupError(f"a rack source for player {player}, but the game has {players} players")
        if device_key(uri) == device_key(board):
            raise SetupError(f"the rack source of player {player} ({uri}) is the board's camera")
    racks = RackCameras(settings, sources, make_watch, on_rack=on_rack, say=say, stop=stop)
    racks.open()
    return racks


class InStep:
    """The recorder of an unpaced board file with rack files beside it (tilecam record): each board
    frame waits for the rack files to reach its media time first (RackCameras.keep_up)."""

    def __init__(self, recorder, racks: RackCameras) -> None:
        self.recorder, self.racks = recorder, racks

    def process(self, frame: Frame):
        self.racks.keep_up(frame.t)
        return self.recorder.process(frame)
