"""GCG's record types and vocabulary: a file as read (GcgGame, GcgTurn), a whole game
(GameRecord), a recount finding, the notes and nicknames reader and writer agree on, and
the tile-set names GCG pragmas use."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ScoringError
from ..events import Event
from ..tiles import DISTRIBUTIONS

__all__ = ["GcgError", "Player", "GcgTurn", "GcgGame", "GameRecord", "Finding", "TURN_LOST_NOTE",
           "RACK_NOT_SEEN", "TURN_INFERRED_NOTE", "NICK_MAX", "MACONDO_LAYOUTS", "check_nick", "gcg_lang"]

TURN_LOST_NOTE = "#unsuccessful-challenge"
# A line whose rack nobody saw still needs one (every reader does); the writer puts stand-in
# tiles there and says so in a note starting with this, and the reader drops both again.
RACK_NOT_SEEN = "rack not seen"
# A play the camera credited to the player on turn without a clock press (Play.turn_inferred): the
# writer says so in a note starting with this, and the reader takes the flag back from it.
TURN_INFERRED_NOTE = "turn inferred"
NICK_MAX = 64           # the longest in the liwords games is 42

MACONDO_LAYOUTS = {"super": "SuperCrosswordGame"}  # the standard board is macondo's default


class GcgError(ScoringError):
    """A GCG line that cannot be read or replayed. Names the line and why."""

    def __init__(self, line_no: int, line: str, reason: str) -> None:
        # line_no 0: not from a file (a nickname checked on its way in, a record being written)
        self.line_no, self.line, self.reason = line_no, line, reason
        where = f"line {line_no}: " if line_no else ""
        shown = line.strip() if len(line.strip()) <= 100 else line.strip()[:100] + "..."
        super().__init__(f"{where}{reason}: {shown!r}" if shown else f"{where}{reason}")


@dataclass(frozen=True)
class Player:
    nick: str
    name: str


@dataclass(frozen=True)
class GcgTurn:
    """One '>' line as written, before replay."""

    line_no: int
    text: str
    player: int
    rack: str | None
    kind: str            # play | withdrawn | pass | exchange | challenge | end_points | end_penalty | time
    score: int
    cumulative: int
    position: str | None = None
    word: str | None = None
    exchanged: str | None = None
    count: int = 0
    note: str = ""


@dataclass
class GcgGame:
    players: list[Player] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)   # title, description, id, lexicon, ...
    final_racks: dict[int, str] = field(default_factory=dict)  # #rack1 / #rack2
    turns: list[GcgTurn] = field(default_factory=list)


@dataclass(frozen=True)
class GameRecord:
    """A whole game: who played, under which rules and set, and the event log."""

    players: tuple[Player, ...]
    events: tuple[Event, ...]
    meta: dict[str, str] = field(default_factory=dict)
    rules: str = "naspa"
    lang: str = "en"
    layout: str = "standard"


@dataclass(frozen=True)
class Finding:
    """A recount finding: a score or a running total that the engine does not reproduce."""

    line_no: int
    event_index: int
    player: int
    what: str          # "score" | "cumulative"
    recorded: int
    engine: int
    text: str


def check_nick(nick: str) -> str:
    """A GCG nickname, returned as is, or GcgError saying why it cannot be one.

    A turn line is '>nick: ...' and '#player1 nick Full Name' splits at the first space,
    so a nickname is one printable word without ':'; the display name keeps any spaces.
    """
    if not nick:
        raise GcgError(0, "", "a nickname cannot be empty")
    if len(nick) > NICK_MAX:
        raise GcgError(0, "", f"nickname of {len(nick)} characters (at most {NICK_MAX})")
    if ":" in nick:
        raise GcgError(0, nick, "a nickname cannot hold ':' (a GCG turn line is '>nick: ...')")
    if any(ch.isspace() for ch in nick):
        raise GcgError(0, nick, "a nickname is one word: no spaces or line breaks (the display name can have them)")
    if not nick.isprintable():
        raise GcgError(0, nick, "a nickname cannot hold control or invisible characters")
    return nick


def gcg_lang(meta: dict[str, str]) -> str | None:
    """The tile set a record names: '#tile-distribution' (macondo's names), else the '#lexicon'
    prefix (OSPS: Polish, RD: German, FRA/ODS: French, FILE/FISE: Spanish, NWL/TWL/CSW: English,
    NSF: Norwegian, DISC: Catalan)."""
    named = meta.get("tile-distribution", "").strip().lower()
    lexicon = meta.get("lexicon", "").strip().upper()
    # the names are the tile sets' own (scoring.tiles: gcg_name, lexicons): a set added there is read here
    return (next((lang for lang, d in DISTRIBUTIONS.items() if d.gcg_name and named == d.gcg_name), None)
            or next((lang for lang, d in DISTRIBUTIONS.items() for prefix in d.lexicons if lexicon.startswith(prefix)),
                    None))
