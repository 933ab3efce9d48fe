"""What the browser is told and who may guess: security headers on every response, a back-off
for wrong operator tokens, and API docs served from our own files instead of a CDN.

`install_security(app, settings)` wires all three into an app built by `create_app`.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .settings import Settings

# Only our own files: scripts, styles, images, SSE and fetch all come from this origin, and no
# page may be framed. Inline scripts are refused everywhere (the pages load theirs from /static).
# Images may also be blob: URLs, made by our own script from a fetch of this origin: the console's
# rack photos, fetched with the token (a rack under review is on no tokenless URL an <img> can use).
_STRICT_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
               "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
               "frame-ancestors 'none'")
# The OBS overlay pages hold no secret and trigger no write, so two things are relaxed for them:
# OBS applies a browser source's "Custom CSS" by adding a <style> element to the page, which
# style-src 'self' would block, and a broadcaster's own page or tool may frame them.
_OVERLAY_CSP = _STRICT_CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'").replace(
    "frame-ancestors 'none'", "frame-ancestors *")

_COMMON = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer"}
STRICT_HEADERS = {**_COMMON, "content-security-policy": _STRICT_CSP, "x-frame-options": "DENY"}
OVERLAY_HEADERS = {**_COMMON, "content-security-policy": _OVERLAY_CSP}


def headers_for(path: str) -> dict[str, str]:
    """The security headers for a response to `path`: relaxed for overlay pages, strict elsewhere."""
    return OVERLAY_HEADERS if path.startswith("/overlay/") else STRICT_HEADERS


class SecurityHeaders:
    """ASGI middleware adding `headers_for(path)` to every HTTP response that does not set them.

    Plain ASGI rather than BaseHTTPMiddleware, so SSE and MJPEG streams pass through unbuffered."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = headers_for(scope["path"])

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in extra.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)


@dataclass
class _Record:
    failures: int = 0
    last_failure: float = 0.0
    locked_until: float = 0.0


class TokenGuard:
    """Wrong operator tokens per client address. After `max_failures` of them the address must
    wait `initial_s`; each further wrong token after a wait doubles the wait, up to `max_s`.
    A right token, or `max_s` without a wrong one, starts the address again from zero."""

    def __init__(self, max_failures: int, initial_s: float, max_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_failures, self.initial_s, self.max_s = max_failures, initial_s, max_s
        self.clock = clock
        self._clients: dict[str, _Record] = {}
        self._lock = threading.Lock()  # operator_name runs in the threadpool

    def wait_s(self, client: str) -> float:
        """Seconds `client` must still wait before a token of theirs is checked (0: none)."""
        with self._lock:
            record = self._clients.get(client)
            return max(0.0, record.locked_until - self.clock()) if record else 0.0

    def failed(self, client: str) -> None:
        now = self.clock()
        with self._lock:
            record = self._clients.get(client)
            if record is None or now - record.last_failure > self.max_s:
                record = self._clients[client] = _Record()
            record.failures += 1
            record.last_failure = now
            over = record.failures - self.max_failures
            if over >= 0:
                record.locked_until = now + min(self.max_s, self.initial_s * 2 ** min(over, 32))
            if len(self._clients) > 4096:  # many addresses guessing: forget the ones that went quiet
                self._clients = {c: r for c, r in self._clients.items() if now - r.last_failure <= self.max_s}

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)


def _docs_page() -> FileResponse:
    return FileResponse(Path(__file__).with_name("static") / "docs.html", media_type="text/html")


def install_security(app: FastAPI, settings: Settings) -> None:
    """Add the security headers, the token guard (read by `deps.operator_name`), and our own /docs."""
    auth = settings.auth
    app.state.guard = TokenGuard(auth.max_failures, auth.backoff_initial_s, auth.backoff_max_s)
    app.add_middleware(SecurityHeaders)
    # FastAPI's Swagger UI and ReDoc pages load their scripts from a CDN onto this origin, where
    # the operator's token lives: replace them with a page of our own that reads /openapi.json.
    cdn_pages = {app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url} - {None}
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "path", None) not in cdn_pages]
    app.add_api_route("/docs", _docs_page, include_in_schema=False)
