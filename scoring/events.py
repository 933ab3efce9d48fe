"""The game as an append-only event log, in the vocabulary Quackle, macondo and GCG use.

Every event names its player and carries `cumulative`, that player's total after it.
Events that move points carry three scores: `claimed` (what the player announced or
the record says; None when nobody claimed one), `engine` (what the rules compute) and
`agreed` (what stands; `cumulative` adds this). A successful challenge appends a
PhonyWithdrawn; the play stays in the log.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Iterable, Union

from .placement import Placement
from .tiles import BLANK

__all__ = ["BLANK_NOT_READ", "CAMERA", "Doubt", "NOT_EVENTS", "PRESS_CAUSE", "RACK_CAUSE", "by_operator", "ChallengeBonus", "Close", "closing", "Correction",
           "EndRackPenalty", "EndRackPoints", "Event", "Exchange", "LogEntry", "Pass", "PhonyWithdrawn", "Play",
           "TimePenalty", "TurnLost", "Void", "from_json", "note_of", "points", "to_json", "voided"]

# A blank whose letter nobody named: on the board as '?' (decode leaves it so when the lexicon
# does not decide), or, in a record the GCG writer had to give a letter, a play with `blank_guessed`.
# This phrase is that record's '#note' (written and read by scoring.gcg, which turns it into the
# field); the operator names the blank with a blank correction, which clears the field.
BLANK_NOT_READ = "blank's letter not read"

# Correction.cause of the camera's own corrections that others act on: a clock press named another
# player than the one a play was credited to by turn order alone (scoring.turns follows it, the
# console says it); a rack camera's read settled after the move was committed (once per move).
PRESS_CAUSE = "clock_press"
RACK_CAUSE = "rack_read"


class Doubt(StrEnum):
    """Why the camera sent a play for review (Play.doubts): a fact of the reading, typed, for the
    console to say in its own words (a blank nobody named is Play.blank_undecided's to say)."""

    CERTAINTY = "certainty"            # its certainty is under [decode] review_below
    NOT_FROM_RACK = "not_from_rack"    # its tiles were not on the rack read before it
    FROM_POOL = "from_pool"            # no letter read is one the unseen tiles hold: the pool's likeliest
    UNLEARNED = "unlearned_tile"       # it holds a tile not yet learned at this table
    BUILT_ON = "built_on_doubt"        # its words run through a tile of a play under review read in doubt
    INFERRED = "inferred"              # seen with other plays at once: its split or order was inferred
    TILE_COUNTS = "tile_counts"        # re-read by the camera: more of a tile was read than the set has
    REREAD = "reread"                  # re-read by the camera from later boards that contradicted it


@dataclass(frozen=True, slots=True)
class Play:
    player: int
    placement: Placement
    words: tuple[str, ...]      # main word first, then cross-words
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    rack: str | None = None     # the rack before the play, when known
    note: str = ""
    # The engine's score stands, not the claim (an operator entering a misannounced play live):
    # kept in the log so that every replay decides the same way until a ruling says otherwise.
    engine_stands: bool = False
    # How the camera read it (None: entered by a person): the probability that every new tile is
    # right, whether it was under the review threshold then, and the other readings of the same
    # squares, each (GCG position, GCG word, probability). A fact of the reading, never a rule:
    # scores and GCG ignore it.
    certainty: float | None = None
    review: bool = False
    runner_ups: tuple[tuple[str, str, float], ...] = ()
    # The camera credited the play to the player on turn because no clock press told it whose turn
    # it was (none since the turn before: an exchange or a pass in between would go unseen).
    # scoring.turns reads it; scores and GCG ignore it. False: a press said so, or a person did.
    turn_inferred: bool = False
    # The play's tiles were not on the rack read before it (scoring.racks.RackBook.judge): the play
    # and that read are for review. A fact of the reading, decided in scoring; scores and GCG ignore it.
    not_from_rack: bool = False
    # What the rack camera's read before the move says of its rack, for people (RackBook.judge's
    # note): it quotes the read, so it goes off air with the rack (api.service.racks.without_rack).
    # Shown after `note`; whether a read was judged is `rack_judged`, never whether this is empty.
    rack_note: str = ""
    # A blank's letter here was chosen by a record's writer, not named by anyone (a GCG line with a
    # BLANK_NOT_READ note, scoring.gcg): flagged as a '?' is, until a blank correction names it.
    blank_guessed: bool = False
    # Per tile, in placement order, the letters the camera's two readers each named alone, the
    # classifier's and the recogniser's ('' none): the evidence the table learns its tiles from
    # (scoring.trust). A fact of the reading; scores and GCG ignore it.
    readers: tuple[tuple[str, str], ...] = ()
    # Why it went for review (review set by the camera), each a Doubt; empty in a log kept before
    # they were (and for a play a person entered). Scores and GCG ignore it.
    doubts: tuple[Doubt, ...] = ()
    # A rack camera's read before the play was judged for it (RackBook.judge, at the commit or by a
    # late read): `rack` and `rack_note` are what it said, and no later read fills them in.
    rack_judged: bool = False
    kind: ClassVar[str] = "play"

    @property
    def blank_undecided(self) -> bool:
        """A blank in this play stands for a letter nobody has named."""
        return self.blank_guessed or any(t.blank and t.letter == BLANK for t in self.placement.tiles)

    def doubted(self, *more: Doubt | None) -> tuple[Doubt, ...]:
        """Its doubts with `more` added (each once; None adds nothing): a camera correction's."""
        return tuple(dict.fromkeys(d for d in (*self.doubts, *more) if d is not None))


@dataclass(frozen=True, slots=True)
class PhonyWithdrawn:
    """The previous play was challenged off: its tiles go back and its points come off."""

    player: int
    claimed: int | None
    engine: int                 # minus what the withdrawn play had been credited
    agreed: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "phony_withdrawn"


@dataclass(frozen=True, slots=True)
class Pass:
    player: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    rack_note: str = ""         # as Play.rack_note
    # the rack camera's reads showed the rack with slots it was not sure of, and could not tell this
    # from an exchange: under review until a person confirms or corrects it (issue 43)
    review: bool = False
    kind: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Exchange:
    player: int
    count: int
    tiles: str | None           # the tiles thrown in, when known
    cumulative: int
    rack: str | None = None
    note: str = ""
    rack_note: str = ""         # as Play.rack_note
    # the tiles are known only from the rack cameras' reads (nobody typed or announced them): what
    # the racks saw, on air as a rack is (api/service/racks.py:for_viewer)
    tiles_from_racks: bool = False
    # the rack camera told it from reads with unsure slots (its tiles unnamed, its count as read):
    # under review until a person confirms or corrects it, hedged on air as an unconfirmed play is
    review: bool = False
    kind: ClassVar[str] = "exchange"


@dataclass(frozen=True, slots=True)
class TurnLost:
    """A failed double challenge: the challenger loses their turn."""

    player: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "turn_lost"


@dataclass(frozen=True, slots=True)
class ChallengeBonus:
    """An unsuccessful challenge under a points rule: the challenged player gets N per word."""

    player: int
    words_challenged: int
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "challenge_bonus"


@dataclass(frozen=True, slots=True)
class EndRackPoints:
    """The player who went out gains the opponents' unplayed tiles (x2 under NASPA);
    `opponent_rack` holds every opponent's tiles, in player order, when more than two play."""

    player: int
    opponent_rack: str
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    note: str = ""
    kind: ClassVar[str] = "end_rack_points"


@dataclass(frozen=True, slots=True)
class EndRackPenalty:
    """A player loses the value of their own unplayed tiles (six-zero end, plus/minus end:
    each opponent of the player who went out)."""

    player: int
    rack: str
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    note: str = ""
    kind: ClassVar[str] = "end_rack_penalty"


@dataclass(frozen=True, slots=True)
class TimePenalty:
    """Overtime: minus `overtime_per_minute` for every started minute over."""

    player: int
    minutes: int
    claimed: int | None
    engine: int
    agreed: int
    cumulative: int
    rack: str | None = None
    note: str = ""
    kind: ClassVar[str] = "time_penalty"


Event = Union[Play, PhonyWithdrawn, Pass, Exchange, TurnLost, ChallengeBonus,
              EndRackPoints, EndRackPenalty, TimePenalty]


@dataclass(frozen=True, slots=True)
class Correction:
    """Amends an earlier event without rewriting the log: a blank designated, a misread
    fixed, a pass turned into an exchange, a score ruled by the director.

    `replacement` is the event as it should have been; its engine score and every later
    cumulative are recomputed on replay (`scoring.game.effective_events`).
    """

    target: int                 # index in the log of the event amended
    replacement: Event
    by: str                     # who made the change, e.g. an operator token's name
    agreed: int | None = None   # a director's ruling on the score that stands, if any
    reason: str = ""
    # An undo (scoring.amend.undo_correction): the log index of the correction it takes back. The
    # move stands as it did before that one, its review state too (scoring.amend.confirmed).
    undoes: int | None = None
    # What made the camera amend the move (PRESS_CAUSE, RACK_CAUSE; None: anything else, or a person):
    # who follows the camera's corrections reads this, never the words of `reason`.
    cause: str | None = None
    kind: ClassVar[str] = "correction"


@dataclass(frozen=True, slots=True)
class Void:
    """Cancels an earlier event without rewriting the log: on replay the event (and every
    correction of it) is skipped as if it had never been made (`scoring.game.effective_events`).

    Only events are voided: a Correction is amended by a later one, and a Void is final (voiding
    a void would make "what stands" depend on chains of undo; the event is entered again instead).
    """

    target: int                 # index in the log of the event voided
    by: str                     # who voided it, e.g. an operator token's name
    reason: str = ""
    kind: ClassVar[str] = "void"


@dataclass(frozen=True, slots=True)
class Close:
    """A director's end of a game the rules have not ended (a forfeit, time called): no move and no
    points, so the record's events and scores stand as they were. Once the log holds one the game
    is over (`scoring.game.is_over`) and takes no turn (`scoring.game.check_open`); corrections,
    voids, a challenge's outcome, the final racks and overtime still go in. A void names a move, so
    it cannot take a close back. GCG has no line for it: a record exported and read back is open."""

    by: str                     # who closed it, e.g. an operator token's name
    reason: str = ""
    kind: ClassVar[str] = "close"


LogEntry = Union[Event, Correction, Void, Close]
# The log entries that are no event of the game: the amendments (each names an earlier event) and a
# director's close. What stays once they are set aside (and the voided events) is the record's moves.
NOT_EVENTS = (Correction, Void, Close)

# Who the camera's own corrections name (Correction.by, the Scorekeeper's `camera_name`); any
# other name is a person's: an operator's token, a director.
CAMERA = "camera"


def by_operator(entry: LogEntry, camera: str = CAMERA) -> bool:
    """A correction a person made (anyone but the camera, named `camera`): it confirms or fixes
    the move it amends, and the reader learns its tiles with the person's word as the label."""
    return isinstance(entry, Correction) and entry.by != camera
EVENT_TYPES: dict[str, type] = {cls.kind: cls for cls in
                                 (Play, PhonyWithdrawn, Pass, Exchange, TurnLost, ChallengeBonus,
                                  EndRackPoints, EndRackPenalty, TimePenalty, Correction, Void, Close)}


def voided(entries: list[LogEntry]) -> set[int]:
    """Log indexes of the events a Void cancels (the Voids themselves are not events either)."""
    return {e.target for e in entries if isinstance(e, Void)}


def closing(entries: Iterable[LogEntry]) -> Close | None:
    """The director's close the log holds (the first: a game is closed once), or None while open."""
    return next((e for e in entries if isinstance(e, Close)), None)


def points(event: Event) -> int:
    """What the event adds to its player's cumulative."""
    return getattr(event, "agreed", 0)


# ---- JSON: one object per log entry with a "kind" tag (the store's row, the record's sidecar) ----

# Fields added after logs were kept, left out while unset: a log entry without them reads the same
# in an older version (a station forwarding to a central not yet upgraded, a JSON sidecar).
_LATER_FIELDS = {"undoes": None, "cause": None, "not_from_rack": False, "rack_note": "", "blank_guessed": False,
                 "readers": (), "tiles_from_racks": False, "doubts": (),
                 "review": False, "rack_judged": False}

# Before `cause`, `not_from_rack`, `rack_note` and `blank_guessed` were kept, the log said them only in
# words. An entry stored then without them is read by those words, as they were written then (frozen:
# old logs' text, never reworded with the messages of today).
_OLD_CAUSES = (("the clock press", PRESS_CAUSE), ("the rack camera", RACK_CAUSE))
_OLD_NOT_FROM_RACK = "not on the rack read"
_OLD_RACK_NOTE = "rack not seen"             # the note lines RackBook.judge wrote began so
_OLD_BLANK_GUESSED = "blank's letter not read"
_RACK_NOTED = ("play", "pass", "exchange")
_OLD_RACK_CAMERA = "the rack camera saw"     # an exchange the rack cameras told, noted so before issue 43


def _by_words(kind: str | None, data: dict) -> dict:
    """The later fields `data` (an entry's JSON) leaves out, as its words said them before they were
    kept: the value of each, and the note without the lines that said them (a blank's guessed letter)
    or that move to `rack_note`."""
    note = str(data.get("note", "") or "")
    out: dict = {}
    if kind == "correction" and "cause" not in data:
        out["cause"] = next((c for words, c in _OLD_CAUSES if str(data.get("reason", "")).startswith(words)), None)
    if kind == "play" and "not_from_rack" not in data:
        out["not_from_rack"] = _OLD_NOT_FROM_RACK in note
    if kind == "play" and "blank_guessed" not in data and _OLD_BLANK_GUESSED in note:
        out["blank_guessed"] = True
        note = out["note"] = "\n".join(line for line in note.split("\n") if _OLD_BLANK_GUESSED not in line)
    if kind == "exchange" and "tiles_from_racks" not in data and data.get("tiles") and note.startswith(_OLD_RACK_CAMERA):
        out["tiles_from_racks"] = True
    if kind in _RACK_NOTED and "rack_note" not in data and note:
        lines = note.split("\n")
        rack = [line for line in lines if line.startswith(_OLD_RACK_NOTE)]
        if rack:
            out["note"] = "\n".join(line for line in lines if not line.startswith(_OLD_RACK_NOTE))
            out["rack_note"] = "\n".join(rack)
    if kind == "play" and "rack_judged" not in data:
        # before it was kept, a rack note stood for a judged read (one judged whole left none, but
        # left the rack, and a play with a rack takes no late read)
        out["rack_judged"] = bool(out.get("rack_note", data.get("rack_note", "")))
    return out


def note_of(event) -> str:
    """An event's note as people read it: its `note`, then what the rack read said (`rack_note`)."""
    return "\n".join(n for n in (getattr(event, "note", ""), getattr(event, "rack_note", "")) if n)


def to_json(entry: LogEntry) -> dict:
    out: dict = {"kind": entry.kind}
    unset: dict = {}
    for name in entry.__slots__:
        value = getattr(entry, name)
        if name in _LATER_FIELDS and value == _LATER_FIELDS[name]:
            unset[name] = value
            continue
        if isinstance(value, Placement):
            value = {"direction": value.direction.value,
                     "tiles": [[t.square.row, t.square.col, t.letter, t.blank] for t in value.tiles]}
        elif isinstance(value, tuple):
            value = [list(v) if isinstance(v, tuple) else v for v in value]
        elif name == "replacement":
            value = to_json(value)
        out[name] = value
    # a field left out must read back as it is: one whose old words (a person's note quoting them)
    # would say otherwise is written
    derived = _by_words(entry.kind, out)
    out.update({name: value for name, value in unset.items()
                if name in derived and derived[name] != value})
    return out


def from_json(data: dict) -> LogEntry:
    """Inverse of to_json; raises ValueError naming what is wrong."""
    from .board import Direction, Square
    from .placement import PlacedTile

    data = dict(data)
    kind = data.pop("kind", None)
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    try:
        if "placement" in data:
            p = data["placement"]
            data["placement"] = Placement(
                tuple(PlacedTile(Square(r, c), letter, bool(blank)) for r, c, letter, blank in p["tiles"]),
                Direction(p["direction"]))
        if "words" in data:
            data["words"] = tuple(data["words"])
        if "readers" in data:
            data["readers"] = tuple((str(c), str(o)) for c, o in data["readers"])
        if "doubts" in data:
            data["doubts"] = tuple(Doubt(d) for d in data["doubts"])
        if "runner_ups" in data:
            data["runner_ups"] = tuple((str(pos), str(word), float(p)) for pos, word, p in data["runner_ups"])
        if "replacement" in data:
            data["replacement"] = from_json(data["replacement"])
        data.update(_by_words(kind, data))
        return cls(**data)
    except (TypeError, KeyError, ValueError) as exc:
        raise ValueError(f"bad {kind} event: {exc}") from None
