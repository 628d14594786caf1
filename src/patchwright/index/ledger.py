"""The symbol ledger (PyOB's ``SYMBOLS.json``) and ripple detection.

The ledger maps each defined name to the file defining it and each file to the defined
names it references. A ripple is a definition that an edit removed or whose signature it
changed; the files referencing it form the cascade queue: they may need edits too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.index.model import Definition, FileSymbols
from patchwright.index.update import parse_file


def ledger(symbols: Mapping[str, FileSymbols]) -> dict[str, dict[str, object]]:
    """``{"definitions": {name: file}, "references": {file: [names]}}`` (PyOB's schema).

    A name defined in several files maps to the first in path order; references list only
    names that some file of the repository defines.
    """
    definitions: dict[str, str] = {}
    for path in sorted(symbols):
        for d in symbols[path].definitions:
            definitions.setdefault(d.name, path)
    references: dict[str, object] = {}
    for path in sorted(symbols):
        names = sorted(n for n in symbols[path].references if n in definitions)
        if names:
            references[path] = names
    return {"definitions": dict(sorted(definitions.items())), "references": references}


def write_ledger(symbols: Mapping[str, FileSymbols], target: Path) -> Path:
    """Write ``SYMBOLS.json`` to ``target`` and return it."""
    target.write_text(json.dumps(ledger(symbols), indent=2, sort_keys=False) + "\n", "utf-8")
    return target


@dataclass(frozen=True)
class Ripple:
    """One definition an edit broke: ``change`` is "removed" or "signature"."""

    name: str
    qualname: str
    change: str
    old_signature: str
    new_signature: str | None
    referenced_by: list[str] = field(default_factory=list)


def _key(d: Definition) -> str:
    return d.qualname or d.name


def _norm(signature: str) -> str:
    return " ".join(signature.split())


def ripples(
    path: str, old_text: str, new_text: str, symbols: Mapping[str, FileSymbols]
) -> list[Ripple]:
    """Definitions of ``path`` that disappeared or changed signature between the two texts,
    each with the other files that reference its name (the cascade queue)."""
    old = {_key(d): d for d in parse_file(path, old_text.encode("utf-8")).definitions}
    new = {_key(d): d for d in parse_file(path, new_text.encode("utf-8")).definitions}
    found: list[Ripple] = []
    for key, before in old.items():
        after = new.get(key)
        if after is not None and _norm(after.signature) == _norm(before.signature):
            continue
        users = sorted(p for p, fs in symbols.items() if p != path and before.name in fs.references)
        found.append(
            Ripple(
                name=before.name,
                qualname=key,
                change="removed" if after is None else "signature",
                old_signature=before.signature,
                new_signature=None if after is None else after.signature,
                referenced_by=users,
            )
        )
    return found


def cascade_queue(found: list[Ripple]) -> list[str]:
    """Files to revisit after an edit, in first-seen order, without duplicates."""
    seen: dict[str, None] = {}
    for ripple in found:
        for p in ripple.referenced_by:
            seen.setdefault(p, None)
    return list(seen)
