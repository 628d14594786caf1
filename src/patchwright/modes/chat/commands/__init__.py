"""The chat's slash commands.

1. :mod:`.base` — what a command is (``Command``, ``CommandSet``, ``ChatParts``), and how a
   line names one (``/name args`` or a plain-language phrase).
2. :mod:`.table` — every command, built from the modules it lists, and ``/help``.
3. The command modules, each with its own ``CommandSet``: :mod:`.setup` (/quit, /model,
   /config, /sessions, /ask, /code, /init), :mod:`.context` (/read, /add, /drop, /tokens,
   /clear), :mod:`.changes` (/write, /diff, /undo, /allow-edits), :mod:`.tools` (/exec,
   /test, /index, /log), :mod:`.plan` (/plan, /apply).

A new command: add it to a module's ``CommandSet`` (or a new module, named in
:mod:`.table`). Handlers take ``ChatParts``; they never import the engine.
"""
