"""vision/locate/config.py: LocateConfig, one settings section; a key it does not know is refused."""
from __future__ import annotations

import pytest

from tilecam.vision.locate import LocateConfig


def test_config_forbids_unknown_keys():
    with pytest.raises(Exception):
        LocateConfig(bogus=1)
