"""Front ends that drive the modes and listen to their events: the terminal UI and the web
dashboard. Heavy packages (textual, starlette, uvicorn) are imported only when one starts."""
