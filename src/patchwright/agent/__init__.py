"""patchwright.agent: solving a task with a model — one request, one entry, two strategies.

Follow a task through it:

1. :mod:`.request` — ``TaskRequest``, built in one place (``build_request``) from the
   settings and the command line's ``Overrides``.
2. :mod:`.solve` — ``solve(session, request) -> SolveResult``, the one entry every mode
   calls: ``choose_strategy`` reads the model's catalog entry, ``check_fits`` refuses a
   setting the strategy cannot honour; then it walks :mod:`.task` in order: the repository
   (:mod:`.task.repo`), the groundwork (:mod:`.task.prepare`, :mod:`.task.preflight`), the
   strategy wired (:mod:`.task.pipeline_strategy`, :mod:`.task.agent_strategy`), the
   landing (:mod:`.task.land`, :mod:`.task.commit_message`).
3. :mod:`.session` — ``Session``: the one place that turns ``Settings`` into the model
   (router, caps, keys), the sandbox, the index, the event bus and the usage ledger.
4. What "done" means, decided before the first edit: :mod:`.criterion` (the criterion and its
   verdict) and :mod:`.relations` — which failing tests a task is about, which code a test
   exercises and which tests a file has (Python, JavaScript/TypeScript, Go, Rust), tests
   linked by the lines they ran, the files a traceback names; :mod:`.relevance`.
5. What the model sees: :mod:`.context` (files within a token budget), :mod:`.memory`
   (AGENTS.md and friends), :mod:`.prompts` (the Jinja templates in ``templates/``),
   :mod:`.lang_examples` (the edit prompt's worked example in the code's language),
   :mod:`.edit_format` (the reply format asked for).
6. The change in progress: :mod:`.working_copy` (files held in memory), :mod:`.checker` (gates
   and criterion on a written change), :mod:`.keeping` (approve → the person's own edit →
   re-check → commit the transaction, or hand the change back: one path for both
   strategies).
7. The strategies' solvers, sharing :mod:`.solve_types` (``StrategyResult``, ``Approver``,
   ``Person``, ``Txn``, ``SolveResult``):

   - :mod:`.pipeline_solver` — ``PipelineSolver``: patchwright picks the files, the model
     replies with edits, the loop applies, checks and repairs (small and local models);
   - :mod:`.agent_solver` — ``AgentSolver``: planner → coder → reviewer as a state machine,
     each role run by :mod:`.role_runner` with the tools :mod:`.roles` allows it
     (:mod:`.tools`, plus MCP servers' tools from :mod:`.mcp_tools`), watched by
     :mod:`.stall`.

8. Everything that happened: :mod:`.record`.

May import: the leaf packages (``edits``, ``workspace``, ``sandbox``, ``verify``, ``index``,
``llm``), ``config``, ``events``, ``interrupts`` — never ``modes``, ``ui`` or ``cli``. Inside:
the solvers and :mod:`.keeping` know no request, session or task; nothing but the modes calls
:mod:`.solve` (the import-linter contracts in ``pyproject.toml``).
"""
