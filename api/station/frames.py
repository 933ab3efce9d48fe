"""The recorder pipeline built from settings, and the one frame loop every source runs through
(`tilecam run`, `demo`, `record`, the tests and the benches).

    build_recorder(settings, scorekeeper, link, reader=...)   locator, gate and recorder from settings
    run_frames(source, recorder, on_outcome)                 every frame through the recorder
"""
from __future__ import annotations

import threading
import time
from typing import Callable

__all__ = ["build_recorder", "recorder_config", "run_frames"]


def recorder_config(settings, photos: bool = False):
    # One photo per move (a folder): every frame is a press, whatever the settings say.
    cfg = settings.recorder
    return cfg.model_copy(update={"every_frame_is_a_press": True}) if photos else cfg


def build_recorder(settings, scorekeeper, link, *, reader, photos: bool = False, corners=None,
                   prewarped: bool = False, preview=None):
    """The recorder pipeline from settings: locator (or tracker), reader, stability gate, recorder,
    committing through `link` (a GameLink: the store's, or a MemoryLink); `preview`: a sink
    (sinks.PreviewSink) or None."""
    from .recorder import Recorder
    from tilecam.vision import build_locator

    locator = build_locator(settings, photos=photos, corners=corners, prewarped=prewarped)
    return Recorder(scorekeeper, locator, reader, link, recorder_config(settings, photos), settings.stability,
                    preview=preview)


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


