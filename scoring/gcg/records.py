"""GCG's record types and vocabulary: a file as read (GcgGame, GcgTurn), a whole game
(GameRecord), a recount finding, the notes and nicknames reader and writer agree on, and
the tile-set names GCG pragmas use."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..errors import ScoringError
from ..events import BLANK_NOT_READ, Event
from ..tiles import DISTRIBUTIONS

__all__ = ["GcgError", "Player", "GcgTurn", "GcgGame", "GameRecord", "Finding", "Mark", "marked", "TURN_LOST_NOTE",
           "RACK_NOT_SEEN", "TURN_INFERRED_NOTE", "NICK_MAX", "MACONDO_LAYOUTS", "check_nick", "gcg_lang"]


class Mark(StrEnum):
    """What a record holds that GCG has no field for, said in a '#note' line beginning with these
    words: the writer writes the line from the record's field, the reader (read_gcg) turns the line
    back into the mark (GcgTurn.marks), and the replay sets the field from the mark. Only `marked`
    reads the words."""

    # A TurnLost: GCG has a pass, and macondo's own note ("#note #unsuccessful-challenge") says why.
    TURN_LOST = "#unsuccessful-challenge"
    # A line whose rack nobody saw still needs one (every reader does): the writer puts stand-in
    # tiles there (or leaves out a rack the set cannot hold) and says so; the reader drops the rack.
    RACK_NOT_SEEN = "rack not seen"
    # Play.turn_inferred: the camera credited the play to the player on turn without a clock press.
    TURN_INFERRED = "turn inferred"
    # Play.blank_guessed: a blank nobody named, given a letter by the writer.
    BLANK_GUESSED = BLANK_NOT_READ


def marked(line: str) -> Mark | None:
    """The mark a note line begins with, or None: the one reading of the words, the writer's and
    the reader's."""
    return next((m for m in Mark if line.startswith(m.value)), None)


# The words each mark's line begins with (a rack note's words begin so too: scoring.racks).
TURN_LOST_NOTE = Mark.TURN_LOST.value
RACK_NOT_SEEN = Mark.RACK_NOT_SEEN.value
TURN_INFERRED_NOTE = Mark.TURN_INFERRED.value
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
    note: str = ""       # the '#note' lines after it, without those read as `marks`
    marks: frozenset[Mark] = frozenset()   # what our writer's note lines said of it (read_gcg)


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
