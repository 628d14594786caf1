"""``patchwright swebench``: SWE-bench instances end to end, in batches, and their grading.

Follow an instance through it:

1. :mod:`.cli` — the flags; :mod:`.instances` — rows chosen from JSONL or parquet.
2. :mod:`.batch` — in process or on Ray (:mod:`.ray`); predictions appended as each
   finishes (:mod:`.outputs`).
3. :mod:`.instance` — ``solve_instance``: one instance end to end.
4. :mod:`.setup` — its directory, checkout (:mod:`.repos`) and environment.
5. :mod:`.tests` — the hidden tests run for the baseline (read by :mod:`.grading`), under
   coverage for :mod:`.sbfl`.
6. :mod:`.localise` — suspects from SBFL, traceback frames and the index (functions as
   spans: :mod:`.code`).
7. :mod:`.propose` — candidates from sampled replies or the gold patch;
   :mod:`.agent_candidates` — from runs of the agent strategy.
8. :mod:`.validate` — shape, allowlist, caps and API guard before any test; :mod:`.tnr` — each
   finalist gated as a transaction, the least churn wins.
9. :mod:`.result` — what the instance produced; :mod:`.eval` — grading predictions the
   official way.

May import: :mod:`patchwright.modes.terminal`, ``agent``, ``envs``, ``config``, ``events`` and
the leaf packages — no other room, no ``ui``, ``cli`` or ``commands``.
"""
