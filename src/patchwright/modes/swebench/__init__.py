"""``patchwright swebench``: SWE-bench instances end to end, in batches, and their grading.

Follow an instance through it:

1. :mod:`.cli` — the flags; :mod:`.instances` — rows chosen from JSONL or parquet.
2. :mod:`.batch` — in process or on Ray (:mod:`.ray`); predictions appended as each
   finishes (:mod:`.outputs`).
3. :mod:`.instance` — ``solve_instance``: one instance end to end.
4. :mod:`.setup` — its directory, checkout (:mod:`.repos`) and environment.
5. The groundwork (:mod:`.checks`: the suspects and what trials run). By default
   :mod:`.fair` — as leaderboards count, nothing of the hidden tests: suspects from the index
   and the issue's tracebacks, the repository's own tests (:mod:`.own_tests`), optionally a
   reproduction test the model writes (:mod:`.reproduce`). With ``--oracle-tests``
   :mod:`.oracle` — the hidden tests at baseline, under coverage for :mod:`.sbfl`; every
   output marked. :mod:`.tests` runs tests and :mod:`.grading` reads their logs.
6. :mod:`.localise` — fusing SBFL, traceback frames and the index (functions as spans:
   :mod:`.code`).
7. :mod:`.propose` — candidates from sampled replies or the gold patch;
   :mod:`.agent_candidates` — from runs of the agent strategy.
8. :mod:`.validate` — shape, allowlist, caps and API guard before any test; :mod:`.tnr` — each
   finalist gated as a transaction with the groundwork's checks; agreement, then the least
   churn, wins.
9. :mod:`.result` — what the instance produced; :mod:`.eval` — grading predictions the
   official way, with the hidden tests.

May import: :mod:`patchwright.modes.terminal`, ``agent``, ``envs``, ``config``, ``events`` and
the leaf packages — no other room, no ``ui``, ``cli`` or ``commands``.
"""
