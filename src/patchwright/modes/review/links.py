"""Which code files a failing test points at.

A test that crashes inside the code names it in its traceback. A test that fails in its own
assertion does not, so the names its function body uses are looked up among the code's
definitions instead — the test function's own names, not its module's, so that one test
module about three functions does not point every failure at every file — and of those,
the names its module imports (``from shop.pricing import apply_discount``), when it imports
any of them: a method the test calls on a path or a process (``read_text``, ``run``) would
otherwise point at whichever files define one of that name. A name defined in many files
says little and is left out.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Mapping, Sequence

from patchwright.agent.relations.related_tests import traced_files
from patchwright.agent.relations.suspects import names_in_test
from patchwright.index import FileSymbols
from patchwright.verify import TestRun

MAX_DEFINERS = 2  # a name defined in more files than this points nowhere


def failing_test_links(
    run: TestRun,
    files: Sequence[str],
    symbols: Mapping[str, FileSymbols],
    texts: Mapping[str, str],
) -> dict[str, set[str]]:
    """For each failing test, the files of ``files`` it points at (possibly none)."""
    traced = traced_files(run, files)
    definers: dict[str, set[str]] = defaultdict(set)
    for path in files:
        for d in symbols[path].definitions if path in symbols else []:
            definers[d.name].add(path)
    links: dict[str, set[str]] = {}
    for test_id in sorted(run.failing):
        found = set(traced.get(test_id, ()))
        case = run.cases.get(test_id)
        if not found and case is not None and case.path:
            names = names_in_test(test_id, texts.get(case.path, ""))
            imported = (names or set()) & imported_names(texts.get(case.path, ""))
            names = imported or names
            if names is None and case.path in symbols:
                names = set(symbols[case.path].references)
            for name in names or ():
                if len(definers.get(name, ())) <= MAX_DEFINERS:
                    found |= definers.get(name, set())
        links[test_id] = found
    return links


def imported_names(text: str) -> set[str]:
    """The names a module binds by importing (``from m import a as b``: ``b``; ``import a.b``:
    ``a``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names
