"""The gates' checkers for JavaScript/TypeScript, Go and Rust.

Per file, in the lint gate (the old text checked the same way, from stdin, so only new
problems count): ``node --check`` (ESM or CommonJS as node would load the file), ESLint when
the project configures it (its own ``node_modules/.bin/eslint``), ``gofmt -l``.

Per project, in the types gate: ``tsc --noEmit`` when the project has a ``tsconfig.json`` and
``typescript`` in its ``node_modules``; ``go vet ./...`` for the Go module; ``cargo clippy``
(when installed) or ``cargo check``, ``--all-targets``, for the Rust package or workspace.
A whole-project tool has no per-file old text to read: when it reports problems, the same
tool runs once more on a scratch copy of the tree with the touched files as they were
(:mod:`~patchwright.verify.langs.oldtree`), and only problems that copy did not have block.
A change with no problem costs no second run.

A checker whose tool is not installed leaves a note and checks nothing (the other gates still
run: a test run without the toolchain cannot start either, and says so); one that is installed
but crashes, times out or prints nothing it can read makes its gate ``could_not_run``.
"""

from __future__ import annotations
