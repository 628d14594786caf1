"""Which file an edit that names none belongs to — only when the answer is unambiguous.

Small models often drop the path line. A SEARCH/REPLACE block belongs to the one shown
file that contains its SEARCH text (compared line by line, ignoring indentation and
trailing spaces). A bare code block belongs to the one shown file whose every top-level
function and class it defines again and whose every top-level import it keeps (so an
illustrative snippet is never taken for a whole file). A bare block of definitions only —
"the corrected function", as a small model sends it, perhaps with a new helper — belongs to
the one shown file that defines one of its names (at the top level, or as a lone method; the
new ones are appended) and already has its other statements (a Go, Rust or JavaScript file: whose imports it may add to); it is then
read as those definitions changed (:mod:`~patchwright.edits.dropped`).
Anything else stays unassigned and the model is asked to name the file.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from patchwright.edits.brace_defs import definitions, family_of
from patchwright.edits.dropped import DEFS, merge_definitions, readable, replaceable
from patchwright.edits.types import Edit

_TOP_LEVEL = re.compile(r"^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)", re.M)
_IMPORT = re.compile(r"^(?:import|from)\s+\S.*$", re.M)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _contains(text: str, search: str) -> bool:
    needle, hay = _lines(search), _lines(text)
    if not needle:
        return False
    first = needle[0]
    return any(hay[i : i + len(needle)] == needle for i, line in enumerate(hay) if line == first)


def owner_of_search(edit: Edit, shown: Mapping[str, str] | None) -> str | None:
    """The single shown file that contains ``edit``'s SEARCH text, else None."""
    if not shown or edit.kind != "replace" or not edit.search.strip():
        return None
    owners = [path for path, text in shown.items() if _contains(text, edit.search)]
    return owners[0] if len(owners) == 1 else None


def owner_of_whole(block: str, shown: Mapping[str, str] | None) -> str | None:
    """The single shown file whose top-level names the block all defines, else None."""
    if not shown:
        return None
    defined = set(_TOP_LEVEL.findall(block))
    imports = {line.strip() for line in _IMPORT.findall(block)}
    owners = []
    for path, text in shown.items():
        names = set(_TOP_LEVEL.findall(text))
        kept = {line.strip() for line in _IMPORT.findall(text)} <= imports
        if names and names <= defined and kept:
            owners.append(path)
    return owners[0] if len(owners) == 1 else None


def owner_of_definitions(block: str, shown: Mapping[str, str] | None) -> str | None:
    """The single shown file that ``block`` — definitions only — changes, else None."""
    owners = [path for path, text in (shown or {}).items() if _changes(path, text, block)]
    return owners[0] if len(owners) == 1 else None


def _changes(path: str, text: str, block: str) -> bool:
    """Whether ``block``, definitions only, changes the file ``path`` (``text``)."""
    if family_of(path) is not None:
        names = {s.name for s in definitions(path, block) if s.depth == 0}
        defined = replaceable(text, path) or set()
        return bool(names & defined) and merge_definitions(text, block, path) is not None
    if not path.endswith((".py", ".pyi")):
        return False
    source = readable(block)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    names = {n.name for n in tree.body if isinstance(n, DEFS)}
    others = [n for n in tree.body if not isinstance(n, DEFS)]
    if not names or any(not isinstance(n, (ast.Import, ast.ImportFrom)) for n in others):
        return False
    known = replaceable(text)
    kept = all((ast.get_source_segment(source, n) or "?") in text for n in others)
    return known is not None and bool(names & known) and kept
