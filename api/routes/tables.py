"""Tables: stable URLs across rounds. A game names its table when it is created (meta 'table');
a table's URLs follow its newest game, so an OBS scene is set up once per tournament."""
from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from .. import schemas as s
from ..deps import ServiceDep

router = APIRouter(prefix="/api/tables", tags=["live"])
READ = s.errors(404, 409, 422)


@router.get("/{table}", response_model=s.TableOut, summary="A table's current game", responses=READ,
            description="The newest game created for the table (`\"table\": n` on game creation), with "
                        "every earlier game of the table. 404 until the table has a game.")
def table_summary(table: s.TableNo, service: ServiceDep):
    gid = service.current_game(table)
    games = service.table_games(table)
    detail = {**service.summary(service.load(gid)), "links": {"self": f"/api/games/{gid}"}}
    return s.TableOut(table=table, game_id=gid, games=games, game=detail,
                      links={"live": f"/api/tables/{table}/live", "overlay": f"/overlay/table/{table}",
                             "events": f"/api/games/{gid}/events"})


@router.get("/{table}/live", response_model=s.LiveOut, summary="A table's live state", responses=READ,
            description="The live state of the table's current game (as `/api/games/{id}/live`).")
def table_live(table: s.TableNo, service: ServiceDep):
    return service.live(service.current_game(table))


@router.get("/{table}/fields/{field}", response_class=PlainTextResponse, summary="One OBS field of a table",
            responses=s.errors(404, 409, 422, json_route=False),
            description="For OBS text sources that poll: the field of the table's current game.")
def table_field(table: s.TableNo, field: s.ObsField, service: ServiceDep):
    return PlainTextResponse(service.live(service.current_game(table)).fields[field])
