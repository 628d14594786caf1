"""Plain data carried between the index modules: definitions, references, file symbols."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Definition:
    """A named definition: ``line``/``end_line`` are 1-based and inclusive."""

    name: str
    kind: str
    path: str
    line: int
    end_line: int
    signature: str
    qualname: str = ""


@dataclass
class FileSymbols:
    """Everything the index knows about one file's code.

    ``references`` maps an identifier used in the file to the (1-based) lines where it occurs
    (at most a few per name: enough to point at, small enough to cache).
    """

    path: str
    language: str
    definitions: list[Definition] = field(default_factory=list)
    references: dict[str, list[int]] = field(default_factory=dict)
    imports: list[str] = field(default_factory=list)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the cache's storage form); written out by hand because
        ``dataclasses.asdict`` deep-copies and was a third of the cold-index time."""
        return {
            "path": self.path,
            "language": self.language,
            "definitions": [
                {
                    "name": d.name,
                    "kind": d.kind,
                    "path": d.path,
                    "line": d.line,
                    "end_line": d.end_line,
                    "signature": d.signature,
                    "qualname": d.qualname,
                }
                for d in self.definitions
            ],
            "references": self.references,
            "imports": self.imports,
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileSymbols:
        """Inverse of ``to_json``."""
        defs = [Definition(**d) for d in data.get("definitions", [])]
        return cls(
            path=data["path"],
            language=data["language"],
            definitions=defs,
            references={k: list(v) for k, v in data.get("references", {}).items()},
            imports=list(data.get("imports", [])),
            error=data.get("error"),
        )


MAX_REF_LINES = 8
