"""`tilecam demo --help` describes every option (--host, --port and --model once had no help)."""
from __future__ import annotations

import argparse

from tilecam.api.cli import build_parser


def subparser(verb: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[verb]


def test_every_demo_option_is_described():
    p = subparser("demo")
    undescribed = [a.option_strings[-1] for a in p._actions
                   if a.option_strings and a.help != argparse.SUPPRESS and not (a.help or "").strip()]
    assert undescribed == []
    text = p.format_help()
    for option in ("--pace", "--once", "--host", "--port", "--model", "--cache"):
        assert option in text
