"""Keyboard triggers for a table without buttons: '1' and '2' end a player's turn.

Keys are read one character at a time from a stream; on a terminal it is switched to
cbreak mode so that a key acts without Enter. Any text stream works, which is how the
tests drive it (io.StringIO).
"""
from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from typing import Iterator, Mapping, TextIO

from .triggers import Trigger, TriggerCallback

log = logging.getLogger(__name__)

# key -> (kind, player). Space ends the turn of whoever is on turn: the recorder knows who.
DEFAULT_KEYS: dict[str, tuple[str, int | None]] = {
    "1": ("turn_end", 0),
    "2": ("turn_end", 1),
    "3": ("turn_end", 2),
    "4": ("turn_end", 3),
    " ": ("turn_end", None),
    "p": ("pause", None),
    "c": ("challenge", None),
    "u": ("undo", None),
    "s": ("snapshot", None),
}

HELP = ("keys: 1-4 = that player ended the turn, space = turn ended, p = pause/resume the clock, "
        "c = challenge, u = undo, s = snapshot")


@contextlib.contextmanager
def cbreak(stream: TextIO) -> Iterator[None]:
    """Deliver keys as they are typed when `stream` is a terminal; restore it afterwards."""
    try:
        fd = stream.fileno()
        is_tty = stream.isatty()
    except (AttributeError, OSError, ValueError):   # StringIO and pipes have no terminal
        is_tty = False
    if not is_tty:
        yield
        return
    import termios
    import tty

    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class KeyboardTrigger:
    """Reads keys from `stream` and calls `on_trigger` for the mapped ones; others are ignored."""

    def __init__(self, on_trigger: TriggerCallback, stream: TextIO | None = None,
                 keys: Mapping[str, tuple[str, int | None]] | None = None) -> None:
        self.on_trigger = on_trigger
        self.stream = stream if stream is not None else sys.stdin
        self.keys = {k.lower(): v for k, v in (keys or DEFAULT_KEYS).items()}
        self.ignored = 0
        self._thread: threading.Thread | None = None

    def handle(self, key: str) -> Trigger | None:
        """The trigger for one key, already passed to on_trigger; None if the key means nothing."""
        action = self.keys.get(key.lower())
        if action is None:
            if not key.isspace():   # newlines from line-buffered input are not mistakes
                self.ignored += 1
            return None
        kind, player = action
        trigger = Trigger(kind, player, time.monotonic(), "keyboard")
        try:
            self.on_trigger(trigger)
        except Exception:   # one failing handler must not stop the keyboard
            log.exception("trigger handler failed for %s", trigger)
        return trigger

    def run(self) -> int:
        """Read until the stream ends; returns the number of triggers sent."""
        sent = 0
        with cbreak(self.stream):
            while True:
                key = self.stream.read(1)
                if not key:
                    return sent
                if self.handle(key) is not None:
                    sent += 1

    def start(self) -> "KeyboardTrigger":
        """Run on a daemon thread: a read from a terminal cannot be interrupted, so the
        thread ends with the process or at end of input."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.run, name="keyboard triggers", daemon=True)
            self._thread.start()
        return self

    def join(self, timeout_s: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout_s)
