"""Go: ``gofmt -l`` per file (lint) and ``go vet ./...`` per module (types).

``gofmt`` reads each text from stdin, old and new alike; a file gofmt would change is one
problem, with ``gofmt -d``'s diff as its detail. ``go vet`` type-checks every package of the
module and runs its analyzers; its findings and the compiler's errors are problems
(``vet`` and ``compile``), paths relative to the repository. A ``go`` that cannot load the
module at all (``go: ...`` with no file named: a dependency missing from the module cache
offline, a broken ``go.mod``) gives no verdict.
"""

from __future__ import annotations

import re
from pathlib import Path

from patchwright.verify.context import GateContext
from patchwright.verify.model import Problem
from patchwright.verify.tools import ToolBroken, tail, unusable, with_continuations

_VET_LINE = re.compile(r"^(vet: )?(\S+?\.go):(\d+)(?::\d+)?: (.+)$")
_GO_ERROR = re.compile(r"^(?:go: |go build |build |cannot find |no required module|pattern )")


NOT_FORMATTED = "not formatted as gofmt formats it"


def gofmt_problems(ctx: GateContext, gofmt: str, path: str, text: str) -> list[Problem]:
    """What ``gofmt`` says of ``text`` (the content of ``path``)."""
    result = ctx.sandbox.run([gofmt, "-l"], stdin=text, cwd=ctx.root, timeout=60)
    if why := unusable("gofmt", result):
        raise ToolBroken(why)
    if result.exit_code != 0:
        said = result.stderr.strip().splitlines()
        first = said[0].replace("<standard input>", path) if said else "gofmt failed"
        line = re.search(rf"{re.escape(path)}:(\d+)", first)
        return [Problem("lint", path, int(line.group(1)) if line else None, "gofmt", first)]
    if not result.stdout.strip():
        return []
    diff = ctx.sandbox.run([gofmt, "-d"], stdin=text, cwd=ctx.root, timeout=60)
    detail = tail(diff.stdout.replace("<standard input>", path), 30, 1500)
    return [Problem("lint", path, None, "gofmt", NOT_FORMATTED, detail)]


def vet_problems(ctx: GateContext, go: str, tree: Path, module: str) -> list[Problem]:
    """``go vet ./...`` in ``tree/module``; problems with paths relative to ``tree``."""
    cwd = tree / module
    result = ctx.sandbox.run([go, "vet", "./..."], cwd=cwd, timeout=ctx.test_timeout)
    if why := unusable("go vet", result):
        raise ToolBroken(why)
    problems: list[Problem] = []
    seen: set[tuple[str, int, str]] = set()
    loose: list[str] = []
    for line in with_continuations(result.stderr + "\n" + result.stdout, _VET_LINE):
        m = _VET_LINE.match(line)
        if m is None:
            if _GO_ERROR.match(line):
                loose.append(line)
            continue
        rel = (Path(module) / m.group(2)).as_posix().removeprefix("./")
        rel = rel.replace("/./", "/")
        key = (rel, int(m.group(3)), m.group(4))
        if key in seen:
            continue
        seen.add(key)
        code = "compile" if m.group(1) else "vet"
        problems.append(Problem("types", rel, int(m.group(3)), code, m.group(4).strip()))
    if result.exit_code not in (0, None) and not problems:
        said = "; ".join(loose) or tail(result.stderr, 4, 600)
        raise ToolBroken(f"go vet exited {result.exit_code}: {said}")
    return problems
