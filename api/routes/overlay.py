"""Pages: the broadcast overlay, one OBS field per page, and the operator console.

The pages are static files; their scripts read the game id from the URL and follow
the game's SSE stream, so they update without a reload.
"""
from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

from .. import schemas as s
from ..deps import ServiceDep

STATIC = Path(__file__).resolve().parent.parent / "static"
router = APIRouter(tags=["pages"])


@router.get("/", include_in_schema=False)
def index():
    return RedirectResponse("/operator")


@router.get("/overlay/{game_id}", response_class=FileResponse, summary="Broadcast overlay",
            responses={200: {"content": {"text/html": {}}}, **s.errors(404, 422, json_route=False)},
            description="Transparent page for an OBS browser source: board, last play highlighted, "
                        "scores and the unseen pool.")
def overlay_page(game_id: int, service: ServiceDep):
    service.store.game(game_id)  # unknown game: 404
    return FileResponse(STATIC / "overlay.html", media_type="text/html")


@router.get("/overlay/{game_id}/{field}", response_class=HTMLResponse, summary="One OBS field as a page",
            responses=s.errors(404, 422, json_route=False),
            description="A transparent page showing one field that updates itself over SSE: "
                        + ", ".join(s.OBS_FIELDS) + ".")
def field_page(game_id: int, field: s.ObsField, service: ServiceDep):
    service.store.game(game_id)
    html = (STATIC / "field.html").read_text(encoding="utf-8")
    return HTMLResponse(html.replace("{{field}}", field).replace("{{game_id}}", str(game_id)))


@router.get("/operator", response_class=FileResponse, summary="Operator console",
            responses={200: {"content": {"text/html": {}}}})
def operator_page():
    return FileResponse(STATIC / "operator.html", media_type="text/html")
