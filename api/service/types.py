"""The game service's types: what the core answers (a game's live state, board, moves, recount,
clock, racks, the tournament's tables) and the corrections it takes.

They are the service's own, so the core never imports the web: the routes send them as JSON as
they are, and api/schemas.py re-exports them beside the web's request models. A field added here
is a field of the HTTP API (tests/api/test_app_schema.py holds the spec to them). The service's
modules import it as `import tilecam.api.service.types as s`: `from . import types` would make the
package (its __init__, which imports them) a dependency, a cycle to tests/test_layers.py.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, Strict

from tilecam.scoring import MAX_PLAYERS, MIN_PLAYERS

from .. import limits as lim

__all__ = ["MAX_PLAYERS", "MIN_PLAYERS", "BlankFix", "BoardOut", "ClockOut", "Coordinate", "CorrectionIn",
           "CorrectionOut", "DiscrepancyOut", "ExchangeFix", "In", "Int", "LastPlayOut", "LearningOut", "LetterFix", "LiveOut",
           "MoveOut", "PassFix", "PlayerOut", "PlayFix", "Points", "Rack", "RackReadOut", "RackShownOut",
           "Reason", "RecountMoveOut", "RecountOut", "RunnerUpOut", "ScoreFix", "ScoresheetOut", "ScoresheetRow",
           "StationOut", "TableRowOut", "TileChangeOut", "TileOut", "TournamentOut", "UnseenOut", "WooglesOut", "Word"]

# Players a game may have (MIN_PLAYERS, MAX_PLAYERS): the rules' number (scoring/rules.py), which
# the request models bound a game's players by.


# A request body (a correction here, every request model of api/schemas.py): an unknown key is refused.
class In(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Every integer a request body takes: a JSON number only. Pydantic's lax mode would take true as 1
# and "3" as 3 ({"minutes": false, "player": 0} was a penalty of 0 minutes). Path and query
# parameters arrive as text and keep plain int.
Int = Annotated[int, Strict()]
# No single event in a real game moves a score by more than this; larger numbers are typos.
Points = Annotated[Int, Field(ge=-9999, le=9999)]
Reason = Annotated[str, Field(max_length=lim.REASON_CHARS)]
Rack = Annotated[str, Field(max_length=lim.RACK_CHARS,
                            description="Tiles, '?' for a blank, '[CH]' for a multi-letter tile.")]
Coordinate = Annotated[str, Field(max_length=lim.POSITION_CHARS)]
Word = Annotated[str, Field(min_length=1, max_length=lim.WORD_CHARS)]


# ---- results ------------------------------------------------------------------

class PlayerOut(BaseModel):
    nick: str
    name: str


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


NUMBER = Field(description="The move's number as people count it, from 1 (index + 1): the recount's, the "
                           "pages' and every message's numbering.")
POSITION = Field(None, description="GCG coordinate of a play, e.g. '8D' across, 'D8' down.")
SHOWN = Field(None, description="A play's main word as people read it: the whole word, played-through tiles "
                                "in parentheses, blanks in lower case, e.g. 'ZE(B)rA'.")
OVER_SET = Field(None, description="A play that puts more of a tile in the record than the set has, in words "
                                   "('the set has 2 V; this play makes 3'); null when the set holds it.")
TAKES_BACK = Field(None, description="A phony withdrawn's: the `index` of the play it takes off the board "
                                     "(a page names that play's word from it); null for any other move.")


class TileChangeOut(BaseModel):
    """One square a runner-up reading changes on the board, against the play as read."""

    square: str = Field(description="The square as the pages write it: column letter, then row ('H11').")
    was: str | None = Field(description="The tile the play as read put there: a letter, lower case for a "
                                        "blank ('?' for one nobody named); null when the play put nothing there.")
    now: str | None = Field(description="The tile the runner-up puts there, the same way; null when it puts "
                                        "nothing there.")


class RunnerUpOut(BaseModel):
    position: str = Field(description="GCG coordinate, e.g. '8D' across, 'D8' down.")
    word: str = Field(description="GCG notation, as a play correction takes it.")
    probability: float
    changes: list[TileChangeOut] = Field(default_factory=list, description=(
        "What taking this reading changes on the board: each square whose tile differs from the play as "
        "read (added, removed or another letter), in board order; for a confirmation that shows it."))
    score: int | None = Field(None, description="What the runner-up would score (null: it does not fit the "
                                                "board as it stands before the play).")


class MoveOut(BaseModel):
    index: int = Field(description="Position among the events (corrections applied).")
    number: int = NUMBER
    seq: int = Field(description="Row of the original entry in the log; corrections name it.")
    player: int
    nick: str
    kind: str
    position: str | None = POSITION
    word: str | None = Field(None, description="The play's main word in GCG notation, for machines: '.' marks "
                                               "played-through tiles.")
    shown: str | None = SHOWN
    text: str = Field(description="The move as people read it, e.g. '8D ZE(B)rA +BE' or 'exchange 4'.")
    takes_back: int | None = TAKES_BACK
    rack: str | None
    claimed: int | None
    engine: int | None
    agreed: int
    cumulative: int
    totals: list[int]
    note: str
    corrected: bool
    frame: bool = Field(description="Whether an evidence frame is stored.")
    blank_undecided: bool = Field(False, description="A play holding a blank whose letter nobody named "
                                                     "(read as '?', or a GCG letter chosen with a note "
                                                     "saying so): fix it with a blank correction.")
    certainty: float | None = Field(None, description="How the camera read the play: the probability that "
                                                      "every new tile is right (null: entered by a person).")
    review: bool = Field(False, description="The camera's reading was under the review threshold "
                                            "(`[decode] review_below`) and no person has corrected or confirmed "
                                            "the move since: on air as read, unconfirmed.")
    doubts: list[str] = Field(default_factory=list, description=(
        "Why the camera sent the play for review, each a word of scoring's Doubt: 'certainty' (under "
        "`[decode] review_below`), 'not_from_rack' (its tiles were not on the rack read before it), 'from_pool' "
        "(no letter read is one the unseen tiles hold), 'unlearned_tile' (a tile not yet learned at this table), "
        "'built_on_doubt' (its words run through a tile of an earlier play under review read in doubt), "
        "'inferred' (seen with other plays at once: its split or order inferred), 'tile_counts' (re-read: more "
        "of a tile read than the set has), 'reread' (re-read from later boards). Empty for a play a person "
        "entered, and in a record kept before the reasons were. A blank nobody named is `blank_undecided`."))
    runner_ups: list[RunnerUpOut] = Field(default_factory=list,
                                            description="Other readings of the same squares, most probable "
                                                        "first: one play correction (position, word) takes one. "
                                                        "None for a play a challenge took back (off the board).")
    turn_inferred: bool = Field(False, description="The camera credited the play to the player on turn: no clock "
                                                   "press said whose turn it was (an exchange or a pass before it "
                                                   "would have gone unseen).")
    out_of_turn: bool = Field(False, description="The move was taken by a player who was not on turn by the "
                                                 "record: a turn before it is missing, or a play is credited "
                                                 "to the wrong player.")
    rack_seq: int | None = Field(None, description="The rack camera's read the move was played from (its seq in "
                                                   "/racks); null without a rack camera, or while racks are not "
                                                   "on air for this request.")
    rack_frame: str | None = Field(None, description="The URL of that read's evidence frame (null: none kept).")


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


class ClockOut(BaseModel):
    """The game clock as of `at`. Pages tick it down themselves from the moment they receive it:
    the running player's time goes down by the time elapsed since; nothing else changes until
    the next update (a press, a pause)."""

    at: float = Field(description="Server time (Unix seconds) the times were measured at.")
    running: int | None = Field(description="Whose clock is running; null when paused, not started or over.")
    on_clock: int | None = Field(description="Whose clock runs, or runs again on resume; null before the "
                                             "first press and after the game.")
    paused: bool
    started: bool = Field(description="The first press starts the first player's clock.")
    finished: bool = Field(description="The game is over and the clock stopped for good.")
    initial_ms: int = Field(description="Time each player started with.")
    remaining_ms: list[int] = Field(description="Each player's time left; negative in overtime.")
    overtime_minutes: list[int] = Field(description="Started minutes over time, per player (0:01 over is 1).")
    penalties: list[int] = Field(description="Points each player loses for overtime now, under the rules "
                                             "(e.g. -10 per started minute).")
    lost_on_time: list[bool] = Field(description="Over the rules' limit (NASPA: more than 10 minutes over).")


class LearningOut(BaseModel):
    """Trust is earned per table (scoring.trust): how far this table's tiles are learned. A camera
    play holding a tile not yet learned goes under review ([decode] learn_table)."""

    seen: int = Field(description="The set's distinct tiles (the blank one of them) learned at this table: "
                                  "confirmed or corrected by a person in a play, or labelled by its tile check.")
    of: int = Field(description="The set's distinct tiles, the blank included (27 for English).")
    confirmed: int = Field(description="Plays of this game a person confirmed or corrected.")
    missing: list[str] = Field(description="The set's tiles not yet learned ('?' the blank), in the set's order.")
    trusted: bool = Field(description="Every tile learned: only a reading's certainty flags a play now.")
    text: str = Field(description="'learning: 23 of 27 tiles seen, 4 plays confirmed', as the pages show it.")


class LastPlayOut(BaseModel):
    """The last play in parts, for a page to draw (`last_text`, the words, is made from them): kept
    by a challenge bonus after it (`bonus`) and by the end's rack points, gone after any other move."""

    player: int = Field(description="The seat (0-based) that played it.")
    position: str = POSITION
    word: str = Field(description="Its main word as people read it ('ZE(B)rA'): `fields.last_word`.")
    score: int = Field(description="The points that stand for it (`agreed`).")
    bonus: int | None = Field(None, description="The challenge bonus the play earned just after it; null without one.")


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
    last_played: LastPlayOut | None = Field(None, description="The last play in parts while `last_text` "
                                                              "says it; null after a pass, an exchange, a "
                                                              "withdrawal, a penalty (and before any play).")
    unseen: str
    unseen_count: int
    bag: int
    values: dict[str, int] = Field(description="Points of each tile of the set.")
    fields: dict[str, str] = Field(description="The OBS text fields by name.")
    blank_undecided: list[int] = Field(default_factory=list,
                                       description="Moves (indexes) holding a blank whose letter nobody "
                                                   "named, for the operator to fix; empty when none.")
    clock: ClockOut | None = Field(None, description="The game clock, while one runs for the game; null "
                                                     "without one.")
    unconfirmed: list[int] = Field(default_factory=list,
                                   description="Moves (indexes) the camera read under the review threshold "
                                               "that nobody has corrected or confirmed yet.")
    last_unconfirmed: bool = Field(False, description="The last move is one of `unconfirmed`: on air as "
                                                      "read, marked unconfirmed.")
    turns: str | None = Field(None, description="What is not sure about whose turn each move was, in words "
                                                "('turns inferred since move 12: no clock press seen'; a move "
                                                "taken out of turn first); null when every turn is sure.")
    turns_inferred: list[int] = Field(default_factory=list,
                                      description="Moves (indexes) the camera credited to the player on turn "
                                                  "without a clock press (MoveOut.turn_inferred).")
    hedge: str | None = Field(None, description="What the scores and the result carry while any turn was inferred "
                                                "('turns inferred at moves 2-12 (no clock press seen): who played "
                                                "which move is a guess'): the overlay shows it, and the `winner`, "
                                                "`spread` and `result` fields end '(turns inferred)'; null when no "
                                                "turn was.")
    out_of_turn: list[int] = Field(default_factory=list,
                                   description="Moves (indexes) taken by a player who was not on turn by the "
                                               "record (MoveOut.out_of_turn).")
    learning: LearningOut | None = Field(None, description="How far this table's tiles are learned (trust is "
                                                           "earned per table); null for a game with no camera play.")
    racks: list[RackShownOut | None] = Field(default_factory=list,
                                             description="Each player's rack from the rack cameras, as far as "
                                                         "the request may see it: null for a rack not seen, "
                                                         "not on air (`racks=off`, [racks] on_air) or seen fewer "
                                                         "than `racks_delay` moves ago.")


class RackShownOut(BaseModel):
    """A player's rack as the last settled read shows it (on air only as the request's policy allows)."""
    player: int
    seq: int = Field(description="The read in the game's rack log.")
    tiles: list[str | None] = Field(description="Left to right; '?' a blank, null a tile not on air: not seen, or "
                                                "(without the operator's token) read under [racks] review_below.")
    text: str = Field(description="The rack as one line: '·' for a tile not on air (not seen, or not sure).")
    slots: list[Literal["sure", "unsure", "unseen"]] = Field(
        description="Per slot: `sure` (on air as read), `unsure` (read under [racks] review_below and not "
                    "confirmed: its letter is left out), `unseen` (the camera could not see it).")
    whole: bool = Field(description="Every slot seen and sure (or confirmed): the whole rack is on air.")
    turn: int = Field(description="Moves the record held when the rack was seen.")
    review: bool = Field(description="Unsure or flagged, and no operator has confirmed it yet.")
    unseen: str = Field(description="What this player cannot see (bag and the other racks), grouped.")
    unseen_count: int | None = None


class RackReadOut(BaseModel):
    """One settled read of a rack camera, with the operator's confirmation or fix."""
    seq: int
    player: int
    t: float = Field(description="The rack camera's time of the read (seconds; never compared with the board's).")
    tiles: list[str | None] = Field(description="As it stands: the operator's tiles once confirmed or fixed.")
    text: str
    slots: list[Literal["sure", "unsure", "unseen"]] = Field(
        description="Per slot, what of it may go on air: `sure`, `unsure` (read under [racks] review_below, not "
                    "confirmed), `unseen` (the camera could not see it). On air whole only when all are `sure`.")
    certainty: list[float | None]
    turn: int
    flag: str | None = Field(None, description="Why scoring flagged it (say, a play not from this rack).")
    review: bool = Field(description="Waiting for the operator: a tile under the review threshold, or flagged.")
    read: list[str | None] = Field(description="As the camera read it (`tiles` differ when scoring took the "
                                                "reader's runner-ups to fit the set's counts).")
    breaks: str | None = Field(None, description="The read breaks the set's counts and no runner-up fits: "
                                                 "what it breaks. Off air until the operator confirms or fixes it.")
    confirmed_by: str | None = None
    fixed: bool = False
    created: str
    frame: str | None = Field(None, description="The URL of its evidence frame.")


class RecountMoveOut(BaseModel):
    index: int
    number: int = NUMBER
    seq: int
    player: int
    kind: str
    position: str | None = POSITION
    shown: str | None = SHOWN
    text: str
    takes_back: int | None = TAKES_BACK
    claimed: int | None
    engine: int | None
    agreed: int
    cumulative: int
    totals: list[int]
    over_set: str | None = OVER_SET


class DiscrepancyOut(BaseModel):
    index: int
    number: int = NUMBER
    seq: int
    player: int
    what: Literal["score", "correction", "tiles"] = Field(
        description="`score`: the claimed score is not the engine's; `correction`: a ruling stands against "
                    "both; `tiles`: the play puts more of a tile in the record than the set has (`over_set`).")
    claimed: int | None
    engine: int | None
    agreed: int
    position: str | None = POSITION
    shown: str | None = SHOWN
    text: str
    over_set: str | None = OVER_SET


class CorrectionOut(BaseModel):
    """A correction or void in the log, with what it changed."""

    seq: int = Field(description="Its own row in the log.")
    target: int = Field(description="The log row of the move it amends or voids: a move's `seq`.")
    index: int | None = Field(description="That move's index in the record as it stands; null once voided.")
    number: int | None = Field(description="That move's number (index + 1); null once voided.")
    kind: Literal["correction", "void"]
    change: str = Field(description="What changed, in words: 'blank at D8 named S', 'score 16 → 20', "
                                    "'play 8D ZE(B)rA → 8D ZEBRA', 'exchange of 3 → 4', 'move 5 voided'.",
                        examples=["blank at D8 named S"])
    by: str = Field(description="Who made it: the operator token's name, or the camera.")
    at: str = Field(description="When it was logged: the store's UTC timestamp (ISO 8601).")
    reason: str
    agreed: int | None = Field(description="A ruling on the score that stands, if the correction is one.")


class WooglesOut(BaseModel):
    """The game's GCG export as a link that opens it in Woogles' editor (scoring.gcg.woogles_link)."""
    game_id: int
    url: str | None = Field(description="https://woogles.io/scrabblecam/callback?gcg= and the GCG export, "
                                        "URL-encoded as encodeURIComponent does; null when Woogles cannot "
                                        "import the game (more than two players).")
    length: int = Field(description="The link's length in characters (0 without one).")
    complete: bool = Field(description="Whether Woogles will mark the game complete as played.")
    why: str | None = Field(description="What Woogles will not take as played, in a sentence; null when complete.")


class RecountOut(BaseModel):
    game_id: int
    players: list[PlayerOut]
    rules: str
    moves: list[RecountMoveOut]
    discrepancies: list[DiscrepancyOut]
    first_discrepancy: DiscrepancyOut | None
    final: list[int]
    corrections: list[CorrectionOut] = Field(default_factory=list, description=(
        "Every correction and void of the log, oldest first; a move's are those whose `target` is its `seq`."))
    turns: str | None = Field(None, description=(
        "Said with the verdict and the totals when any turn was inferred ('turns inferred at moves 2-12 (no clock "
        "press seen): who played which move is a guess'): no discrepancy does not make the result sure; null when "
        "no turn was."))
    camera_plays: int = Field(0, description="Plays the camera read (a `certainty`), as the record stands.")
    unconfirmed: int = Field(0, description=(
        "Of those, how many no person has confirmed or corrected since (scoring.amend.confirmed): scores that "
        "agree with the engine are the engine's sums of what the camera read, not a check of it; the recount "
        "page says it with the verdict ('18 of 24 camera plays were never confirmed by a person')."))


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


class StationOut(BaseModel):
    """The station that forwards a table's game to this central service (game meta "station",
    "station_heard_at")."""

    name: str = Field(description="The station's name (its `[tournament] station`).")
    heard_at: float | None = Field(description="When this service last heard from the station (Unix "
                                               "seconds); null when its meta holds no readable time.")
    silent_s: float | None = Field(description="Seconds since then, as of the response's `at`.")
    stale: bool = Field(description="Not heard from for longer than `[tournament] stale_after_s` (or never) "
                                    "while the table's game is live; a station switched off once its game "
                                    "ended is not stale.")
    url: str | None = Field(None, description="The station's own address, as its heartbeat gives it ([tournament] "
                                              "url); null until it has said.")
    console: str | None = Field(None, description="The station's operator console on this game, where the game "
                                                  "is corrected; null when the station gave no address.")


class TableRowOut(BaseModel):
    """One table of the tournament view: its current game (the newest created for it), as the
    director's page shows it."""

    table: int
    game_id: int = Field(description="The table's current game: the newest game created for the table.")
    games: int = Field(description="How many games the table has had, this one included (its round, when "
                                   "every round is one game).")
    players: list[str] = Field(description="The players' names, in seat order.")
    scores: list[int]
    on_turn: int | None = Field(description="The seat (0-based) on turn; null once the game is over.")
    ended: bool
    result: str = Field(description="'Alice Ames wins by 12' (or 'Tie at 400') once the game is over; empty before.")
    moves: int = Field(description="Events in the record as it stands.")
    last_play: str = Field(description="The last event as the overlay shows it, e.g. 'Alice Ames: 8F ZE(B)rA +44'.")
    last_played: LastPlayOut | None = Field(None, description="The last play in parts (LiveOut.last_played), "
                                                              "for drawing; null when `last_play` says no play.")
    clock: ClockOut | None = Field(None, description="The game clock: one that runs for the game in this "
                                                     "service, or the one its station forwards (as of its "
                                                     "last heartbeat, run down since); null without one.")
    clocks: list[str] = Field(description="Each player's time as m:ss (-m:ss in overtime); empty without a clock.")
    flags: list[Literal["score", "review", "stale", "damaged", "lost", "tileset", "order", "blank", "inferred"]] = Field(
        description="What needs the director: `lost` the station's camera no longer follows the game "
                    "(see `lost`), `tileset` the frames' evidence disagrees with the game's tile set, on "
                    "which every score rests (see `tileset`), `order` a move taken by a player who was not on turn by the record: a "
                    "turn missed or a play credited to the wrong player (see `turns`), `score` a claimed "
                    "score the engine disagrees with (see "
                    "`disagreements`), `review` plays read under the review threshold that nobody has "
                    "confirmed (`review`), `blank` a blank on the board whose letter nobody named (`blanks`), "
                    "`inferred` turns the camera credited to the player on turn without a clock press "
                    "(`turns`), `stale` a station not heard from (`station`), `damaged` a log "
                    "that cannot be replayed (`damaged`). Empty when all is well.")
    turns: str | None = Field(None, description="What is not sure about whose turn each move was, in words "
                                                "(LiveOut.turns): 'turns inferred since move 12: no clock press "
                                                "seen'; null when every turn is sure.")
    blanks: list[int] = Field(default_factory=list, description="Numbers (from 1) of the plays holding a blank "
                                                                "whose letter nobody named.")
    lost: str | None = Field(None, description="What the station's camera sees that the record does not "
                                                "follow (tiles no recorded play explains, no snapshot while hands "
                                                "came and went): the recorder's lost-game alert; null when none.")
    tileset: str | None = Field(None, description="Why the game's tile set is in doubt (umlauts read again and "
                                                   "again on a board whose letter counts are English, say); null "
                                                   "when it is not.")
    disagreements: list[DiscrepancyOut] = Field(
        description="The recount's discrepancies: moves whose claimed score the engine disagrees with, or "
                    "whose standing score is neither.")
    review: list[int] = Field(description="Numbers (from 1, as the recount counts) of the plays under review.")
    learning: LearningOut | None = Field(None, description="How far the table's tiles are learned (LiveOut.learning).")
    station: StationOut | None = Field(description="The station forwarding the game; null for a game "
                                                    "recorded or entered here.")
    damaged: str | None = Field(None, description="Why the stored log cannot be replayed; null for a sound game.")
    links: dict[str, str] = Field(description="recount, replay, operator (the console on this game: for a "
                                              "forwarded game the station's own, absent when the station gave "
                                              "no address), overlay (the table's), live (the table's live state).")


class TournamentOut(BaseModel):
    """Every table with its current game: the director's view (/tournament)."""

    at: float = Field(description="Server time (Unix seconds) the response was made at.")
    stale_after_s: float = Field(description="`[tournament] stale_after_s`: a station silent longer is flagged.")
    tables: list[TableRowOut] = Field(description="By table number.")
    flagged: int = Field(description="How many of `tables` have a flag.")


# ---- corrections: what a correction of a move may say (Writer.correct) ----------

class BlankFix(In):
    kind: Literal["blank"]
    square: Coordinate = Field(description="The tile's square, e.g. '8H'.")
    letter: str = Field(min_length=1, max_length=lim.TILE_CHARS, description="The letter the blank stands for.")
    reason: Reason = ""


class LetterFix(In):
    kind: Literal["letter"]
    square: Coordinate
    letter: str = Field(min_length=1, max_length=lim.TILE_CHARS, description="The letter actually on the tile.")
    reason: Reason = ""


class PlayFix(In):
    kind: Literal["play"]
    position: Coordinate
    word: Word
    reason: Reason = ""


class ExchangeFix(In):
    kind: Literal["exchange"]
    count: Int = Field(ge=1, le=99)
    tiles: Rack | None = None
    reason: Reason = ""


class PassFix(In):
    kind: Literal["pass"]
    reason: Reason = ""


class ScoreFix(In):
    kind: Literal["score"]
    agreed: Points = Field(description="The score that stands, as ruled.")
    reason: Reason = ""


CorrectionIn = Annotated[Union[BlankFix, LetterFix, PlayFix, ExchangeFix, PassFix, ScoreFix],
                         Field(discriminator="kind")]
