"""``patchwright review``: the autonomous review-and-improve loop (PyOB's, on patchwright's
parts).

Follow an iteration through it:

1. :mod:`.cli` — ``execute``: settings, the session, the live lines, the optional dashboard,
   the report and exit code.
2. :mod:`.loop` — ``run_review``: bootstrap (:mod:`.selfguard` — a repository holding code
   this process runs is frozen in memory by :mod:`.frozen` before the first change, one whose
   tests would import its package from elsewhere refused —, the index, :mod:`.analysis` —
   ANALYSIS.md and SYMBOLS.json —, baseline, :mod:`.findings` with :mod:`.links`, the
   project's import contracts with :mod:`.contracts`), then each iteration.
3. :mod:`.autofix` and :mod:`.toolstep` — first, what the tools fix safely with no model
   (ruff's safe fixes, ``ruff format``, ESLint ``--fix``; helpers in
   :mod:`patchwright.verify.fixers`): every file's fixes in one transaction through the same
   gates and checkpoint, a ``fix(lint)`` commit, bisected when the gates refuse a batch.
   Otherwise :mod:`.targeting` — which file next, and why (the cascade queue first).
4. :mod:`.propose` — one proposal: the prompt (:mod:`.focus`: each finding with its code,
   each failing test with its assertion and the code it runs; :mod:`.formats`: the edit
   format by what the proposal is about), :mod:`.solver` (the pipeline solver taught "nothing
   to change"), :mod:`.checker` (gates widened to dependents, the import contracts, the smoke
   run), :mod:`.checkpoint` (the human answer, terminal or dashboard).
5. :mod:`.settle` — commit, HISTORY.md, the ripples queued; :mod:`.memory` re-synthesises
   MEMORY.md (short model answers through :mod:`.ask`).
6. :mod:`.files` — where the loop's files live; :mod:`.options` — the run's options and
   summary; :mod:`.state` — the live state the dashboard reads.

May import: :mod:`patchwright.modes.terminal`, ``agent``, ``config``, ``events``,
``interrupts``, ``trust_notice`` and the leaf packages — no other room, no ``ui``, ``cli`` or
``commands`` (the dashboard imports the review, not the other way round).
"""
