"""tilecam command line: one verb per stage, each runnable alone on a file.

Each verb lives in its own module under api/commands/ and exposes
``add_arguments(parser)`` and ``run(args) -> int`` (the exit code). Modules are
imported only when their verb runs, so ``tilecam verify`` never loads cv2.
Bad input (a missing, unreadable or malformed file, an unwritable output) exits 2 with
``tilecam <verb>: <message>`` on stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

# verb -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("tilecam.api.commands.verify", "replay a GCG record and print a recount report"),
    "locate": ("tilecam.api.commands.locate", "find the board's grid corners in an image"),
    "read": ("tilecam.api.commands.read", "read every square of the board in an image"),
    "rack": ("tilecam.api.commands.rack", "read a player's rack in a rack camera image"),
    "enroll": ("tilecam.api.commands.enroll", "adapt the tile reader to the tile set on the table"),
    "record": ("tilecam.api.commands.record", "record a whole game from a video, a folder of frames or a camera"),
    "run": ("tilecam.api.commands.run", "the station: record from the camera (or --source), serve, buttons, LED"),
    "serve": ("tilecam.api.commands.serve", "run the broadcast and review service"),
    "demo": ("tilecam.api.commands.demo", "render a game, record it live and serve it: no camera needed"),
    "config": ("tilecam.api.commands.config", "print the effective settings as a commented TOML file"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tilecam", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for verb, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(verb, help=help_text, description=help_text)
        p.set_defaults(_module=module_name)
        try:
            importlib.import_module(module_name).add_arguments(p)
        except ModuleNotFoundError as exc:  # a verb whose module is not built yet
            if exc.name != module_name:
                raise
            p.set_defaults(_missing=True)
    return parser


def unwritable(path: str | Path) -> str | None:
    """Why a file cannot be written at ``path`` (None when it can), checked before the work and
    without creating anything. Missing folders on the way are fine: the writers create them."""
    path = Path(path)
    if path.is_dir():
        return "is a folder"
    if path.exists():
        return None if os.access(path, os.W_OK) else "not writable"
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    return None if os.access(folder, os.W_OK | os.X_OK) else f"folder {folder} is not writable"


def rack_spec(text: str) -> tuple[int, str]:
    """The argparse type of ``--rack PLAYER=SOURCE`` (``record`` and ``run``): (player, source)."""
    player, sep, source = text.partition("=")
    if not sep or not player.strip().isdigit() or not source.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: give PLAYER=SOURCE, e.g. 1=picam:1 or 2=/dev/video4")
    return int(player), source.strip()


def rack_sources(pairs: list[tuple[int, str]] | None) -> dict[int, str] | None:
    """The ``--rack`` options as rack sources, player -> source (None: none given), checked as the
    settings' [racks] sources are: a ValueError naming the player given twice, a player the rules
    do not have, two players on one camera."""
    if not pairs:
        return None
    from pydantic import ValidationError

    from tilecam.api.settings import RackSettings
    sources: dict[int, str] = {}
    for player, source in pairs:
        if player in sources:
            raise ValueError(f"--rack {player}=...: player {player} is given twice")
        sources[player] = source
    try:
        RackSettings(sources=sources)
    except ValidationError as exc:
        raise ValueError("--rack: " + "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())) from None
    return sources


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "_missing", False):
        print(f"tilecam {args.command}: not available in this build", file=sys.stderr)
        return 2
    try:
        return int(importlib.import_module(args._module).run(args) or 0)
    except BrokenPipeError:  # `tilecam read ... | head` closed the pipe: nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0


if __name__ == "__main__":
    sys.exit(main())
