#!/usr/bin/env bash
# uv as this checkout's scripts run it: the one on the PATH, ~/.local/bin/uv (where setup.sh
# and uv's own installer put it), or python3's uv module. Exit 127 when there is none.
if command -v uv >/dev/null 2>&1; then exec uv "$@"; fi
if [ -x "$HOME/.local/bin/uv" ]; then exec "$HOME/.local/bin/uv" "$@"; fi
if python3 -c "import uv" 2>/dev/null; then exec python3 -m uv "$@"; fi
echo "uv is not installed: run make setup (it fetches uv into ~/.local/bin)" >&2
exit 127
