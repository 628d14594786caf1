"""What a benchmark repository is: its files, and the defects planted in them.

Each defect says how it is judged (``check``: the test id that must pass, the ruff code or
the mypy message that must be gone from ``path``), which definition must survive the fix
(``keep``: a fix may not delete the function) and how a person would fix it (``fix``: one
exact replacement in ``path``, used by the no-model sanity check, never shown to a model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["test", "lint", "types"]


@dataclass(frozen=True)
class Defect:
    name: str
    kind: Kind
    path: str  # the file it is planted in
    check: str  # the test id, the ruff code, or the mypy message that must be gone
    keep: str  # the definition that must still exist
    fix: tuple[str, str] = ("", "")  # (old, new): the hand fix, exactly once in ``path``
    tool_fixable: bool = False  # one of ruff's safe fixes: the review's tools fix it
    also: tuple[str, ...] = ()  # other tests the defect fails (its fix makes them pass)


@dataclass(frozen=True)
class Fixture:
    name: str  # the --fixture choice and the repository's folder name
    package: str  # what mypy checks
    files: dict[str, str]
    defects: list[Defect]
    about: str  # one line for the report

    def fixed_text(self, defects: list[Defect]) -> dict[str, str]:
        """The files with the hand fixes of ``defects`` applied (each must apply once)."""
        files = dict(self.files)
        for defect in defects:
            old, new = defect.fix
            text = files[defect.path]
            if not old or text.count(old) != 1:
                raise ValueError(f"{self.name}: the fix of {defect.name!r} does not apply once")
            files[defect.path] = text.replace(old, new)
        return files
