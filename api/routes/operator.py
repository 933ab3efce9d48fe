"""Operator writes: create games, record turns, challenges, penalties, the end, corrections, and
the game clock (start, press, pause, resume, undo, finish).

Every route needs a bearer token; the token's name is written into each correction.
"""
from __future__ import annotations

from fastapi import APIRouter, Body, Query, Request, status

from tilecam.scoring import DISTRIBUTIONS, get_profile
from tilecam.scoring.gcg import read_gcg, record_from_gcg

from .. import limits as lim
from .. import schemas as s
from ..deps import OnAirDep, OperatorDep, ServiceDep
from ..errors import InvalidInput
from ..service import RacksOnAir

router = APIRouter(prefix="/api/games", tags=["operator"])
# Every write: a missing or unknown token (401, then 429 after many), an unreadable or oversized
# body (400, 413), a refused input (422); on a game: no such game or move (404), a turn that
# cannot follow (409).
WRITE = s.errors(400, 401, 413, 422, 429)
TURN = s.errors(400, 401, 404, 409, 413, 422, 429)


def _written(service, game_id: int, seqs: list[int]) -> s.WriteOut:
    return s.WriteOut(game_id=game_id, seqs=seqs, live=service.live(game_id))


def _detail(service, game_id: int) -> dict:
    return {**service.summary(service.load(game_id)), "links": {"self": f"/api/games/{game_id}"}}


@router.post("", response_model=s.GameDetail, status_code=status.HTTP_201_CREATED, summary="Create a game",
             responses=WRITE,
             description="Players in turn order: two under tournament rules, two to four under box rules "
                         "(more or fewer than the rules allow is a 422 naming the range).")
def create_game(body: s.GameCreate, service: ServiceDep, who: OperatorDep):
    row = service.create_game([(p.name, p.nick) for p in body.players], body.rules, body.lang, body.layout,
                              {**body.meta, "created_by": who})
    return _detail(service, row.id)


@router.post("/gcg", response_model=s.GameDetail, status_code=status.HTTP_201_CREATED, summary="Import GCG",
             description="A whole game from GCG text (the request body, at most "
                         f"{lim.size_text(lim.GCG_BYTES)}), replayed through the rules engine.",
             responses=s.errors(400, 401, 409, 413, 422, 429))
def import_gcg(service: ServiceDep, who: OperatorDep,
               gcg: str = Body(..., media_type="text/plain", max_length=lim.GCG_BYTES),
               rules: str = Query("naspa", max_length=lim.CHOICE_CHARS,
                                  description="Rule profile to replay under."),
               lang: str = Query("en", max_length=lim.CHOICE_CHARS, description="Tile set.")):
    if lang not in DISTRIBUTIONS:
        raise InvalidInput(f"unknown tile set {lang!r}; choose one of {', '.join(DISTRIBUTIONS)}")
    game = read_gcg(gcg)
    if len(game.turns) > lim.GCG_TURNS:
        raise InvalidInput(f"the GCG has {len(game.turns)} turns; a game of at most {lim.GCG_TURNS} is accepted")
    record, _, _ = record_from_gcg(game, get_profile(rules), DISTRIBUTIONS[lang], rules=rules)
    row = service.import_record(record)
    service.set_meta(row.id, {"created_by": who})
    return _detail(service, row.id)


@router.put("/{game_id}/players", response_model=s.LiveOut, summary="Set player names",
            responses=TURN)
def set_players(game_id: int, body: s.PlayersIn, service: ServiceDep, who: OperatorDep):
    return service.set_players(game_id, [(p.name, p.nick) for p in body.players], who)


@router.post("/{game_id}/plays", response_model=s.WriteOut, summary="Record a play", responses=TURN,
             description="Position and word as in GCG: '8D' across or 'D8' down; lower case for "
                         "blanks; '.' or parentheses for tiles already on the board.")
def record_play(game_id: int, body: s.PlayIn, service: ServiceDep, who: OperatorDep):
    seqs = service.play(game_id, body.position, body.word, body.player, body.claimed, body.rack, body.note,
                        engine_stands=body.engine_stands)
    return _written(service, game_id, seqs)


@router.post("/{game_id}/passes", response_model=s.WriteOut, summary="Record a pass", responses=TURN)
def record_pass(game_id: int, body: s.TurnIn, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, service.pass_turn(game_id, body.player, body.rack, body.note))


@router.post("/{game_id}/exchanges", response_model=s.WriteOut, summary="Record an exchange", responses=TURN)
def record_exchange(game_id: int, body: s.ExchangeIn, service: ServiceDep, who: OperatorDep):
    seqs = service.exchange(game_id, body.count, body.tiles, body.player, body.rack, body.note)
    return _written(service, game_id, seqs)


@router.post("/{game_id}/challenges", response_model=s.WriteOut, summary="Record a challenge", responses=TURN,
             description="A challenge of the last play and its outcome under the game's rule: a phony "
                         "comes off; a valid play costs the challenger the turn (double challenge), "
                         "gives the player a bonus per word (5/10-point rule) or nothing (single). With "
                         "three or four players, a challenger who is not next loses their next turn.")
def record_challenge(game_id: int, body: s.ChallengeIn, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, service.challenge(game_id, body.outcome, body.words, body.challenger))


@router.post("/{game_id}/time-penalties", response_model=s.WriteOut, summary="Record an overtime penalty",
             responses=TURN)
def record_time_penalty(game_id: int, body: s.TimePenaltyIn, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, service.time_penalty(game_id, body.player, body.minutes))


@router.post("/{game_id}/end", response_model=s.WriteOut, summary="Final racks and the end of the game",
             responses=TURN,
             description="After a player goes out: the rack points the rules give (give `racks` when two "
                         "or more opponents still hold tiles). After the scoreless turns that end a game: "
                         "each player's rack (give `racks`). Before either: the director ends the game.")
def end_game(game_id: int, body: s.EndIn, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, service.end(game_id, body.racks, body.reason, who))


# ---- the game clock: what the clock buttons do, from the console ----------------------------
CLOCK = s.errors(400, 401, 404, 409, 413, 422, 429)


def _station_trigger(request: Request, game_id: int):
    """The trigger path of a recorder in this process when it records this game (the buttons'
    path: clock first, then the recorder hears whose turn ended; it takes the press as JSON,
    api/station/triggers.py:from_http); None otherwise."""
    on_trigger = getattr(request.app.state, "on_trigger", None)
    status_of = getattr(request.app.state, "status", None)
    if on_trigger is None or status_of is None or status_of().get("game_id") != game_id:
        return None
    return on_trigger


@router.post("/{game_id}/clock", response_model=s.LiveOut, status_code=status.HTTP_201_CREATED,
             summary="Start a game clock", responses=CLOCK,
             description="A clock for the game under its rules (25 minutes per player under naspa, nsa and "
                         "wespa; box games give `minutes`). It runs from the first press. 409 if the game "
                         "has one or is over. The clock is kept in the game's table log: a restart keeps it.")
def start_clock(game_id: int, body: s.ClockStartIn, service: ServiceDep, who: OperatorDep):
    service.start_clock(game_id, body.minutes)
    return service.live(game_id)


@router.post("/{game_id}/clock/press", response_model=s.LiveOut, summary="Press the clock", responses=CLOCK,
             description="As a clock button: the player's turn ends and the next player's clock starts "
                         "(the first press starts the first player's). When a recorder in this process "
                         "records the game, it hears whose turn ended, as from the buttons. 409: the "
                         "player's clock is not running, the clock is paused, or the game is over.")
def press_clock(game_id: int, body: s.ClockPressIn, request: Request, service: ServiceDep, who: OperatorDep):
    service.game_clock(game_id)  # no clock: 404 before anything
    station = _station_trigger(request, game_id)
    if station is not None:
        station({"kind": "turn_end", "player": body.player})  # the press as the buttons make it
    else:
        service.clock_press(game_id, body.player)
    return service.live(game_id)


@router.post("/{game_id}/clock/pause", response_model=s.LiveOut, summary="Pause the clock", responses=CLOCK,
             description="Stops the running clock (a director's call, a challenge adjudicated). 409 if it is "
                         "not running.")
def pause_clock(game_id: int, service: ServiceDep, who: OperatorDep):
    service.clock_pause(game_id, True)
    return service.live(game_id)


@router.post("/{game_id}/clock/resume", response_model=s.LiveOut, summary="Resume the clock",
             responses=CLOCK, description="Restarts the paused clock. 409 if it is not paused.")
def resume_clock(game_id: int, service: ServiceDep, who: OperatorDep):
    service.clock_pause(game_id, False)
    return service.live(game_id)


@router.post("/{game_id}/clock/undo", response_model=s.LiveOut, summary="Take back the last press",
             responses=CLOCK,
             description="As holding a clock button: the last press is taken back and the presser's clock "
                         "runs again, charged from their press on. The record is not changed.")
def undo_clock(game_id: int, body: s.ClockUndoIn, service: ServiceDep, who: OperatorDep):
    service.clock_undo(game_id, body.player)
    return service.live(game_id)


@router.post("/{game_id}/clock/finish", response_model=s.WriteOut, summary="Stop the clock, enter overtime",
             responses=CLOCK,
             description="The game is over: the clock stops for good and each player's overtime goes into "
                         "the record as a time penalty (per started minute, under the game's rules), once. "
                         "Ending the game (`/end`) does this too.")
def finish_clock(game_id: int, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, service.clock_finish(game_id))


@router.post("/{game_id}/moves/{index}/corrections", response_model=s.WriteOut, summary="Correct a move",
             responses=TURN,
             description="Appends a Correction naming the move and the operator token: designate a blank, "
                         "fix a misread letter, re-enter a play, turn a pass into an exchange (or back), "
                         "or rule the score that stands. Later scores are recomputed.")
def correct_move(game_id: int, index: int, body: s.CorrectionIn, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, [service.correct(game_id, index, body, who)])


@router.post("/{game_id}/corrections/{seq}/undo", response_model=s.WriteOut, summary="Undo a correction",
             responses=TURN,
             description="Appends a Correction that puts the move back as it stood before the correction "
                         "logged as `seq` (the `seq` of a correction in `/recount` or the `.json` log); the "
                         "log is never rewritten. Only a move's latest correction can be undone (422 "
                         "otherwise: undo the later one first).")
def undo_correction(game_id: int, seq: int, body: s.UndoIn, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, [service.undo_correction(game_id, seq, who, body.reason)])


@router.post("/{game_id}/moves/{index}/void", response_model=s.WriteOut, summary="Void (undo) a move",
             responses=TURN,
             description="Appends a Void naming the move and the operator token; the log is never rewritten. "
                         "The record, the GCG export and the recount stand as if the move had never been "
                         "made. The last move can always be voided; an earlier one only when no later move "
                         "depends on it (409 naming the move that does: void from the last backwards). A "
                         "Void is final: enter the move again instead of voiding a void.")
def void_move(game_id: int, index: int, body: s.VoidIn, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, [service.void(game_id, index, who, body.reason, body.seq)])


def _racks_out(service, game_id: int, on_air: RacksOnAir) -> s.RacksOut:
    # with scoring's flags (a play not from its rack) and every read its trust finds unsure
    operator = on_air.operator   # the operator's: live racks, slots marked
    reads = service.rack_reviews(game_id, operator.trust)
    live = service.live(game_id, operator)
    return s.RacksOut(game_id=game_id, current=live.racks, reads=[r.to_out(game_id, operator.trust) for r in reads],
                      review=[r.seq for r in reads if r.review])


@router.get("/{game_id}/racks", response_model=s.RacksOut, summary="The rack cameras' reads (operator)",
            responses=s.errors(401, 404, 409, 422, 429),
            description="Every settled read of the rack cameras, oldest first, with its certainty, its evidence "
                        "frame and the operator's confirmation or fix; `review` lists those waiting for one "
                        "(a tile under the review threshold, or flagged by scoring: a play not from the rack). "
                        "Live: the operator sees every rack, whatever is on air.")
def rack_reads(game_id: int, service: ServiceDep, who: OperatorDep, on_air: OnAirDep):
    return _racks_out(service, game_id, on_air)


@router.post("/{game_id}/racks/{seq}/confirm", response_model=s.RacksOut, summary="Confirm or fix a rack read",
             responses=TURN,
             description="One click: the read `seq` is right as read (no body, or no `tiles`), or the rack is "
                         "`tiles` (left to right, '?' a blank). Recorded in the game's rack log under the "
                         "operator token's name; the read leaves the review list. 404: no such read; 422: tiles "
                         "not of the game's set.")
def confirm_rack(game_id: int, seq: int, service: ServiceDep, who: OperatorDep, on_air: OnAirDep,
                 body: s.RackConfirmIn = Body(default_factory=s.RackConfirmIn)):
    service.confirm_rack(game_id, seq, body.tiles, who)
    return _racks_out(service, game_id, on_air)
