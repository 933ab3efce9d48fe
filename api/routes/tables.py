"""Tables: stable URLs across rounds. A game names its table when it is created (meta 'table');
a table's URLs follow its newest game, so an OBS scene is set up once per tournament."""
from __future__ import annotations

import re
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import PlainTextResponse

from .. import schemas as s
from ..deps import ServiceDep, SettingsDep
from ..errors import InvalidInput
from .live import RacksDep

router = APIRouter(prefix="/api/tables", tags=["live"])
READ = s.errors(404, 409, 422)
SPAN = re.compile(r"([0-9]{1,4})(?:-([0-9]{1,4}))?")  # ASCII digits: "٣" is no table number


def table_filter(tables: str | None = Query(
        None, max_length=200, examples=["1-20,25"],
        description="Only these tables: numbers and ranges, comma-separated ('1-20,25'); all by default.")
) -> set[int] | None:
    """The tables a director asked for, e.g. one section of the room per laptop."""
    if tables is None:
        return None
    wanted: set[int] = set()
    for part in tables.split(","):
        m = SPAN.fullmatch(part.strip())
        low, high = (int(m[1]), int(m[2] or m[1])) if m else (0, 0)
        if not m or not 1 <= low <= high <= s.MAX_TABLE:
            raise InvalidInput(f"query.tables: {part.strip()!r} is not a table or a range of tables "
                               f"(1 to {s.MAX_TABLE}, low-high, e.g. '1-20,25')")
        wanted.update(range(low, high + 1))
    return wanted


TableFilter = Annotated[set[int] | None, Depends(table_filter)]


@router.get("", response_model=s.TournamentOut, summary="Every table: the tournament view", responses=s.errors(422),
            description="Each table with its current game (the newest created for it): players, scores, who is "
                        "on turn, the last play, the clocks, and flags for the director: a claimed score the "
                        "engine disagrees with, plays under review, a forwarding station not heard from for "
                        "longer than `[tournament] stale_after_s`, a log that cannot be replayed. Cheap to poll: "
                        "each game is replayed again only when its record changes. `/tournament` shows it.")
def tables(only: TableFilter, service: ServiceDep, settings: SettingsDep,
           flagged: bool = Query(False, description="Only the tables with a flag.")):
    return service.tables(settings.tournament.stale_after_s, only, flagged)


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


@router.get("/{table}/live", response_model=s.LiveOut, summary="A table's live state",
            responses=s.errors(401, 404, 409, 422, 429),
            description="The live state of the table's current game (as `/api/games/{id}/live`).")
def table_live(table: s.TableNo, service: ServiceDep, racks: RacksDep):
    return service.live(service.current_game(table), racks)


@router.get("/{table}/fields/{field}", response_class=PlainTextResponse, summary="One OBS field of a table",
            responses=s.errors(401, 404, 409, 422, 429, json_route=False),
            description="For OBS text sources that poll: the field of the table's current game.")
def table_field(table: s.TableNo, field: s.ObsField, service: ServiceDep, racks: RacksDep):
    return PlainTextResponse(service.live(service.current_game(table), racks).fields[field])
