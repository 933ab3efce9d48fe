"""tilecam config --show: print the effective settings as a TOML settings file.

Every key is printed with its description and bounds as a comment, so
`tilecam config --show > tilecam.toml` gives a commented file to edit, and
`tilecam config --show --config tilecam.toml` shows what a file changes. TOML has no null, so an
unset key is printed commented out; operator tokens are never printed, only their names.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
import textwrap
from typing import Literal, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

WIDTH = 100
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_BOUNDS = (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"), ("min_length", "length >="),
           ("max_length", "length <="))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--show", action="store_true", required=True,
                   help="print the effective settings (defaults, with --config's values on top) as TOML")
    p.add_argument("--config", metavar="FILE", help="settings file (TOML or JSON) to apply to the defaults")


def run(args: argparse.Namespace) -> int:
    from tilecam.api.settings import SettingsError, load_settings

    try:
        settings = load_settings(args.config)
    except SettingsError as exc:
        print(f"tilecam config: {exc}", file=sys.stderr)
        return 2
    sys.stdout.write(settings_toml(settings, source=args.config))
    return 0


def settings_toml(settings: BaseModel, source: str | None = None) -> str:
    """`settings` as a TOML document that load_settings reads back to equal settings (tokens
    apart: they are left out)."""
    lines = _comment(f"tilecam settings: the defaults{f' with {source} on top' if source else ''}. "
                     "Written by `tilecam config --show`; every key may be left out, and a key "
                     "not listed here is an error. Bounds follow each description.")
    for name, field in type(settings).model_fields.items():
        _table(lines, name, getattr(settings, name), field.description)
    return "\n".join(lines) + "\n"


def _table(lines: list[str], path: str, model: BaseModel, description: str | None) -> None:
    lines += ["", *_comment(description), f"[{path}]"]
    later: list[tuple[str, dict, str | None]] = []
    for key, field in type(model).model_fields.items():
        value = getattr(model, key)
        if isinstance(value, BaseModel):
            later.append((key, value, field.description))
            continue
        if isinstance(value, dict):
            later.append((key, value, field.description))
            continue
        lines += _comment(_describe(field))
        if path == "auth" and key == "broadcast_token" and value is not None:   # a secret, as the tokens
            lines.append(f"# {key} = \"...\"   ({len(value)} characters, hidden)")
            continue
        lines.append(f"# {key} =   (unset)" if value is None else f"{key} = {_value(value)}")
    for key, value, description in later:
        if isinstance(value, BaseModel):
            _table(lines, f"{path}.{key}", value, description)
        elif path == "auth" and key == "tokens":
            lines += ["", *_comment(description), f"[{path}.{key}]"]
            for name, token in value.items():  # a secret: its name and length, never the token
                lines.append(f"# {_key(name)} = \"...\"   ({len(token)} characters, hidden)")
        else:
            lines += ["", *_comment(description), f"[{path}.{key}]"]
            lines += [f"{_key(str(k))} = {_value(v)}" for k, v in value.items()]


def _describe(field: FieldInfo) -> str:
    text = (field.description or "").strip()
    bounds = []
    for meta in field.metadata:
        for attr, sign in _BOUNDS:
            limit = getattr(meta, attr, None)
            if limit is not None:
                bounds.append(f"{sign} {limit}")
    if get_origin(field.annotation) is Literal:
        bounds.append("one of " + ", ".join(map(str, get_args(field.annotation))))
    # No-break spaces keep the bounds on one line through textwrap; _comment turns them back.
    if not bounds:
        return text
    return f"{text} " + f"[{'; '.join(bounds)}]".replace(" ", "\u00a0")


def _comment(text: str | None) -> list[str]:
    if not text:
        return []
    wrapped = textwrap.wrap(text, WIDTH - 2, break_long_words=False, break_on_hyphens=False)
    return ["# " + line.replace("\u00a0", " ") for line in wrapped]


def _key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else _string(name)


def _string(text: str) -> str:
    # JSON's escapes are TOML's; DEL must be escaped in TOML and JSON leaves it raw.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__} {value!r}")
