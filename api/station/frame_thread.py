"""The station's frame thread: each game's frames through the recorder, on a thread of its own
("tilecam-recorder", for `tilecam run` and `demo`) or on the caller's (`tilecam record`, whose errors
and Ctrl-C reach it), until the source ends, fails or the station stops; with a next game (the demo's
loop), again into it each time a source ends.

    FrameThread(play, source_ended=..., next_game=..., after=..., stop=...)
        start() / wait(timeout) / join(timeout)   on its own thread
        run()                                     on this one; returns why it ended
    ended       None while it runs; "ended" (the source has no more frames), "stopped", "failed: ..."

What a game's frames are (frames.run_frames through the recorder) and what a source's end does (rack
files drained, the recorder finished, the clock stopped) are the station's: it hands them in.
"""
from __future__ import annotations

import sys
import threading
from typing import Callable

__all__ = ["FrameThread"]


def _say(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


class FrameThread:
    """`play()` runs the current game's frames and returns why they ended ("ended" or "stopped"); a
    CaptureError (a camera that gave up) ends the thread as "failed: ..." and is said; any other
    error ends it as "failed: ..." too and is raised (the thread says why it stopped, never dies
    silently). `after()`: each time the frames stop, however (the LED goes dark). `source_ended()`:
    a game's source had no more frames. `next_game() -> bool`: after a source ended, whether another
    game is attached to record (None or False: done). `stop`: the station's event."""

    def __init__(self, play: Callable[[], str], *, source_ended: Callable[[], None] | None = None,
                 next_game: Callable[[], bool] | None = None, after: Callable[[], None] | None = None,
                 stop: threading.Event | None = None, say: Callable = _say) -> None:
        self.play, self.source_ended, self.next_game, self.after = play, source_ended, next_game, after
        self.stop = stop or threading.Event()
        self.say = say
        self.ended: str | None = None
        self.error: str | None = None    # why the frames failed (the camera gave up, or an error); None while they did not
        self._thread: threading.Thread | None = None

    def run(self) -> str | None:
        """Every game's frames on this thread; why the last one ended."""
        self._game()
        while self.ended == "ended" and not self.stop.is_set() and self.next_game is not None and self.next_game():
            self._game()
        return self.ended

    def _game(self) -> None:
        from tilecam.capture import CaptureError

        self.ended = self.error = None
        try:
            self.ended = self.play()
        except CaptureError as exc:
            self.error = str(exc)
            self.ended = f"failed: {exc}"
            self.say(f"capture failed: {exc}")
        except Exception as exc:
            self.error = repr(exc)
            self.ended = f"failed: {exc!r}"
            raise
        finally:
            if self.after is not None:
                self.after()
        if self.ended == "ended" and self.source_ended is not None:
            self.source_ended()

    def start(self) -> "FrameThread":
        self._thread = threading.Thread(target=self.run, name="tilecam-recorder", daemon=True)
        self._thread.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Until the thread ends; whether it has (True when it never started)."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self._thread is None or not self._thread.is_alive()

    @property
    def failed(self) -> bool:
        return self.error is not None
