"""The dashboard's web application: the page, the state, the event stream, the checkpoint.

Everything is read-only except ``POST /api/checkpoint``, which answers the pending checkpoint
(approve or skip) and is accepted only with the run's token (``X-Patchwright-Token`` header,
or ``token`` in the JSON body) — the token printed in the terminal, as Jupyter does. Requests
must name this machine in their ``Host`` header (a page on another site cannot reach the
dashboard through DNS rebinding), and the page allows scripts from itself only.
"""

from __future__ import annotations

import json
import secrets
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from patchwright.modes.review.checkpoint import CheckpointDesk
from patchwright.ui.dashboard.hub import Hub

_STATIC = {"/": ("index.html", "text/html"), "/app.js": ("app.js", "text/javascript"),
           "/style.css": ("style.css", "text/css")}  # fmt: skip
_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}
_DECISIONS = {"apply": "apply", "approve": "apply", "skip": "skip"}
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def _static(name: str, media: str) -> Response:
    body = resources.files("patchwright.ui.dashboard").joinpath("static", name).read_bytes()
    return Response(body, media_type=media, headers=_HEADERS)


def allowed_hosts(host: str) -> list[str]:
    """``Host`` header values to accept: this machine, plus ``host`` when it names another
    address (any, when bound to every interface)."""
    if host in ("0.0.0.0", "::", ""):
        return ["*"]
    return sorted({*LOCAL_HOSTS, host.lower()})


def build_app(hub: Hub, desk: CheckpointDesk, token: str, host: str) -> Starlette:
    async def page(request: Request) -> Response:
        return _static(*_STATIC[request.url.path])

    async def state(request: Request) -> Response:
        return JSONResponse(hub.state.snapshot(), headers=_HEADERS)

    async def events(request: Request) -> Response:
        headers = {**_HEADERS, "X-Accel-Buffering": "no"}
        return StreamingResponse(hub.stream(), media_type="text/event-stream", headers=headers)

    async def checkpoint(request: Request) -> Response:
        try:
            body: Any = json.loads(await request.body() or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return _error(400, 'send a JSON object: {"decision": "apply" | "skip"}')
        given = request.headers.get("x-patchwright-token") or str(body.get("token") or "")
        if not secrets.compare_digest(given.encode(), token.encode()):
            return _error(403, "refused: this needs the token printed in the terminal "
                               "(open the dashboard with the link shown there)")  # fmt: skip
        decision = _DECISIONS.get(str(body.get("decision", "")))
        if decision is None:
            return _error(400, 'decision must be "apply" or "skip"')
        pending = body.get("id")
        why = desk.resolve(decision, by="dashboard",  # type: ignore[arg-type]
                           pending_id=str(pending) if pending else None)  # fmt: skip
        if why is not None:
            return _error(409, why)
        return JSONResponse({"ok": True, "decision": decision}, headers=_HEADERS)

    routes = [Route(path, page) for path in _STATIC]
    routes += [Route("/api/state", state), Route("/api/events", events),
               Route("/api/checkpoint", checkpoint, methods=["POST"])]  # fmt: skip
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts(host))]
    return Starlette(routes=routes, middleware=middleware)


def _error(status: int, message: str) -> Response:
    return JSONResponse({"ok": False, "error": message}, status_code=status, headers=_HEADERS)
