"""Reading games: list, detail, board at any turn, moves, unseen tiles, exports, recount."""
from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse

from .. import limits as lim
from .. import schemas as s
from ..deps import GameDep, ServiceDep
from .live import RACKS_DOC, RacksDep

router = APIRouter(prefix="/api/games", tags=["games"])
# A game id that names no game is a 404; a log that no longer replays, a 409.
READ = s.errors(404, 409, 422)
# a read that shows more to an operator token: a wrong token is a 401, then 429 (api/deps.token_holder)
TOKEN_READ = s.errors(401, 404, 409, 422, 429)


@router.get("", response_model=list[s.GameSummary], summary="List games",
            description="Every game in the store, oldest first, with its current scores. A game whose "
                        "log no longer replays is listed with `damaged` (the reason) and no scores, "
                        "so one bad game never hides the others.")
def list_games(service: ServiceDep):
    return service.summaries()


# The suffixed exports come before /{game_id} so that "7.gcg" is not read as an id.
@router.get("/{game_id}.gcg", response_class=PlainTextResponse, summary="GCG export",
            responses=s.errors(401, 404, 409, 422, 429, json_route=False),
            description="The record as GCG (UTF-8), loadable by Quackle, macondo and Woogles, sent as a "
                        "download named for the date and the players (`2026-11-25_Cesar_vs_Josh.gcg`). "
                        "Corrections are applied; a lost turn is written as a pass with a note; '#title' "
                        "names the players (and the event), '#description' the date and table. A move whose "
                        "rack is not on air for this request is written as a rack nobody saw (the play's own "
                        "tiles, or stand-ins, with a '#note rack not seen' line). " + RACKS_DOC)
def export_gcg(game: GameDep, service: ServiceDep, racks: RacksDep):
    return PlainTextResponse(service.gcg(game, racks), media_type="text/plain; charset=utf-8",
                             headers={"Content-Disposition": attachment(service.gcg_filename(game))})


# Latin letters Unicode does not decompose into a base letter and a mark.
_NO_DECOMPOSITION = str.maketrans({"Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d", "ß": "ss",
                                   "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Þ": "Th", "þ": "th"})


def attachment(name: str) -> str:
    """Content-Disposition for a download: an ASCII `filename` every browser reads and, for a name
    beyond ASCII (José, Łukasz), the UTF-8 `filename*` of RFC 5987 that modern ones prefer."""
    plain = unicodedata.normalize("NFKD", name.translate(_NO_DECOMPOSITION)).encode("ascii", "ignore").decode()
    plain = re.sub(r"[^A-Za-z0-9._-]+", "_", plain).strip("_") or "game.gcg"
    header = f'attachment; filename="{plain}"'
    if plain != name:
        header += f"; filename*=UTF-8''{quote(name, safe='')}"
    return header


@router.get("/{game_id}/woogles", response_model=s.WooglesOut, summary="Open in Woogles", responses=TOKEN_READ,
            description="The GCG export as a link that opens it in Woogles' editor "
                        "(`https://woogles.io/scrabblecam/callback?gcg=`, the GCG URL-encoded), and whether "
                        "Woogles will mark the game complete as played (`why` says what it will not take: "
                        "the end racks not seen, the game not over). The GCG's racks as the export's: " + RACKS_DOC)
def woogles(game: GameDep, service: ServiceDep, racks: RacksDep):
    return service.woogles(game, racks)


@router.get("/{game_id}.json", summary="JSON record", responses=TOKEN_READ,
            description="The whole record: the game, the append-only log (corrections included, "
                        "each with its kind tag) and the events as they stand; a rack not on air for this "
                        "request is null in the log and the events. " + RACKS_DOC)
def export_json(game: GameDep, service: ServiceDep, racks: RacksDep) -> dict:
    return service.record_json(game, racks)


@router.get("/{game_id}", response_model=s.GameDetail, summary="Game detail", responses=READ)
def game_detail(game: GameDep, service: ServiceDep):
    gid = game.row.id
    links = {k: f"/api/games/{gid}{v}" for k, v in
             {"board": "/board", "moves": "/moves", "unseen": "/unseen", "recount": "/recount",
              "live": "/live", "events": "/events"}.items()}
    links |= {"gcg": f"/api/games/{gid}.gcg", "json": f"/api/games/{gid}.json", "overlay": f"/overlay/{gid}",
              "woogles": f"/api/games/{gid}/woogles"}
    return {**service.summary(game), "links": links}


@router.get("/{game_id}/board", response_model=s.BoardOut, summary="Board at a turn", responses=READ,
            description="The board after `turn` events (default: all), with the last play's squares.")
def board(game: GameDep, service: ServiceDep,
          turn: int | None = Query(None, ge=0, le=lim.MAX_TURN_INDEX,
                                   description="Events to replay; 0 is the empty board.")):
    return service.board(game, turn)


@router.get("/{game_id}/moves", response_model=list[s.MoveOut], summary="Moves with scores", responses=TOKEN_READ,
            description="Every event with its claimed, engine and agreed score and the running totals, and the "
                        "rack it was played from (the event's, and the rack camera's read with its evidence "
                        "frame). A move's rack is on air as its rack read is: " + RACKS_DOC)
def moves(game: GameDep, service: ServiceDep, racks: RacksDep):
    return service.moves(game, racks)


@router.get("/{game_id}/unseen", response_model=s.UnseenOut, summary="Unseen tiles", responses=READ,
            description="Tiles not on the board (bag plus racks), or, given a player's rack, "
                        "what that player cannot see.")
def unseen(game: GameDep, service: ServiceDep, turn: int | None = Query(None, ge=0, le=lim.MAX_TURN_INDEX),
           rack: str = Query("", max_length=lim.RACK_CHARS,
                             description="The viewing player's rack, '?' for a blank.")):
    return service.unseen(game, turn, rack)


@router.get("/{game_id}/recount", response_model=s.RecountOut, summary="Recount report", responses=TOKEN_READ,
            description="Claimed vs engine vs agreed score per move, and the first discrepancy.")
def recount(game: GameDep, service: ServiceDep, racks: RacksDep):
    return service.recount(game, racks)


@router.post("/{game_id}/recount", response_model=s.ScoresheetOut, summary="Compare a scoresheet",
             responses=s.errors(400, 404, 409, 413, 422),
             description="A player's scoresheet (running totals, one per turn) against the record; "
                         "reports the first turn where they part.")
def compare_scoresheet(body: s.ScoresheetIn, game: GameDep, service: ServiceDep):
    return service.scoresheet(game, body.player, body.cumulative)
