"""In-process publish/subscribe: game updates for SSE, camera frames for MJPEG.

Publishers may be any thread (the recorder runs in one); subscribers are asyncio
tasks. Each subscriber remembers its loop, and publish hands messages over with
call_soon_threadsafe, so nothing blocks and no lock is held across a loop.
"""
from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Bus", "BusMessage", "PreviewHub", "PreviewViewer", "Subscription"]


@dataclass(frozen=True, slots=True)
class BusMessage:
    game_id: int
    seq: int                 # the log entry's seq; SSE sends it as the event id
    type: str                # SSE event name: "update"
    data: dict[str, Any] = field(default_factory=dict)
    # what the subscribers make of it (`once`), one per key, and the lock its first maker holds
    made: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    making: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def once(self, key: Any, make: Callable[[], Any]) -> Any:
        """`make()` for the first subscriber that asks under `key`, the same answer for every other:
        the one message reaches every subscriber, so what they each make of it under one key (an SSE
        stream's rack policy) is made once, not once per subscriber. Any thread."""
        with self.making:
            if key not in self.made:
                self.made[key] = make()
            return self.made[key]


class Subscription:
    def __init__(self, game_id: int | None, loop: asyncio.AbstractEventLoop, size: int) -> None:
        self.game_id = game_id
        self.loop = loop
        self.queue: asyncio.Queue[BusMessage | None] = asyncio.Queue(size)
        self.dropped = 0

    def _offer(self, msg: BusMessage | None) -> None:
        # Runs on the subscriber's loop. A full queue drops its oldest update: each one
        # carries the whole live state, so the newest is all a slow client needs.
        while True:
            try:
                self.queue.put_nowait(msg)
                return
            except asyncio.QueueFull:
                self.queue.get_nowait()
                self.dropped += 1

    async def get(self) -> BusMessage | None:
        """The next message; None once the bus is closed."""
        return await self.queue.get()


class Bus:
    def __init__(self, queue_size: int = 64) -> None:
        self.queue_size = queue_size
        self._lock = threading.Lock()
        self._subs: set[Subscription] = set()
        self._closed = False

    def subscribe(self, game_id: int | None = None) -> Subscription:
        """Call from a coroutine: the subscription belongs to the running loop. None = every game."""
        sub = Subscription(game_id, asyncio.get_running_loop(), self.queue_size)
        with self._lock:
            if self._closed:
                sub._offer(None)
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, msg: BusMessage) -> int:
        """Deliver to every subscriber of the message's game; safe from any thread. Returns how many."""
        with self._lock:
            targets = [s for s in self._subs if s.game_id is None or s.game_id == msg.game_id]
        delivered = 0
        for sub in targets:
            try:
                sub.loop.call_soon_threadsafe(sub._offer, msg)
                delivered += 1
            except RuntimeError:  # its loop has closed: the client is gone
                self.unsubscribe(sub)
        return delivered

    def close(self) -> None:
        """End every stream (each subscriber gets None)."""
        with self._lock:
            self._closed = True
            targets = list(self._subs)
        for sub in targets:
            try:
                sub.loop.call_soon_threadsafe(sub._offer, None)
            except RuntimeError:
                pass


class PreviewHub:
    """The latest annotated camera frame, JPEG-encoded once for every MJPEG viewer.

    The recorder calls ``publish(frame_bgr)`` from its thread; viewers await ``next_frame``.
    """

    def __init__(self, jpeg_quality: int = 80) -> None:
        self.jpeg_quality = jpeg_quality
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._index = 0
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self.closed = False
        self.encoded = 0     # frames encoded; one per published frame with a viewer, whatever the viewer count

    @property
    def viewers(self) -> int:
        with self._lock:
            return len(self._waiters)

    def publish(self, frame_bgr) -> bool:
        """Encode a BGR image (numpy HxWx3 uint8) once and wake the viewers.
        Skips the encoding when nobody watches; returns whether it encoded."""
        if not self.viewers:
            return False
        import cv2  # only a service that shows a preview needs OpenCV

        ok, buf = cv2.imencode(".jpg", frame_bgr, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        if not ok:
            raise ValueError("the frame could not be encoded as JPEG")
        self.publish_jpeg(buf.tobytes())
        return True

    def publish_jpeg(self, jpeg: bytes) -> None:
        """Publish a frame that is already JPEG."""
        with self._lock:
            self._jpeg = jpeg
            self._index += 1
            self.encoded += 1
        self._wake()

    def close(self) -> None:
        """End every viewer's stream (at shutdown)."""
        self.closed = True
        self._wake()

    def _wake(self) -> None:
        with self._lock:
            waiters = list(self._waiters)
        for loop, event in waiters:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:
                pass

    def latest(self) -> tuple[int, bytes | None]:
        with self._lock:
            return self._index, self._jpeg

    def watch(self) -> "PreviewViewer":
        return PreviewViewer(self)


class PreviewViewer:
    """One MJPEG client: ``async with hub.watch() as v: idx, jpeg = await v.next_frame(after, timeout)``."""

    def __init__(self, hub: PreviewHub) -> None:
        self.hub = hub
        self._event: asyncio.Event | None = None

    async def __aenter__(self) -> "PreviewViewer":
        self._event = asyncio.Event()
        self._key = (asyncio.get_running_loop(), self._event)
        with self.hub._lock:
            self.hub._waiters.add(self._key)
        return self

    async def __aexit__(self, *exc) -> None:
        with self.hub._lock:
            self.hub._waiters.discard(self._key)

    async def next_frame(self, after: int, timeout: float) -> tuple[int, bytes | None]:
        """A frame newer than index `after`, or the current one after `timeout` seconds;
        (after, None) once the hub is closed."""
        while not self.hub.closed:
            idx, jpeg = self.hub.latest()
            if idx > after and jpeg is not None:
                return idx, jpeg
            self._event.clear()
            idx, jpeg = self.hub.latest()  # re-check: a publish may have slipped in before clear()
            if idx > after and jpeg is not None:
                return idx, jpeg
            try:
                await asyncio.wait_for(self._event.wait(), timeout)
            except TimeoutError:
                return self.hub.latest()
        return after, None
