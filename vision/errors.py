"""Typed failures of the vision stages: callers catch these per frame and keep going."""
from __future__ import annotations


class VisionError(Exception):
    """Base class for every vision stage failure; the message is the reason."""


class BoardNotFound(VisionError):
    """No 15x15 grid could be located in the image."""
