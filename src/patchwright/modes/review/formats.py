"""The edit format of one proposal, chosen by what it is about.

A proposal is about its target's most serious finding — ``smoke`` (the program crashes
through it), ``tests`` (a failing test points at it), ``types``, ``lint`` — or it is a
``cascade`` update, a review of a file the tools found nothing in (``clean``), or a
``feature``. Which format lands more often may differ by kind (a one-line type fix is a
small SEARCH/REPLACE block; a bug a test catches may need the model to see and rewrite the
whole function), so the choice is a table:

* ``--edit-format`` (or ``[run] edit_format``) other than ``auto`` decides for every
  proposal;
* else ``--edit-format-for KIND=FORMAT`` (repeatable) decides for that kind, for any model;
* else, for a small model (the catalog's ``small``: the embedded ones),
  :data:`SMALL_MODEL_FORMATS` — the one function a failing test or the findings convict
  (``function``, :func:`~patchwright.modes.review.focus.find_flagged`) for ``tests``, ``types`` and
  ``lint``, whole files for the other kinds (Aider measured the Qwen2.5-Coder family at
  100% well-formed whole-file replies); a file
  over ``WHOLE_FILE_MAX_LINES`` lines is asked for as SEARCH/REPLACE blocks all the same;
* else SEARCH/REPLACE (``diff``), as ``auto`` chooses for larger models.

``function`` is asked for only where a suspect is known; without one, whole files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from patchwright.agent.edit_format import FORMATS, WHOLE_FILE_MAX_LINES, EditFormat, choose_format
from patchwright.modes.review.findings import Finding

KINDS: tuple[str, ...] = ("smoke", "tests", "types", "lint", "cascade", "clean", "feature")
SEVERITY: tuple[str, ...] = ("smoke", "tests", "types", "lint")  # a target's most serious first

# The format a small model is asked for, by what the proposal is about. Flip an entry (or
# pass --edit-format-for KIND=diff) to measure the other: benchmarks/review/README.md.
SMALL_MODEL_FORMATS: dict[str, EditFormat] = {
    **dict.fromkeys(KINDS, "whole"),
    **dict.fromkeys(("tests", "types", "lint"), "function"),
}
REVIEW_FORMATS: tuple[str, ...] = (*FORMATS, "function")  # what --edit-format-for accepts


def finding_kind(proposal: str, findings: Sequence[Finding]) -> str:
    """What a proposal of kind ``proposal`` (bug, feature, cascade) about a target with
    ``findings`` is about (one of :data:`KINDS`)."""
    if proposal in ("cascade", "feature"):
        return proposal
    sources = {f.source for f in findings}
    return next((kind for kind in SEVERITY if kind in sources), "clean")


def parse_overrides(pairs: Sequence[str]) -> dict[str, str]:
    """``KIND=FORMAT`` pairs as a table; raises ValueError naming what is wrong."""
    table: dict[str, str] = {}
    for pair in pairs:
        kind, _, fmt = pair.partition("=")
        kind, fmt = kind.strip(), fmt.strip()
        if kind not in KINDS:
            raise ValueError(f"{pair!r}: the kind is one of {', '.join(KINDS)}")
        if fmt not in REVIEW_FORMATS:
            raise ValueError(f"{pair!r}: the format is one of {', '.join(REVIEW_FORMATS)}")
        table[kind] = fmt
    return table


def edit_format(
    requested: str,
    kind: str,
    *,
    small: bool,
    lines: int,
    overrides: Mapping[str, str],
    suspect: bool = False,
) -> EditFormat:
    """The format of one proposal (see the module docstring); ``requested`` is the run's
    edit format, ``lines`` the target's length, ``suspect`` whether the function at fault
    is known."""
    if requested != "auto":
        return choose_format(requested, small, [lines])
    if kind in overrides:
        if overrides[kind] == "function":
            return "function" if suspect else choose_format("auto", small, [lines])
        return choose_format(overrides[kind], small, [lines])
    if not small:
        return choose_format("auto", small, [lines])
    chosen: EditFormat = SMALL_MODEL_FORMATS.get(kind, "whole")
    if chosen == "function" and not suspect:
        chosen = "whole"
    return "diff" if chosen == "whole" and lines > WHOLE_FILE_MAX_LINES else chosen
