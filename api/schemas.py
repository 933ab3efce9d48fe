"""Request and response models of the HTTP API.

Separate from scoring's dataclasses on purpose: the wire format can grow (GCG
notation, nicknames, running totals) without touching the rules engine.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

# Field names broadcasters use in Woogles broadcasts and WatchGCG overlays.
OBS_FIELDS = ("score", "p1_score", "p2_score", "p1_name", "p2_name", "unseen_tiles", "unseen_count",
              "last_play", "blank1", "blank2")
ObsField = Literal["score", "p1_score", "p2_score", "p1_name", "p2_name", "unseen_tiles", "unseen_count",
                   "last_play", "blank1", "blank2"]


class In(BaseModel):
    model_config = ConfigDict(extra="forbid")


# No single event in a real game moves a score by more than this; larger numbers are typos.
Points = Annotated[int, Field(ge=-9999, le=9999)]


# ---- responses ------------------------------------------------------------------

class PlayerOut(BaseModel):
    nick: str
    name: str


class GameSummary(BaseModel):
    id: int
    players: list[PlayerOut]
    rules: str
    lang: str
    layout: str
    created: str
    meta: dict[str, str]
    moves: int = Field(description="Events in the record as it stands (corrections applied).")
    scores: list[int]
    ended: bool


class GameDetail(GameSummary):
    entries: int = Field(description="Rows in the append-only log, corrections included.")
    on_turn: int
    bag: int
    end_reason: str | None
    links: dict[str, str]


class TileOut(BaseModel):
    square: str = Field(description="GCG square, row number then column letter, e.g. '8H'.")
    row: int
    col: int
    letter: str
    blank: bool


class BoardOut(BaseModel):
    game_id: int
    turn: int = Field(description="Events replayed: 0 is the empty board.")
    rows: list[str] = Field(description="One string per row; '.' empty, lower case a blank.")
    premiums: list[str] = Field(description="The layout, one string per row: = TW, - DW, \" TL, ' DL, * centre.")
    tiles: list[TileOut]
    last_play: list[str] = Field(description="Squares of the tiles placed by the last event, if a play.")
    scores: list[int]
    on_turn: int
    bag: int


class MoveOut(BaseModel):
    index: int = Field(description="Position among the events (corrections applied).")
    seq: int = Field(description="Row of the original entry in the log; corrections name it.")
    player: int
    nick: str
    kind: str
    position: str | None = Field(None, description="GCG coordinate of a play, e.g. '8D' across, 'D8' down.")
    word: str | None = Field(None, description="The play in GCG notation; '.' marks played-through tiles.")
    text: str
    rack: str | None
    claimed: int | None
    engine: int | None
    agreed: int
    cumulative: int
    totals: list[int]
    note: str
    corrected: bool
    frame: bool = Field(description="Whether an evidence frame is stored.")


class UnseenOut(BaseModel):
    game_id: int
    turn: int
    pool: str = Field(description="Unseen tiles in distribution order, '?' for blanks.")
    count: int
    bag: int
    tiles: dict[str, int]
    vowels: int
    consonants: int
    blanks: int


class LiveOut(BaseModel):
    """Everything an overlay shows; sent whole on every SSE update."""

    game_id: int
    seq: int = Field(description="Last log entry (-1: none yet).")
    players: list[PlayerOut]
    scores: list[int]
    on_turn: int
    ended: bool
    end_reason: str | None
    rows: list[str]
    premiums: list[str]
    last_play: list[str]
    last_text: str
    unseen: str
    unseen_count: int
    bag: int
    values: dict[str, int] = Field(description="Points of each tile of the set.")
    fields: dict[str, str] = Field(description="The OBS text fields by name.")


class RecountMoveOut(BaseModel):
    index: int
    seq: int
    player: int
    kind: str
    text: str
    claimed: int | None
    engine: int | None
    agreed: int
    cumulative: int
    totals: list[int]


class DiscrepancyOut(BaseModel):
    index: int
    seq: int
    player: int
    what: Literal["score", "correction"]
    claimed: int | None
    engine: int | None
    agreed: int
    text: str


class RecountOut(BaseModel):
    game_id: int
    players: list[PlayerOut]
    rules: str
    moves: list[RecountMoveOut]
    discrepancies: list[DiscrepancyOut]
    first_discrepancy: DiscrepancyOut | None
    final: list[int]


class ScoresheetRow(BaseModel):
    turn: int = Field(description="The player's turn, from 1.")
    index: int | None
    text: str
    sheet: int | None
    record: int | None
    agrees: bool


class ScoresheetOut(BaseModel):
    game_id: int
    player: int
    rows: list[ScoresheetRow]
    agrees: bool
    first_mismatch: ScoresheetRow | None


class WriteOut(BaseModel):
    game_id: int
    seqs: list[int] = Field(description="Log rows written.")
    live: LiveOut


# ---- requests -------------------------------------------------------------------

class PlayerIn(In):
    name: str = Field(min_length=1, max_length=80, pattern=r"^[^\r\n\t]+$")
    nick: str | None = Field(None, pattern=r"^\S{1,40}$",
                             description="GCG nickname; no spaces. Default: from the name.")


class GameCreate(In):
    players: list[PlayerIn] = Field(min_length=2, max_length=2)
    rules: str = Field("naspa", description="Rule profile: naspa, naspa-csw, nsa, wespa, box.")
    lang: str = Field("en", description="Tile set: en, de, fr, es, pl, en-super.")
    layout: str = Field("standard", description="Board layout: standard, super.")
    meta: dict[str, str] = Field(default_factory=dict, description="GCG pragmas: title, description, lexicon, ...")


class PlayersIn(In):
    players: list[PlayerIn] = Field(min_length=2, max_length=2)


class PlayIn(In):
    position: str = Field(description="GCG coordinate: '8D' across, 'D8' down.", examples=["8D"])
    word: str = Field(min_length=1,
                      description="As in GCG: lower case for blanks, '.' or (..) for played-through tiles.",
                      examples=["QUALM"])
    player: int | None = Field(None, ge=0, description="Default: the player on turn.")
    claimed: Points | None = Field(None, description="The score the player announced, if any.")
    rack: str | None = None
    note: str = Field("", max_length=2000)


class TurnIn(In):
    player: int | None = Field(None, ge=0, description="Default: the player on turn.")
    rack: str | None = None
    note: str = ""


class ExchangeIn(TurnIn):
    count: int | None = Field(None, ge=1, le=99, description="Tiles exchanged (or give `tiles`).")
    tiles: str | None = Field(None, description="The tiles thrown in, when known.")


class ChallengeIn(In):
    outcome: Literal["phony", "valid"] = Field(
        description="phony: the play comes off. valid: the rule decides (turn lost, bonus, or nothing).")
    words: int | None = Field(None, ge=1, description="Words challenged (for a points rule).")


class TimePenaltyIn(In):
    player: int = Field(ge=0)
    minutes: int = Field(ge=0, le=999, description="Started minutes over time.")


class EndIn(In):
    racks: list[str] | None = Field(
        None, description="Each player's unplayed tiles, when the game ends without a player going out.")
    reason: str = Field("", description="Why the director ends a game that has not ended by the rules.")


class BlankFix(In):
    kind: Literal["blank"]
    square: str = Field(description="The tile's square, e.g. '8H'.")
    letter: str = Field(min_length=1, max_length=2, description="The letter the blank stands for.")
    reason: str = ""


class LetterFix(In):
    kind: Literal["letter"]
    square: str
    letter: str = Field(min_length=1, max_length=2, description="The letter actually on the tile.")
    reason: str = ""


class PlayFix(In):
    kind: Literal["play"]
    position: str
    word: str
    reason: str = ""


class ExchangeFix(In):
    kind: Literal["exchange"]
    count: int = Field(ge=1, le=99)
    tiles: str | None = None
    reason: str = ""


class PassFix(In):
    kind: Literal["pass"]
    reason: str = ""


class ScoreFix(In):
    kind: Literal["score"]
    agreed: Points = Field(description="The score that stands, as ruled.")
    reason: str = ""


CorrectionIn = Annotated[Union[BlankFix, LetterFix, PlayFix, ExchangeFix, PassFix, ScoreFix],
                         Field(discriminator="kind")]


class ScoresheetIn(In):
    player: int = Field(ge=0)
    cumulative: list[int] = Field(description="The running totals on the player's scoresheet, one per turn.")
