"""Operator writes: create games, record turns, challenges, penalties, the end, and corrections.

Every route needs a bearer token; the token's name is written into each correction.
"""
from __future__ import annotations

from fastapi import APIRouter, Body, Query, status

from tilecam.scoring.gcg import read_gcg, record_from_gcg
from tilecam.scoring.rules import get_profile
from tilecam.scoring.tiles import DISTRIBUTIONS

from .. import limits as lim
from .. import schemas as s
from ..deps import OperatorDep, ServiceDep
from ..errors import InvalidInput

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
    service.store.update_game(row.id, meta={"created_by": who})
    return _detail(service, row.id)


@router.put("/{game_id}/players", response_model=s.LiveOut, summary="Set player names",
            responses=TURN)
def set_players(game_id: int, body: s.PlayersIn, service: ServiceDep, who: OperatorDep):
    return service.set_players(game_id, [(p.name, p.nick) for p in body.players], who)


@router.post("/{game_id}/plays", response_model=s.WriteOut, summary="Record a play", responses=TURN,
             description="Position and word as in GCG: '8D' across or 'D8' down; lower case for "
                         "blanks; '.' or parentheses for tiles already on the board.")
def record_play(game_id: int, body: s.PlayIn, service: ServiceDep, who: OperatorDep):
    seqs = service.play(game_id, body.position, body.word, body.player, body.claimed, body.rack, body.note)
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


@router.post("/{game_id}/moves/{index}/corrections", response_model=s.WriteOut, summary="Correct a move",
             responses=TURN,
             description="Appends a Correction naming the move and the operator token: designate a blank, "
                         "fix a misread letter, re-enter a play, turn a pass into an exchange (or back), "
                         "or rule the score that stands. Later scores are recomputed.")
def correct_move(game_id: int, index: int, body: s.CorrectionIn, service: ServiceDep, who: OperatorDep):
    return _written(service, game_id, [service.correct(game_id, index, body, who)])
