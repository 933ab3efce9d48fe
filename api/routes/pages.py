"""Pages for after the fact: the recount a director prints, and the replay a player steps through;
and the director's view of every table during the round (/tournament).

Static files like the overlay: their scripts read the game id from the URL and build the page
from the public JSON routes (recount, moves, board), so the pages hold no data of their own.
"""
from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

from ..deps import ServiceDep
from .tables import TableFilter

STATIC = Path(__file__).resolve().parent.parent / "static"
router = APIRouter(tags=["pages"])


@router.get("/recount/{game_id}", include_in_schema=False)
def recount_page(game_id: int, service: ServiceDep):
    service.game(game_id)  # unknown game: 404 with its message, not an empty page
    return FileResponse(STATIC / "recount.html", media_type="text/html")


@router.get("/replay/{game_id}", include_in_schema=False)
def replay_page(game_id: int, service: ServiceDep):
    service.game(game_id)
    return FileResponse(STATIC / "replay.html", media_type="text/html")


@router.get("/favicon.ico", include_in_schema=False)
def favicon():
    """The tab's icon (a tile), which every browser asks for at this path (api/static/favicon.ico)."""
    return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon",
                        headers={"Cache-Control": "public, max-age=86400"})


@router.get("/tournament", include_in_schema=False)
def tournament_page(only: TableFilter, flagged: bool = False):
    """The director's view of every table. `?tables=1-20` and `?flagged=true` are checked here (a
    typo is a 422, not a page that quietly shows every table); the script passes them on to /api/tables."""
    return FileResponse(STATIC / "tournament.html", media_type="text/html")
