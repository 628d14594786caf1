"""The review loop's live web dashboard (Starlette + uvicorn + server-sent events).

board = serve(state, desk, host="127.0.0.1", port=8765)
print(board.url)  # the link carries the token approve/skip need
...
board.close()
"""

from __future__ import annotations

from patchwright.ui.dashboard.server import DashboardServer, serve

__all__ = ["DashboardServer", "serve"]
