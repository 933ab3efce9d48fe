"""Typed failures of the vision stages: callers catch these per frame and keep going."""
from __future__ import annotations


class VisionError(Exception):
    """Base class for every vision stage failure; the message is the reason."""


class BoardNotFound(VisionError):
    """No 15x15 grid could be located in the image."""


class RackNotFound(VisionError):
    """No rack (no row of tile faces) could be found in a rack camera's frame."""


class SetupError(VisionError, ValueError):
    """A reader that cannot be built: a missing model or card, a tile set that cannot be read. Raised
    once, at set-up (vision.assemble), never per frame; the message names the file."""
