"""Per-test outcomes from the runners of other languages: how a test command is run so that it
reports each test, and how that report is read.

``plan_for(root, cmd, scratch)`` recognises the runner behind a test command — node's
(``node --test``), jest, vitest, mocha (directly, through ``npx``, or through a
``package.json`` script run by npm, pnpm, yarn or bun), ``go test`` and ``cargo test`` — and
returns a :class:`Plan`: the command actually run (the same command plus reporter options),
extra environment, and the reader that fills the ``TestRun``'s cases. pytest has its own
junit path in :mod:`patchwright.verify.testrun`; any other command gets a plan that reads
nothing (judged by exit code).

Test ids follow pytest's ``path::name`` form, with the path relative to the repository so
that a baseline taken in another checkout (``patchwright check`` exports HEAD) compares:

| runner | id |
|---|---|
| node, jest, vitest, mocha | ``test/calc.test.js::describe::test name``; a file that fails to load: ``test/calc.test.js`` |
| go | ``pkg/calc_test.go::TestAdd`` (``TestAdd/sub`` for subtests); a package that fails to build: ``pkg::[build]``, or fails outside its tests: ``pkg::[package]`` |
| cargo | ``src/lib.rs::tests::adds``, ``tests/it.rs::works``, doc tests ``src/lib.rs::add (doc test)``; a crate that fails to compile: ``crates/a::[build]`` |
"""

from __future__ import annotations

from pathlib import Path

from patchwright.verify.runners import cargotest, gotest, js
from patchwright.verify.runners.plan import Plan

__all__ = ["Plan", "plan_for"]


def plan_for(root: Path, cmd: str, scratch: Path) -> Plan:
    """The plan for ``cmd`` run in ``root``; reports go under ``scratch`` (a folder the
    sandboxed command may write)."""
    for make in (gotest.plan, cargotest.plan, js.plan):
        found = make(root, cmd, scratch)
        if found is not None:
            return found
    return Plan(cmd)
