"""Specification of two small rules the review applies before and around a proposal: where
the project says it uses ``ruff format`` (so the tool step may format its files), and which
code the prompt shows around a finding's line."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwright.modes.review.autofix import FileFix, ruff_format_rule
from patchwright.modes.review.findings import Finding
from patchwright.modes.review.focus import code_around, shown_findings


@pytest.mark.parametrize(
    ("name", "text", "rule"),
    [
        ("pyproject.toml", "[tool.ruff.format]\nquote-style = 'single'\n",
         "pyproject.toml [tool.ruff.format]"),
        ("ruff.toml", "line-length = 100\n[format]\n", "ruff.toml [format]"),
        (".ruff.toml", "[format]\n", ".ruff.toml [format]"),
        ("Makefile", "fmt:\n\truff format src\n", "Makefile runs ruff format"),
        (".pre-commit-config.yaml", "hooks:\n  - id: ruff-format\n",
         ".pre-commit-config.yaml runs ruff format"),
        (".github/workflows/ci.yml", "run: ruff format --check .\n",
         ".github/workflows/ci.yml runs ruff format"),
    ],
)  # fmt: skip
def test_the_project_says_it_formats_with_ruff(
    tmp_path: Path, name: str, text: str, rule: str
) -> None:
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    assert ruff_format_rule(tmp_path) == rule


def test_ruff_as_a_linter_only_is_no_reason_to_format(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n[tool.ruff.lint]\n")
    (tmp_path / "Makefile").write_text("lint:\n\truff check .\n")
    (tmp_path / "docs.yml").write_text("run: ruff format\n")  # not a workflow folder
    assert ruff_format_rule(tmp_path) is None


def test_an_unreadable_configuration_is_no_reason_either(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b"\xff\xfe[tool.ruff.format]")
    assert ruff_format_rule(tmp_path) is None


def test_a_fix_names_its_tools_and_the_rules_ruff_fixed() -> None:
    fix = FileFix("a.py", "old", "new", ("ruff --fix", "ruff format"), ("F401", "I001"))
    assert fix.describe() == "a.py: ruff --fix (F401, I001); ruff format"
    assert FileFix("b.js", "o", "n", ("eslint --fix",)).describe() == "b.js: eslint --fix"


CODE = '''"""Module."""

LIMIT = 3


class Cart:
    def add(self, item):
        self.items.append(item)

    def total(self):
        return sum(self.items)
'''


def test_a_line_outside_the_text_shows_nothing() -> None:
    assert code_around(CODE, 0) == [] and code_around(CODE, 99) == []


def test_a_module_level_line_shows_its_neighbours_marked() -> None:
    assert code_around(CODE, 3) == ['  1 | """Module."""', "  2 |", "> 3 | LIMIT = 3", "  4 |"]


def test_a_method_is_shown_whole_not_its_whole_class() -> None:
    assert code_around(CODE, 11) == [
        "  10 |     def total(self):",
        "> 11 |         return sum(self.items)",
    ]


def test_only_the_first_few_findings_come_with_their_code() -> None:
    found = [Finding("m.py", 3, "lint", f"E{i}", "x") for i in range(8)]
    shown = shown_findings(found, CODE)
    assert ["\n" in s for s in shown] == [True] * 6 + [False] * 2
