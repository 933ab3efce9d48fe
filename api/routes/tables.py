"""Tables: stable URLs across rounds. A game names its table when it is created (meta 'table');
a table's URLs follow its newest game, so an OBS scene is set up once per tournament."""
from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from .. import schemas as s
from ..deps import ServiceDep
from ..errors import NotFound
from ..service import GameService

router = APIRouter(prefix="/api/tables", tags=["live"])
READ = s.errors(404, 409, 422)


def table_games(service: GameService, table: int) -> list[int]:
    """The games created for a table, oldest first (ids grow with creation)."""
    return sorted(row.id for row in service.games() if row.meta.get("table") == str(table))


def current_game(service: GameService, table: int) -> int:
    games = table_games(service, table)
    if not games:
        raise NotFound(f"no game at table {table} yet")
    return games[-1]


@router.get("/{table}", response_model=s.TableOut, summary="A table's current game", responses=READ,
            description="The newest game created for the table (`\"table\": n` on game creation), with "
                        "every earlier game of the table. 404 until the table has a game.")
def table_summary(table: s.TableNo, service: ServiceDep):
    gid = current_game(service, table)
    games = table_games(service, table)
    detail = {**service.summary(service.load(gid)), "links": {"self": f"/api/games/{gid}"}}
    return s.TableOut(table=table, game_id=gid, games=games, game=detail,
                      links={"live": f"/api/tables/{table}/live", "overlay": f"/overlay/table/{table}",
                             "events": f"/api/games/{gid}/events"})


@router.get("/{table}/live", response_model=s.LiveOut, summary="A table's live state", responses=READ,
            description="The live state of the table's current game (as `/api/games/{id}/live`).")
def table_live(table: s.TableNo, service: ServiceDep):
    return service.live(current_game(service, table))


@router.get("/{table}/fields/{field}", response_class=PlainTextResponse, summary="One OBS field of a table",
            responses=s.errors(404, 409, 422, json_route=False),
            description="For OBS text sources that poll: the field of the table's current game.")
def table_field(table: s.TableNo, field: s.ObsField, service: ServiceDep):
    return PlainTextResponse(service.live(current_game(service, table)).fields[field])
