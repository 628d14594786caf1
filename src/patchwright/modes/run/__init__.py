"""``patchwright run``: one task from the command line.

1. :mod:`.cli` — ``execute``: settings and the typed flags (``Overrides``) into a
   ``TaskRequest``, the approval check, signals, the session, then
   :func:`patchwright.agent.solve.solve`; the report and exit code.
2. :mod:`.progress` — the live status line, fed by the run's events and streamed tokens.

May import: :mod:`patchwright.modes.terminal`, ``agent``, ``config``, ``events``,
``interrupts``, ``trust_notice`` and the leaf packages — no other room, no ``ui``, ``cli`` or
``commands``.
"""
