"""What the rooms share: the person at the terminal.

- :mod:`.approval` — ``TerminalPerson``: "apply this change?" (apply / edit / regenerate /
  skip, ``--yes``, ``--approve-timeout``) and "run this command?", given to
  :func:`patchwright.agent.solve.solve` by ``run`` and chat (whose front ends answer through
  it); ``read_answer`` also serves the review's checkpoint.

May import: ``agent``, ``config``, ``events``, ``interrupts`` and the leaf packages — no
room of ``modes``, no ``ui``, ``cli`` or ``commands``.
"""
