"""patchwright.modes: what a user runs — one room per workflow. A room builds a
``TaskRequest``, calls :func:`patchwright.agent.solve.solve` and shows its events.

Rooms (independent: none imports another; each is driven by its ``commands/*.py``):

- :mod:`~patchwright.modes.run` — ``patchwright run``: one task from the command line, its
  progress line and its report.
- :mod:`~patchwright.modes.chat` — ``patchwright`` / ``chat``: the REPL (and, through
  ``ui/tui``, the TUI): slash commands, questions, tasks on one loaded model.
- :mod:`~patchwright.modes.review` — ``patchwright review``: the autonomous review-and-improve
  loop.
- :mod:`~patchwright.modes.swebench` — ``patchwright swebench``: SWE-bench instances,
  batches and grading.

Shared by the rooms:

- :mod:`~patchwright.modes.terminal` — the person at the terminal: approving a change or a
  command (``run`` and chat give it to ``solve``; the review's checkpoint reads answers
  through it). It imports no room.

The rooms and ``terminal`` import ``agent`` and the leaf packages below it; nothing here
imports ``ui``, ``cli`` or ``commands`` (the import-linter contracts in ``pyproject.toml``).
"""
