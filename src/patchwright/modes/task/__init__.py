"""One task, end to end — the part every room drives (``run``, chat's tasks, review's
workspace, SWE-bench's agent candidates).

Follow a task through it:

1. :mod:`.options` — ``RunOptions`` (what is asked) and ``RunSummary`` (what is reported);
   a leaf: the modules below import it, it imports none of them.
2. :mod:`.runner` — ``run_task``: opens the session and workspace, prepares, chooses and
   runs a strategy, keeps (commits, publishes) or restores, writes the run record.
3. :mod:`.setup` — the session recovered, git state read (``Workspace``), ``RunError``;
   :mod:`.publish` pushes and opens a pull request.
4. :mod:`.prepare` — baseline, criterion, protected tests, gate checker, approver
   (``Prepared``), after :mod:`.preflight` made sure the criterion's commands can start;
   ``Ready`` is a strategy made ready.
5. :mod:`.pipeline_strategy` / :mod:`.agent_strategy` — wire
   :class:`~patchwright.agent.pipeline_solver.PipelineSolver` or
   :class:`~patchwright.agent.agent_solver.AgentSolver` for this task.
6. :mod:`.approval` — the terminal's "apply this change?" and "run this command?".

May import: ``agent``, ``config``, ``events``, ``interrupts``, the leaf packages — no room
of ``modes``, no ``ui``, ``cli`` or ``commands``.
"""
