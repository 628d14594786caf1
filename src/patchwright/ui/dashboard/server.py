"""Serving the dashboard from a background thread while the review loop runs in the main one.

The socket is bound here, before the server starts, so that a port in use is an error the
user sees at once (with what to do), and ``--port 0`` gets a free port whose number is known.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time

from patchwright.agent.request import RunError
from patchwright.modes.review.checkpoint import CheckpointDesk
from patchwright.modes.review.state import ReviewState
from patchwright.ui.dashboard.app import build_app
from patchwright.ui.dashboard.hub import Hub

START_TIMEOUT = 10.0


class DashboardServer:
    """The running dashboard: ``url`` (with the token), ``token``, ``close()``."""

    def __init__(self, state: ReviewState, desk: CheckpointDesk, *, host: str = "127.0.0.1",
                 port: int = 8765, token: str | None = None) -> None:  # fmt: skip
        import uvicorn

        self.token = token or secrets.token_urlsafe(18)
        self.hub, self.desk = Hub(state), desk
        self._socket = _bind(host, port)
        self.port = int(self._socket.getsockname()[1])
        app = build_app(self.hub, desk, self.token, host)
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                timeout_graceful_shutdown=2)  # fmt: skip
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, args=([self._socket],),
                                        name="patchwright-dashboard", daemon=True)  # fmt: skip
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started and self._thread.is_alive():
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        if not self._server.started:
            self.close()
            raise RunError(f"the dashboard did not start on {host}:{self.port}")
        shown = f"[{host}]" if ":" in host else host
        self.base = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{self.port}"
        self.url = f"{self.base}/?token={self.token}"
        desk.remote = True

    def close(self) -> None:
        self.desk.remote = False
        self.hub.close()
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._socket.close()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise RunError(f"the dashboard cannot listen on {host}:{port} ({exc.strerror}); "
                       "pass --port with another number, or --port 0 for any free one") from exc  # fmt: skip
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def serve(state: ReviewState, desk: CheckpointDesk, *, host: str = "127.0.0.1",
          port: int = 8765, token: str | None = None) -> DashboardServer:  # fmt: skip
    """Start the dashboard for a review run (see :class:`DashboardServer`)."""
    return DashboardServer(state, desk, host=host, port=port, token=token)
