"""patchwright.agent: solving a task with a model — the composition root, the definition of
done, and the two strategies that edit, check and repair until it is met.

Follow a task through it:

1. :mod:`.session` — ``Session``: the one place that turns ``Settings`` into the model (router,
   caps, keys), the sandbox, the index, the event bus and the usage ledger.
2. What "done" means, decided before the first edit: :mod:`.criterion` (the criterion and its
   verdict), :mod:`.related_tests` and :mod:`.word_forms` (which failing tests a task is about),
   :mod:`.coverage_links` (tests linked by the lines they ran), :mod:`.traceback_refs`,
   :mod:`.relevance`.
3. What the model sees: :mod:`.context` (files within a token budget), :mod:`.memory`
   (AGENTS.md and friends), :mod:`.prompts` (the Jinja templates in ``templates/``),
   :mod:`.edit_format` (the reply format asked for).
4. The change in progress: :mod:`.working_copy` (files held in memory), :mod:`.checker` (gates
   and criterion on a written change).
5. The strategies, sharing :mod:`.solve_types` (``SolveResult``, ``Approver``, ``Txn``):

   - :mod:`.pipeline_solver` — ``PipelineSolver``: patchwright picks the files, the model
     replies with edits, the loop applies, checks and repairs (small and local models);
   - :mod:`.agent_solver` — ``AgentSolver``: planner → coder → reviewer as a state machine,
     each role run by :mod:`.role_runner` with the tools :mod:`.roles` allows it
     (:mod:`.tools`, plus MCP servers' tools from :mod:`.mcp_tools`), watched by
     :mod:`.stall`.

6. After a kept change: :mod:`.commit_message`; everything that happened: :mod:`.record`.

May import: the leaf packages (``edits``, ``workspace``, ``sandbox``, ``verify``, ``index``,
``llm``), ``config``, ``events``, ``interrupts`` — never ``modes``, ``ui`` or ``cli``. Where
the strategies are wired for a run: :mod:`patchwright.modes.task`.
"""
