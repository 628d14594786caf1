"""The parts of one task that :func:`patchwright.agent.solve.solve` calls, in order.

1. :mod:`.repo` — ``TaskRepo``: git state as the request says, the test command, reading
   files within the repository.
2. :mod:`.prepare` — ``Groundwork``: the baseline, the criterion, the read-only tests, the
   gates — after :mod:`.preflight` made sure the criterion's commands can start.
3. :mod:`.pipeline_strategy` / :mod:`.agent_strategy` — a strategy wired for the task
   (``Wired``): the context, the prompts, the solver with its ``Keeper``.
4. :mod:`.land` — the commit (its message from :mod:`.commit_message`) and its
   publishing, or the change handed back.

May import the rest of ``agent`` (never :mod:`patchwright.agent.solve`, which calls it) and
the leaf packages.
"""
