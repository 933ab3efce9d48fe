"""One Settings object for the service, built from small sections.

Stages that own a config section (capture, vision, hardware) add it here when they
exist; nothing in this module reads the environment or a file at import.
"""
from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tilecam.api.errors import ApiError
from tilecam.capture.open import device_key
from tilecam.capture.source import CaptureConfig
from tilecam.hardware.buttons import ButtonConfig
from tilecam.hardware.leds import LedConfig
from tilecam.scoring import ClockConfig, DecodeConfig, check_player_number
from tilecam.vision import (SETTLE_S, EnrollConfig, LocateConfig, RackConfig, ReadConfig, ReaderConfig,
                            StabilityConfig, TrackConfig)

__all__ = ["MIN_TOKEN_CHARS", "AuthSettings", "check_token", "get_settings", "LiveSettings", "load_settings",
           "LostConfig", "PreviewSettings", "RackSettings", "read_secret", "RecorderConfig", "Section",
           "ServerSettings", "Settings", "SettingsError", "StoreSettings", "TournamentSettings"]


class Section(BaseModel):
    # A typo in a key fails at start instead of being ignored.
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServerSettings(Section):
    host: str = Field("127.0.0.1", description="Address to listen on; 0.0.0.0 to serve the LAN.")
    port: int = Field(8000, ge=0, le=65535, description="TCP port (0 picks a free one).")
    graceful_shutdown_s: float = Field(
        2.0, gt=0, le=60, description="Seconds open SSE/MJPEG streams get to end at shutdown before being cut.")


class StoreSettings(Section):
    db_path: str = Field("tilecam.sqlite3", description="SQLite file holding games, log entries and frames "
                                                        "(the default store: one table needs nothing else).")
    url: str | None = Field(
        None, max_length=500,
        description="The store as a URL, instead of db_path: 'sqlite:///path/games.sqlite3' or "
                    "'postgresql://user@host:5432/dbname' (a tournament's central store; docs/tournament.md). "
                    "Never a password in it: TILECAM_STORE_PASSWORD or password_file.")
    password_file: str | None = Field(
        None, max_length=500, description="File holding the PostgreSQL password (one line); else "
                                          "TILECAM_STORE_PASSWORD, else libpq's own (PGPASSWORD, ~/.pgpass).")


class TournamentSettings(Section):
    """A station's link to the tournament's central service (docs/tournament.md). Unset server:
    a single table, nothing forwarded."""
    server: str | None = Field(None, max_length=500, pattern=r"^https?://",
                               description="The central service's base URL, e.g. 'http://10.0.0.2:8000'.")
    token_file: str | None = Field(None, max_length=500,
                                   description="File holding this station's token for the central service.")
    table: int | None = Field(None, ge=1, le=999, description="This station's table number in the tournament.")
    station: str | None = Field(None, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$",
                                description="This station's name at the central service (default: the host name).")
    url: str | None = Field(None, max_length=500, pattern=r"^https?://[^\s]+$",
                            description="This station's own address as the director's laptop reaches it, e.g. "
                                        "'http://pi-07.local:8000': /tournament links its operator console there. "
                                        "Default: from [server] (this machine's host name when it listens on "
                                        "0.0.0.0).")
    retry_initial_s: float = Field(0.5, gt=0, le=60, description="First wait after a failed push; doubles each time.")
    retry_max_s: float = Field(10.0, gt=0, le=600, description="Longest wait between pushes while the central "
                                                               "service cannot be reached.")
    stale_after_s: float = Field(60.0, gt=0, le=3600, description="Central service: a station not heard from for "
                                                                  "this long is flagged on /tournament.")


MIN_TOKEN_CHARS = 16  # a guessable token defeats the back-off; 16 random characters do not


class AuthSettings(Section):
    tokens: dict[str, str] = Field(
        default_factory=dict,
        description="Operator bearer tokens, name -> token (at least 16 printable characters, no spaces). "
                    "The name is written into every correction. Empty: `tilecam serve` uses TILECAM_TOKEN "
                    "or a token file (docs/api.md, Security).")
    max_failures: int = Field(
        5, ge=1, le=1000, description="Wrong tokens one client address may send before it must wait (answered 429).")
    backoff_initial_s: float = Field(
        1.0, gt=0, le=3600, description="Seconds of the first wait; each further wrong token after a wait doubles it.")
    backoff_max_s: float = Field(
        300.0, gt=0, le=86400, description="Longest wait, in seconds; a client with no wrong token for this long "
                                 "starts again from zero.")

    broadcast_token: str | None = Field(
        None, description="The broadcast token (at least 16 printable characters, no spaces): read-only, the "
                          "broadcaster's overlay shows the racks live with it in its URL (?broadcast=...); it "
                          "writes nothing. Unset: `tilecam serve`/`run` use TILECAM_BROADCAST_TOKEN or the "
                          "file <db>.broadcast-token (docs/api.md, Security).")

    @field_validator("broadcast_token")
    @classmethod
    def _strong_broadcast(cls, token: str | None) -> str | None:
        return None if token is None else check_token(token, "broadcast_token")

    @field_validator("tokens")
    @classmethod
    def _strong_tokens(cls, tokens: dict[str, str]) -> dict[str, str]:
        for name, token in tokens.items():
            check_token(token, f"token {name!r}")
        return tokens


def check_token(token: str, what: str = "token") -> str:
    """The token if it is usable as a bearer token; a ValueError naming `what` otherwise."""
    if not token:
        raise ValueError(f"{what} is empty")
    if not all("!" <= c <= "~" for c in token):
        raise ValueError(f"{what} must be printable ASCII without spaces")
    if len(token) < MIN_TOKEN_CHARS:
        raise ValueError(f"{what} has {len(token)} characters; at least {MIN_TOKEN_CHARS} are needed")
    return token


def read_secret(path: str | Path, what: str) -> bytes:
    """The start of a file holding a secret a setting names (a token, a password), refused when
    others may read it: a SettingsError naming `what` and the file."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            mode = stat.S_IMODE(os.fstat(f.fileno()).st_mode)
            raw = f.read(4096)
    except OSError as exc:
        raise SettingsError(f"cannot read {what} {path}: {exc.strerror}") from None
    if mode & 0o077:
        raise SettingsError(f"{what} {path} can be read by others (mode {mode:04o}); chmod 600 it")
    return raw


class LiveSettings(Section):
    keepalive_s: float = Field(15.0, gt=0, le=3600, description="Seconds between SSE keep-alive comments.")
    watch_s: float = Field(0.5, gt=0, le=60, description="Longest the server waits between two looks for entries "
                                                  "other writers (a recorder in another process, another server "
                                                  "on the database) added: a PostgreSQL commit wakes it at once, "
                                                  "a SQLite file is looked at every 50 ms meanwhile. Also the "
                                                  "wait before trying a store that could not be reached again.")
    queue_size: int = Field(
        64, ge=1, le=10000, description="Updates buffered per SSE client; a slower client loses the oldest "
                              "(each update carries the whole live state, so nothing is missing after).")


class PreviewSettings(Section):
    jpeg_quality: int = Field(80, ge=10, le=100, description="JPEG quality of the MJPEG preview.")
    max_fps: float = Field(10.0, gt=0, le=120, description="Most frames per second sent to one preview viewer.")


class RackSettings(Section):
    """The rack cameras (docs/racks.md): one optional camera per player, looking at that player's
    rack, opened like the board's camera and with its [capture] settings (frame size and rate
    apart). No sources: no rack cameras, and everything works as without them."""

    sources: dict[int, str] = Field(default_factory=dict, description=(
        "The rack camera of each player who has one, player number (1 moves first) -> source, named as "
        "[capture] source is: 'picam:1' (a Pi 5's second CSI port), a USB camera index or /dev/videoN, an "
        "rtsp:// or http(s):// URL, a video file or a folder of images. `tilecam run --rack 1=SRC` and "
        "`tilecam record --rack 1=SRC` give them for one run instead."))
    fps: float = Field(5.0, gt=0, le=60, description=(
        "Frames per second asked of a rack camera: a rack changes between turns, not within a frame."))
    width_px: int = Field(1280, ge=0, le=10000, description=(
        "Image width asked of a rack camera (0: the camera's default); a rack fills far less of a "
        "picture than the board does."))
    height_px: int = Field(720, ge=0, le=10000,
                           description="Image height asked of a rack camera (0: the camera's default).")
    settle_s: float = Field(SETTLE_S, gt=0, le=30, description=(
        "A rack counts as read once it has been still this long (vision's RackWatch): a hand "
        "arranging tiles is not a rack."))
    on_air: Literal["broadcast", "off"] = Field("broadcast", description=(
        "Who sees the racks (and an exchange's tiles only the rack cameras saw) without the operator "
        "token: 'broadcast' the broadcaster's overlay live, with the broadcast token in its URL (the "
        "broadcast delays its stream), and every other view once the game is over; 'off' no one."))
    review_below: float = Field(0.9, ge=0, le=1, description=(
        "A rack read with a tile read less surely than this waits for the operator console's review, "
        "scoring takes such a tile as not seen, and no page without the operator token shows its letter "
        "(the rack goes on air whole only once every tile is seen and this sure): the one threshold."))

    @model_validator(mode="before")
    @classmethod
    def _no_delay(cls, data):
        # A per-move delay showed a rack whose leave the player still held (issue 43): gone, said so.
        if isinstance(data, dict):
            if data.get("on_air") in ("delay", "live"):
                raise ValueError(f"on_air = {data['on_air']!r} is gone: a rack shown a move late still "
                                 "shows the tiles its player holds. Use on_air = 'broadcast' (the "
                                 "broadcaster's overlay sees racks live with the broadcast token; every "
                                 "other view once the game is over) or 'off'")
            if "delay_turns" in data:
                raise ValueError("delay_turns is gone with on_air = 'delay' (a rack shown a move late still "
                                 "shows the tiles its player holds): remove it; on_air = 'broadcast' shows "
                                 "racks live to the broadcast overlay alone")
        return data

    @field_validator("sources")
    @classmethod
    def _one_camera_each(cls, sources: dict[int, str]) -> dict[int, str]:
        seen: dict[str, int] = {}
        for player, uri in sorted(sources.items()):
            check_player_number(player)   # the rules' player count; 1 moves first
            if not uri.strip():
                raise ValueError(f"player {player}: the source is empty")
            key = device_key(uri)
            if key in seen:
                raise ValueError(f"players {seen[key]} and {player} name the same camera ({uri!r})")
            seen[key] = player
        return sources


# The station's own sections (api/station/ runs them): held here, since the web, which reads this
# tree, never imports the station.
class LostConfig(BaseModel):
    """When the recorder says it has lost the game (docs/recording.md, "A lost game is never silent")."""

    model_config = ConfigDict(extra="forbid")

    min_unexplained: int = Field(2, ge=1, le=50, description=(
        "tiles read with confidence that no committed play explains, after a decided snapshot, that "
        "raise the alert (one is a misread square more often than a lost play)"))
    hand_visits: int = Field(3, ge=1, le=100, description=(
        "moving spells over the board (hands), each followed by a still board, with no snapshot taken, "
        "that raise the alert"))
    no_snapshot_s: float = Field(20.0, gt=0, le=3600, description=(
        "seconds from the first of those visits before they raise the alert: a hand laying a play tile by "
        "tile comes and goes within a turn and the board then rests for a snapshot"))
    max_dropped: int = Field(3, ge=1, le=100, description=(
        "snapshots in a row dropped as covered that raise the alert"))
    restless_s: float = Field(20.0, gt=0, le=3600, description=(
        "seconds the board is judged moving without a break that raise the alert"))
    blind_s: float = Field(1.0, gt=0, le=3600, description=(
        "seconds the frame stands still while the board's grid is not found that raise the alert (a "
        "hand moves; a still frame without the board is the camera lost)"))
    no_board_s: float = Field(10.0, gt=0, le=3600, description=(
        "seconds of frames in which no board is found at all that raise the alert (a station looking "
        "at a table top, a camera pointed away)"))
    no_board_photos: int = Field(3, ge=1, le=1000, description=(
        "photos in a row in which no board is found that raise the alert, for a folder of one photo per "
        "move (no time passes between its photos to judge by)"))


class RecorderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    every_frame_is_a_press: bool = Field(
        False, description="treat every frame as a clock press (a folder of one photo per move)")
    evidence_jpeg_quality: int = Field(85, description="JPEG quality of the evidence frame kept per move")
    preview_every_ms: float = Field(100.0, description="least time between two preview frames")
    retries: int = Field(3, ge=0, le=100, description=(
        "a snapshot dropped as covered, or whose decision was unclear, is taken again this many times "
        "while the board stays still (each after the gate's stable_ms)"))
    covered_drops: int = Field(1, ge=0, le=100, description=(
        "snapshots of one still board dropped as covered (vision.reader.covered) before it is read "
        "anyway: a hand does not rest that still for long, and a table the reader has not seen (dark "
        "tiles on a light board, a dark room) reads unsure in wide patches with nothing on it; what a "
        "resting hand shows then is the decoder's doubt and, if it stays, the lost-game alert's"))
    lost: LostConfig = Field(default_factory=LostConfig, description="when the recorder says it lost the game")


class Settings(Section):
    """Every setting of tilecam, one section per stage, in the order frames flow through them."""

    # Sections the stages own, defined next to their code (no stage imports api).
    capture: CaptureConfig = Field(default_factory=CaptureConfig,
                                   description="Frame source: camera mode, exposure lock, reconnecting.")
    locate: LocateConfig = Field(default_factory=LocateConfig, description="Finding the board's grid in a frame.")
    track: TrackConfig = Field(default_factory=TrackConfig,
                               description="Following the board from frame to frame; when to find it again.")
    read: ReadConfig = Field(default_factory=ReadConfig,
                             description="Reading the squares: model, tile set, empty-board reference.")
    enroll: EnrollConfig = Field(default_factory=EnrollConfig,
                                 description="Adapting the reader to the tile set on the table (tilecam enroll).")
    stability: StabilityConfig = Field(default_factory=StabilityConfig,
                                       description="When the board is still long enough for a snapshot.")
    decode: DecodeConfig = Field(default_factory=DecodeConfig, description="Snapshot -> proposed play.")
    reader: ReaderConfig = Field(default_factory=ReaderConfig,
                                 description="The board reader at a snapshot: warp size, unsure squares, "
                                             "calibration to the table.")
    recorder: RecorderConfig = Field(default_factory=RecorderConfig,
                                     description="The recorder: photos as presses, evidence frames, preview rate.")
    racks: RackSettings = Field(default_factory=RackSettings,
                                description="Rack cameras: one optional camera per player, looking at the rack.")
    rack_read: RackConfig = Field(default_factory=RackConfig,
                                  description="Reading a rack camera's frame: which reader names a tile, blanks, "
                                              "finding the rack.")
    clock: ClockConfig = Field(default_factory=ClockConfig, description="The game clock the clock buttons run.")
    buttons: ButtonConfig = Field(default_factory=ButtonConfig, description="Clock and challenge buttons (GPIO).")
    leds: LedConfig = Field(default_factory=LedConfig, description="The status LED (GPIO).")
    # The service's own sections.
    server: ServerSettings = Field(default_factory=ServerSettings, description="HTTP server.")
    store: StoreSettings = Field(default_factory=StoreSettings, description="Event store.")
    auth: AuthSettings = Field(default_factory=AuthSettings, description="Operator tokens.")
    live: LiveSettings = Field(default_factory=LiveSettings, description="Server-Sent Events.")
    preview: PreviewSettings = Field(default_factory=PreviewSettings, description="Camera preview (MJPEG).")
    tournament: TournamentSettings = Field(default_factory=TournamentSettings,
                                           description="A station's link to the tournament's central service.")


class SettingsError(ApiError, ValueError):
    """A settings file or override that does not validate; names the file and the keys."""


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict):
            inner = out.get(key)
            out[key] = _merge(inner if isinstance(inner, dict) else {}, value)
        elif value is not None:
            out[key] = value
    return out


def load_settings(path: str | Path | None = None, **overrides: Any) -> Settings:
    """Settings from a TOML or JSON file (optional) with section overrides on top,
    e.g. ``load_settings("tilecam.toml", server={"port": 9000})``; None values are ignored."""
    data: dict[str, Any] = {}
    where = "overrides"
    if path is not None:
        path = Path(path)
        where = str(path)
        try:
            raw = path.read_bytes()
            text = raw.decode("utf-8")
            data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
        except OSError as exc:
            raise SettingsError(f"{path}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            line = raw[:exc.start].count(b"\n") + 1
            raise SettingsError(f"{path}: not UTF-8 text (line {line}, byte {exc.start})") from None
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            raise SettingsError(f"{path}: {exc}") from None
        if not isinstance(data, dict):
            raise SettingsError(f"{path}: a settings file holds one JSON object ({{...}})")
    data = _merge(data, overrides)
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        problems = []
        for e in exc.errors():
            key = ".".join(map(str, e["loc"]))
            line = _toml_line(text, e["loc"]) if path is not None and path.suffix != ".json" else None
            problems.append(f"{key}{f' (line {line})' if line else ''}: {e['msg']}")
        raise SettingsError(f"{where}: {'; '.join(problems)}") from None


_HEADER = re.compile(r"\s*\[\s*([A-Za-z0-9_.\s]+?)\s*\]\s*(?:#.*)?$")
_KEY = re.compile(r"\s*([A-Za-z0-9_.\s]+?)\s*=")


def _toml_line(text: str, loc: tuple) -> int | None:
    """The line of a TOML file where the key at `loc` (section, key) is set, or its section's
    header; None when neither is found (a key given as an override, an inline table)."""
    want = [str(part) for part in loc[:2]]
    table: list[str] = []
    header_line = None
    for number, line in enumerate(text.splitlines(), 1):
        if m := _HEADER.match(line):
            table = [part.strip() for part in m.group(1).split(".")]
            if table == want:   # a sub-table such as [auth.tokens]
                return number
            if table == want[:1] and header_line is None:
                header_line = number
        elif m := _KEY.match(line):
            if table + [part.strip() for part in m.group(1).split(".")] == want:
                return number
    return header_line


@lru_cache
def get_settings() -> Settings:
    """The app's settings as a dependency; create_app overrides it with the object it was given."""
    return load_settings()
