"""Data types shared by the edit engine: edits, per-block results, outcomes, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

EditKind = Literal["replace", "create", "delete", "whole"]
BlockStatus = Literal["applied", "already_applied", "failed"]


class EditError(Exception):
    """Base class of every error the edit engine raises."""


class PathResolutionError(EditError):
    """A path written by the model cannot be resolved to exactly one repository file.

    ``candidates`` lists the files it could have meant (empty when none came close).
    """

    def __init__(self, message: str, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.candidates: list[str] = list(candidates or [])


@dataclass(frozen=True)
class Edit:
    """One change the model asked for.

    ``kind`` is ``replace`` (SEARCH → REPLACE; an empty SEARCH creates a file or fills
    an empty one), ``create`` (a new file with ``replace`` as content), ``delete`` or
    ``whole`` (the file's entire new content is ``replace``). ``fmt`` names the reply
    format it came from (``search_replace``, ``xml``, ``udiff``, ``whole``, ...).
    ``hint_line`` is the 1-based line a unified diff hunk claimed; it only breaks ties.
    ``readings`` holds the other (search, replace) splits of a block with several
    ``=======`` lines; the one that fits the file is used (see ``edits.readings``).
    ``continues``: the block follows the previous one with no path of its own, and that
    one could also be read as ending later, this block being text of its REPLACE.
    """

    path: str
    kind: EditKind
    search: str
    replace: str
    fmt: str
    hint_line: int | None = None
    readings: tuple[tuple[str, str], ...] = ()
    continues: bool = False


@dataclass
class ParsedReply:
    """The edits found in a reply, in reply order, and the malformed pieces explained."""

    edits: list[Edit] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class BlockResult:
    """What happened to one edit block (``index`` is its 0-based position in the reply)."""

    index: int
    path: str
    status: BlockStatus
    strategy: str | None = None
    message: str | None = None
    line: int | None = None  # 1-based first line of the match in the file, when known
    closest: str | None = None  # "did you mean" excerpt with line numbers, for failures


@dataclass
class ApplyResult:
    """The result of applying a set of edits all-or-nothing.

    ``new_texts`` holds the new text of every changed file (None = delete it) and is
    empty unless ``ok``. ``notes`` says what the engine did on the model's behalf
    (restored imports, ...).
    """

    ok: bool
    results: list[BlockResult] = field(default_factory=list)
    new_texts: dict[str, str | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[BlockResult]:
        """The blocks that did not apply."""
        return [r for r in self.results if r.status == "failed"]
