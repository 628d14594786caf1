"""patchwright.modes: what a user runs — one room per workflow, and the task they all drive.

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

- :mod:`~patchwright.modes.task` — one task end to end (options → workspace → baseline and
  criterion → strategy → keep or restore); ``run``, ``chat``, ``review`` and ``swebench``
  use its parts. It imports no room.

The rooms and ``task`` import ``agent`` and the leaf packages below it; nothing here imports
``ui``, ``cli`` or ``commands`` (the import-linter contracts in ``pyproject.toml``).
"""
