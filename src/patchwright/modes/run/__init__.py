"""``patchwright run``: one task from the command line.

1. :mod:`.cli` — ``execute``: settings and flags into ``RunOptions``, the approval check,
   signals, then :func:`patchwright.modes.task.runner.run_task`; the report and exit code.
2. :mod:`.progress` — the live status line, fed by the run's events and streamed tokens.

May import: :mod:`patchwright.modes.task`, ``agent``, ``config``, ``events``,
``interrupts``, ``trust_notice`` and the leaf packages — no other room, no ``ui``, ``cli`` or
``commands``.
"""
