"""Shared dependencies as Annotated aliases: the service, the loaded game, the operator's token
(`token_holder`: the one check of a token, for every route that reads one) and the broadcast token
(`broadcast_viewer`, read-only: the racks live), both checked by `_checked` under one back-off."""
from __future__ import annotations

import math
import secrets
from typing import Annotated

from fastapi import Depends, HTTPException, Query, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .bus import Bus, PreviewHub
from .service import GameService, GameView, RacksOnAir
from .settings import Settings, get_settings

SettingsDep = Annotated[Settings, Depends(get_settings)]


def get_service(request: Request) -> GameService:
    return request.app.state.service


def get_bus(request: Request) -> Bus:
    return request.app.state.bus


def get_preview(request: Request) -> PreviewHub:
    return request.app.state.preview


def get_on_air(request: Request) -> RacksOnAir:
    """The rack-on-air rule the app was built with (service.RacksOnAir: built once from the settings)."""
    return request.app.state.racks_on_air


ServiceDep = Annotated[GameService, Depends(get_service)]
BusDep = Annotated[Bus, Depends(get_bus)]
PreviewDep = Annotated[PreviewHub, Depends(get_preview)]
OnAirDep = Annotated[RacksOnAir, Depends(get_on_air)]


def get_game(game_id: int, service: ServiceDep) -> GameView:
    """The game with its corrections applied; unknown ids are a 404 (NotFound)."""
    return service.load(game_id)


GameDep = Annotated[GameView, Depends(get_game)]

_bearer = HTTPBearer(auto_error=False, description="Operator token (docs/api.md, Security).")


def token_holder(request: Request,
                 creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> str | None:
    """The name of the operator token the request carries; None when it carries none (the public view).

    The one check of a token, on every route that reads one (writes through `operator_name`, reads
    that show more to an operator through this): a wrong token is a 401 counted toward the
    address's back-off, and while it lasts any token gets a 429 unchecked, so no route answers a
    guess with a yes or a no. A request without a token is never counted nor held up."""
    if creds is None:
        return None
    return _checked(request, creds.credentials, request.app.state.tokens, "operator token")


def _checked(request: Request, given: str, tokens: dict[str, str], what: str) -> str:
    """The name of the token of `tokens` that `given` is (compared in constant time); a wrong one is
    a 401 counted toward the address's back-off (the one guard, shared by every kind of token),
    and while the back-off lasts any token gets a 429 unchecked."""
    guard = request.app.state.guard
    client = request.client.host if request.client else "unknown"
    wait_s = guard.wait_s(client)
    if wait_s > 0:
        seconds = math.ceil(wait_s)
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS,
                            f"too many wrong tokens; try again in {seconds} s",
                            headers={"Retry-After": str(seconds)})
    found = None
    for name, token in tokens.items():   # every one compared: the time says nothing of which
        if secrets.compare_digest(given.encode(), token.encode()):
            found = name
    if found is not None:
        guard.succeeded(client)
        return found
    guard.failed(client)
    raise HTTPException(status.HTTP_401_UNAUTHORIZED, f"unknown {what}", headers={"WWW-Authenticate": "Bearer"})


TokenDep = Annotated[str | None, Depends(token_holder)]


def broadcast_viewer(request: Request, broadcast: str | None = Query(
        None, max_length=200, description="The broadcast token ([auth] broadcast_token, docs/api.md Security): "
                                          "the broadcaster's overlay sees the racks live with it. It reads racks "
                                          "and nothing else; a wrong one is a 401 counted as a wrong operator "
                                          "token is.")) -> bool:
    """Whether the request carries the broadcast token (`?broadcast=`: an OBS browser source and an
    EventSource send no header). Read-only: it lets a read show the racks live, never a write."""
    if broadcast is None:
        return False
    _checked(request, broadcast, {"broadcast": request.app.state.broadcast_token}, "broadcast token")
    return True


BroadcastDep = Annotated[bool, Depends(broadcast_viewer)]


def operator_name(who: TokenDep) -> str:
    """The name of the token that authorised this write; it is written into corrections."""
    if who is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "writes need 'Authorization: Bearer <token>'",
                            headers={"WWW-Authenticate": "Bearer"})
    return who


OperatorDep = Annotated[str, Depends(operator_name)]
