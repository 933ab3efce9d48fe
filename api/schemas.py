"""Request and response models of the HTTP API.

Separate from scoring's dataclasses on purpose: the wire format can grow (GCG
notation, nicknames, running totals) without touching the rules engine. What the game service
answers (live state, board, moves, recount, clock, racks, tables) and the corrections it takes are
its own types (api/service/types.py), re-exported here: the core never imports the web.
"""
from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, Field, Strict, model_validator

from tilecam.scoring.gcg import NICK_MAX

from . import limits as lim
from .service.types import (MAX_PLAYERS, MIN_PLAYERS, BlankFix, BoardOut, ClockOut, Coordinate, CorrectionIn,
                            CorrectionOut, DiscrepancyOut, ExchangeFix, In, Int, LearningOut, LetterFix, LiveOut,
                            MoveOut, PassFix, PlayerOut, PlayFix, Points, Rack, RackReadOut, RackShownOut, Reason,
                            RecountMoveOut, RecountOut, RunnerUpOut, ScoreFix, ScoresheetOut, ScoresheetRow,
                            StationOut, TableRowOut, TileChangeOut, TileOut, TournamentOut, UnseenOut, WooglesOut, Word)

__all__ = ["BATCH_ENTRIES", "ERROR_TEXT", "FORWARDED_META_KEYS", "MAX_PLAYERS", "MIN_PLAYERS", "OBS_FIELDS", "BlankFix", "BoardOut", "ChallengeIn",
           "Choice", "ClockOut", "CorrectionOut", "ClockPressIn", "ClockStartIn", "ClockUndoIn", "Coordinate", "CorrectionIn",
           "DiscrepancyOut", "EndIn", "Error", "errors", "EntriesIn", "EntryIn", "ExchangeFix", "ExchangeIn", "ForwardedClock", "ForwardedGame", "ForwardedPlayer", "GameCreate", "GameDetail",
           "GameSummary", "HeaderIn", "HeartbeatIn", "In", "LearningOut", "LetterFix", "LiveOut", "MoveOut", "Note", "ObsField", "PassFix", "PlayerIn",
           "PlayerNo", "PlayerOut", "Players", "PlayersIn", "PlayFix", "PlayIn", "Points", "Rack", "RackConfirmIn",
           "RackReadOut", "RackShownOut", "RacksOut", "RackForwardIn", "Reason",
           "RecountMoveOut", "RecountOut", "RunnerUpOut", "ScoreFix", "ScoresheetIn", "ScoresheetOut", "ScoresheetRow", "TableNo",
           "StationGames", "StationOut", "TableOut", "TableRowOut", "TileChangeOut", "TileOut", "TournamentOut",
           "TimePenaltyIn", "TurnIn", "UndoIn", "UnseenOut", "VoidIn", "WooglesOut", "Word", "WriteOut"]

# Field names broadcasters use in Woogles broadcasts and WatchGCG overlays; p3 and p4 for box games
# of three or four players (empty in a two-player game).
# p1_clock ... p4_clock: the game clock as m:ss, -m:ss in overtime (empty without a clock).
# on_turn: the name of the player on turn (empty once the game is over).
# The route parameter's type is the list: one tuple, so the two cannot drift apart.
ObsField = Literal["score", "p1_score", "p2_score", "p3_score", "p4_score", "p1_name", "p2_name", "p3_name",
                   "p4_name", "unseen_tiles", "unseen_count", "last_play", "blank1", "blank2",
                   "p1_clock", "p2_clock", "p3_clock", "p4_clock",
                   "last_word", "vowels_consonants", "winner", "spread", "result", "on_turn",
                   # issue 30: each player's rack as a rack camera read it, and what that player cannot see
                   # (bag and the other racks); empty while a rack is not on air (docs/racks.md)
                   "rack1", "rack2", "rack3", "rack4", "unseen1", "unseen2", "unseen3", "unseen4"]
OBS_FIELDS: tuple[str, ...] = get_args(ObsField)


PlayerNo = Annotated[Int, Field(ge=0, le=lim.MAX_PLAYER)]
Note = Annotated[str, Field(max_length=lim.NOTE_CHARS)]
Choice = Annotated[str, Field(max_length=lim.CHOICE_CHARS)]
# Tables of a tournament: a few hundred at the largest events; more is a typo.
MAX_TABLE = 9999
TableNo = Annotated[int, Field(ge=1, le=MAX_TABLE, description="A table number, 1 up.")]


# ---- errors ---------------------------------------------------------------------
class Error(BaseModel):
    """Every refusal: a 4xx with one message (validation errors too)."""

    detail: str = Field(examples=["no game 7"])


ERROR_TEXT = {
    400: "The body could not be read.",
    401: "No operator token, or an unknown one.",
    404: "No such game, move, turn or frame; the message says which.",
    409: "The turn cannot follow (the game has ended, nothing to challenge, ...), or the stored "
         "log no longer replays.",
    413: "The request body is larger than this route accepts.",
    429: "Too many wrong tokens (operator or broadcast) from this address: wait the Retry-After seconds.",
    422: "Invalid input: the field and the rule it breaks, or the rules engine's reason.",
}


def errors(*codes: int, json_route: bool = True) -> dict[int | str, dict]:
    """`responses=` for a route: each error code with the shared Error model. Routes that answer
    text or HTML pass json_route=False: FastAPI would file a model under the route's own media
    type, but errors are always JSON."""
    if json_route:
        return {code: {"model": Error, "description": ERROR_TEXT[code]} for code in codes}
    schema = {"$ref": "#/components/schemas/Error"}
    return {code: {"description": ERROR_TEXT[code], "content": {"application/json": {"schema": schema}}}
            for code in codes}


# ---- responses ------------------------------------------------------------------

class GameSummary(BaseModel):
    id: int
    damaged: str | None = Field(None, description="Why the stored log cannot be replayed, for a damaged "
                                                  "game (its moves and scores then read 0); null for a "
                                                  "sound one.")
    players: list[PlayerOut]
    rules: str
    lang: str
    layout: str
    created: str
    meta: dict[str, str]
    moves: int = Field(description="Events in the record as it stands (corrections applied).")
    scores: list[int]
    ended: bool
    closed_by: str | None = Field(None, description="Who ended the game before the rules did (a director's "
                                                    "`/end`, the `close` entry of its log); null while it is "
                                                    "open or when the rules ended it.")
    turns: str | None = Field(None, description="Said with the scores when any turn was inferred (LiveOut.hedge): "
                                                "who played which move is a guess; null when no turn was.")
    station: str | None = Field(None, description="On a central service, the station that records this game "
                                                  "and forwards it here: it is corrected at that station, and "
                                                  "every write to it here is a 409. Null for a game recorded here.")
    station_console: str | None = Field(None, description="That station's operator console on this game; null "
                                                          "when the station gave no address ([tournament] url).")


class GameDetail(GameSummary):
    entries: int = Field(description="Rows in the append-only log, corrections included.")
    on_turn: int
    bag: int
    end_reason: str | None
    links: dict[str, str]


class RacksOut(BaseModel):
    game_id: int
    current: list[RackShownOut | None] = Field(description="Each player's latest read, live.")
    reads: list[RackReadOut]
    review: list[int] = Field(description="The seqs of the reads waiting for the operator.")


class WriteOut(BaseModel):
    game_id: int
    seqs: list[int] = Field(description="Log rows written.")
    live: LiveOut


# ---- requests -------------------------------------------------------------------

class PlayerIn(In):
    # One line each: GCG readers also break lines at U+0085, U+2028 and U+2029. A nickname is one
    # GCG token, and ':' ends it.
    name: str = Field(min_length=1, max_length=lim.NAME_CHARS, pattern=r"^[^\r\n\t\v\f\x85\u2028\u2029]+$")
    nick: str | None = Field(None, max_length=lim.NICK_CHARS, pattern=r"^[^\s:]+$",
                             description="GCG nickname: no spaces, no ':'. Default: from the name.")


Players = Annotated[list[PlayerIn], Field(
    min_length=MIN_PLAYERS, max_length=MAX_PLAYERS,
    description="In turn order. Tournament rules (naspa, naspa-csw, nsa, wespa) are for two players; "
                "box rules for two to four.")]


class GameCreate(In):
    players: Players
    rules: Choice = Field("naspa", description="Rule profile: naspa, naspa-csw, nsa, wespa, box.")
    lang: Choice = Field("en", description="Tile set: en, de, fr, es, pl, en-super.")
    layout: Choice = Field("standard", description="Board layout: standard, super.")
    meta: dict[Annotated[str, Field(max_length=lim.META_KEY_CHARS)],
               Annotated[str, Field(max_length=lim.META_VALUE_CHARS)]] = Field(
        default_factory=dict, max_length=lim.META_KEYS,
        description="GCG pragmas: title, description, lexicon, ...")
    table: Annotated[TableNo, Strict()] | None = Field(
        None, description="The table the game is played at: /overlay/table/{n} and /api/tables/{n} follow its "
                          "newest game. Stored in meta as 'table'.")

    @model_validator(mode="after")
    def _table_in_meta(self) -> "GameCreate":
        # One place for the table (meta), so an imported or recorded game names it the same way.
        if self.table is not None:
            if self.meta.get("table", str(self.table)) != str(self.table):
                raise ValueError(f"table {self.table} and meta.table {self.meta['table']!r} differ")
            self.meta["table"] = str(self.table)
        return self


class TableOut(BaseModel):
    """A table and the game it follows now: the newest game created for it."""

    table: int
    game_id: int = Field(description="The table's current game.")
    games: list[int] = Field(description="Every game of the table, oldest first.")
    game: GameDetail
    links: dict[str, str]


class PlayersIn(In):
    players: Players


class PlayIn(In):
    position: Coordinate = Field(description="GCG coordinate: '8D' across, 'D8' down.", examples=["8D"])
    word: Word = Field(description="As in GCG: lower case for blanks, '.' or (..) for played-through tiles, "
                                   "[CH] for a multi-letter tile.", examples=["QUALM"])
    player: PlayerNo | None = Field(None, description="Default: the player on turn.")
    claimed: Points | None = Field(None, description="The score the player announced, if any.")
    engine_stands: bool = Field(False, description=(
        "Keep `claimed` as announced but let the engine's score stand until a score correction "
        "rules otherwise (what the operator console sends: a misannounced score never goes on air)."))
    rack: Rack | None = None
    note: Note = ""


class TurnIn(In):
    player: PlayerNo | None = Field(None, description="Default: the player on turn.")
    rack: Rack | None = None
    note: Note = ""


class ExchangeIn(TurnIn):
    count: Int | None = Field(None, ge=1, le=99, description="Tiles exchanged (or give `tiles`).")
    tiles: Rack | None = Field(None, description="The tiles thrown in, when known.")


class ChallengeIn(In):
    outcome: Literal["phony", "valid"] = Field(
        description="phony: the play comes off. valid: the rule decides (turn lost, bonus, or nothing).")
    words: Int | None = Field(None, ge=1, le=lim.MAX_SIDE + 1,
                              description="Words challenged (for a points rule): the main word and at most "
                                          "one cross-word per tile.")
    challenger: PlayerNo | None = Field(None, description="Who challenged (default: the next player). "
                                                          "Under double challenge a valid play costs them "
                                                          "their next turn.")


class TimePenaltyIn(In):
    player: PlayerNo
    minutes: Int = Field(ge=0, le=999, description="Started minutes over time.")


class ClockStartIn(In):
    minutes: Int | None = Field(None, ge=1, le=180, description="Minutes per player; default: the rules' "
                                                                 "(25 under naspa, nsa, wespa).")


class ClockPressIn(In):
    player: PlayerNo | None = Field(None, description="Who hit their side: their turn ends and the next "
                                                      "player's clock starts. Default: the player on the "
                                                      "clock. The first press starts the first player's clock.")


class ClockUndoIn(In):
    player: PlayerNo | None = Field(None, description="Take back the last press only if it was this "
                                                      "player's (default: whoever made it).")


class EndIn(In):
    racks: list[Rack] | None = Field(
        None, max_length=lim.MAX_PLAYER + 1,
        description="Each player's unplayed tiles, in player order: when the game ends without a player "
                    "going out, or when a player went out and two or more opponents still hold tiles "
                    "(the out-player's entry is empty).")
    reason: Reason = Field("", description="Why the director ends a game that has not ended by the rules.")


class VoidIn(In):
    reason: Reason = ""
    seq: Int | None = Field(None, ge=0, description="The log row the caller believes the move is (from "
                                                    "/moves); if the record changed since, 409 and nothing "
                                                    "is written.")


class UndoIn(In):
    reason: Reason = ""


class RackConfirmIn(In):
    """One click on a rack read: as read (no `tiles`), or fixed."""
    tiles: Rack | None = Field(None, description="The rack as it really is, left to right ('?' a blank); "
                                                 "omit to confirm the read as it is.")


class RackForwardIn(In):
    """One row of a station's rack log (api/station/forwarder.py), at its seq there."""
    seq: Int = Field(ge=0, le=100_000)
    kind: Literal["seen", "confirm"]
    data: dict = Field(description="The row as the station's store keeps it.")
    jpeg: str | None = Field(None, max_length=lim.RACK_INGEST_BYTES, description="Its evidence frame, base64.")


class ScoresheetIn(In):
    player: PlayerNo
    cumulative: list[Annotated[Int, Field(ge=-lim.MAX_TOTAL, le=lim.MAX_TOTAL)]] = Field(
        max_length=lim.MAX_TURNS, description="The running totals on the player's scoresheet, one per turn.")


# ---- stations forwarding to the central service (routes/stations.py, api/service/ingest.py) ----------
BATCH_ENTRIES = 200  # entries per request; a whole game is under 100
FORWARDED_META_KEYS = 40  # a forwarded game's meta: the station's own keys and the tournament's


class ForwardedGame(BaseModel):
    uid: str
    game_id: int = Field(description="The game's id on the central service.")
    next: int = Field(description="The seq the central service expects next: how many entries it holds.")
    frames: list[int] = Field(description="The seqs whose evidence frame it holds.")
    header: str = Field(description="A digest of the players, rules, tile set, layout and meta it holds.")
    racks: int = Field(0, description="The rack log row it expects next: how many rows of the station's rack "
                                      "log (rack camera reads, confirmations) it holds.")


class StationGames(BaseModel):
    station: str
    games: list[ForwardedGame]


class ForwardedPlayer(In):
    name: str = Field(min_length=1, max_length=lim.NAME_CHARS, pattern=r"^[^\r\n\t\v\f\x85\u2028\u2029]+$")
    # As long as the station's store takes (check_nick: a GCG import keeps a liwords nick of 42
    # characters), or such a game would be refused here forever and never forwarded.
    nick: str = Field(min_length=1, max_length=NICK_MAX, pattern=r"^[^\s:]+$")


class HeaderIn(In):
    players: list[ForwardedPlayer] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    rules: Choice
    lang: Choice
    layout: Choice = "standard"
    meta: dict[Annotated[str, Field(max_length=lim.META_KEY_CHARS, pattern=r"^[A-Za-z0-9_-]+$")],
               Annotated[str, Field(max_length=lim.REASON_CHARS, pattern=r"^[^\r\n]*$")]] = Field(
        default_factory=dict, max_length=FORWARDED_META_KEYS)


class EntryIn(In):
    seq: Int = Field(ge=0, le=100_000)
    entry: dict = Field(description="The log entry as the station stores it (scoring.events.to_json).")
    sidecar: dict | None = None


class EntriesIn(In):
    entries: list[EntryIn] = Field(min_length=1, max_length=BATCH_ENTRIES)


DAY_MS = 24 * 3600 * 1000  # no game clock holds more (time left, or overtime)
Ms = Annotated[Int, Field(ge=-DAY_MS, le=DAY_MS)]
Seats = Field(max_length=MAX_PLAYERS)


class ForwardedClock(In):
    """The game clock as the station's live state shows it (ClockOut), with bounds."""
    at: float = Field(ge=0, le=1e11, description="The station's time (Unix seconds) of the times below.")
    running: PlayerNo | None
    on_clock: PlayerNo | None
    paused: bool
    started: bool
    finished: bool
    initial_ms: Ms
    remaining_ms: list[Ms] = Seats
    overtime_minutes: list[Annotated[Int, Field(ge=0, le=24 * 60)]] = Seats
    penalties: list[Points] = Seats
    lost_on_time: list[bool] = Seats


class HeartbeatIn(In):
    games: list[Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")]] = Field(default_factory=list, max_length=16)
    url: str | None = Field(None, max_length=500, pattern=r"^https?://[^\s]+$",
                            description="The station's own address ([tournament] url): /tournament links its "
                                        "operator console, where the game is corrected.")
    game: Int | None = Field(None, ge=1, le=2**53, description="The station's own id of the first game "
                                                                 "named (its console's ?game=).")
    clock: ForwardedClock | None = Field(None, description="The first game's clock as the station shows it; "
                                                           "absent: the game has no clock.")
