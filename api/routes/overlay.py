"""Pages: the broadcast overlay, one OBS field per page, and the operator console.

The pages are static files; their scripts read the game id (or the table) and the display
options from the URL and follow the game's SSE stream, so they update without a reload. A game
that does not exist yet is not an error here: OBS shows the page's placeholder until it appears.
"""
from __future__ import annotations

from pathlib import Path

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

from .. import schemas as s
from ..errors import InvalidInput, NotFound
from .live import no_delay

STATIC = Path(__file__).resolve().parent.parent / "static"
router = APIRouter(tags=["pages"])


@router.get("/", include_in_schema=False)
def index():
    return RedirectResponse("/operator")


PARTS = ("board", "scores", "last", "unseen", "clocks", "racks")
OPTIONS = """

Options in the query string (the page reads them; the server only checks them, so a typo is a
422 rather than a page that silently ignores it): `scale` (0.25 to 4, default 1), `parts`
(comma-separated: board, scores, last, unseen, clocks, racks; default all; `racks` named shows each
player's empty slots until a rack is on air), `theme` (transparent, dark,
light; default transparent), `rotate` (quarter turns of the board display, clockwise, 0 to 3), `racks` (`off`: no rack is ever sent to
the page) and `broadcast` (the broadcast token: the broadcaster's overlay shows each player's rack
live; without it a rack shows only once the game is over). The page passes both to every API call it
makes, and the server strips what the request may not see from every response the page gets.
A game that does not exist yet shows a calm placeholder, and the page comes alive when it appears."""


def page_options(
        scale: float = Query(1.0, ge=0.25, le=4.0, description="Zoom of the whole page."),
        parts: str = Query(",".join(PARTS), max_length=64,
                           description="The parts to show, comma-separated: " + ", ".join(PARTS) + "."),
        theme: Literal["transparent", "dark", "light"] = Query("transparent", description="Background and colours."),
        rotate: int = Query(0, ge=0, le=3, description="Quarter turns of the board display, clockwise."),
        racks: Literal["on", "off"] | None = Query(None, description="`off`: no rack reaches the page."),
        broadcast: str | None = Query(None, max_length=200, description="The broadcast token: the racks live "
                                                                        "(checked by the API calls the page makes)."),
        racks_delay: str | None = Query(None, include_in_schema=False)) -> None:
    """Checked only: the page's script reads the same query string."""
    no_delay(racks_delay)
    # Checked here rather than by a pattern: a 422 names the part and the valid ones, not a regex.
    unknown = [p for p in parts.split(",") if p not in PARTS]
    if unknown:
        raise InvalidInput(f"query.parts: unknown {', '.join(repr(p) for p in unknown)}; valid: {', '.join(PARTS)}")


def field_options(scale: float = Query(1.0, ge=0.25, le=4.0, description="Zoom of the text."),
                  theme: Literal["transparent", "dark", "light"] = Query("transparent",
                                                                          description="Background and colours."),
                  racks: Literal["on", "off"] | None = Query(None, description="`off`: no rack reaches the page."),
                  broadcast: str | None = Query(None, max_length=200,
                                                description="The broadcast token: the racks live."),
                  racks_delay: str | None = Query(None, include_in_schema=False)) -> None:
    """Checked only: the page's script reads the same query string."""
    no_delay(racks_delay)


PageOptions = Annotated[None, Depends(page_options)]
FieldOptions = Annotated[None, Depends(field_options)]
HTML = {200: {"content": {"text/html": {}}}}


def _possible(game_id: int) -> None:
    """A game not created yet gets the waiting page; an id no game can ever have is a 404."""
    if not 0 < game_id < 2**63:  # SQLite's ids: positive 64-bit integers
        raise NotFound(f"no game {game_id}; game ids are positive")


def _field_page(field: str) -> HTMLResponse:
    html = (STATIC / "field.html").read_text(encoding="utf-8")
    return HTMLResponse(html.replace("{{field}}", field))


# The table pages come before /overlay/{game_id}/{field}, which "/overlay/table/3" would match.
@router.get("/overlay/table/{table}", response_class=FileResponse, summary="Broadcast overlay of a table",
            responses={**HTML, **s.errors(422, json_route=False)},
            description="The overlay of the table's current game (its newest game): it switches to a new "
                        "game at the table without a reload, so an OBS scene is set up once per tournament."
                        + OPTIONS)
def table_overlay_page(table: s.TableNo, options: PageOptions):
    return FileResponse(STATIC / "overlay.html", media_type="text/html")


@router.get("/overlay/table/{table}/{field}", response_class=HTMLResponse, summary="One OBS field of a table",
            responses=s.errors(422, json_route=False),
            description="One field of the table's current game, as `/overlay/{id}/{field}`; `scale` and `theme` "
                        "as on the overlay.")
def table_field_page(table: s.TableNo, field: s.ObsField, options: FieldOptions):
    return _field_page(field)


@router.get("/overlay/{game_id}", response_class=FileResponse, summary="Broadcast overlay",
            responses={**HTML, **s.errors(404, 422, json_route=False)},
            description="Page for an OBS browser source: board, last play highlighted, scores, clocks and "
                        "the unseen pool." + OPTIONS)
def overlay_page(game_id: int, options: PageOptions):
    _possible(game_id)
    return FileResponse(STATIC / "overlay.html", media_type="text/html")


@router.get("/overlay/{game_id}/{field}", response_class=HTMLResponse, summary="One OBS field as a page",
            responses=s.errors(404, 422, json_route=False),
            description="A transparent page showing one field that updates itself over SSE: "
                        + ", ".join(s.OBS_FIELDS) + ". `scale` and `theme` as on the overlay; a placeholder "
                        "(empty) until the game exists.")
def field_page(game_id: int, field: s.ObsField, options: FieldOptions):
    _possible(game_id)
    return _field_page(field)


@router.get("/operator", response_class=FileResponse, summary="Operator console",
            responses={200: {"content": {"text/html": {}}}})
def operator_page():
    return FileResponse(STATIC / "operator.html", media_type="text/html")
