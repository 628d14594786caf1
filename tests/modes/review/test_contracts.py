"""The project's own checks beyond the gates: where it keeps import-linter contracts, a change
that breaks one is rejected like any new problem, and a change that keeps them is kept."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import PYPROJECT, make_repo
from tests.modes.review.test_review import events, review, sr, user_prompts

Script = Callable[[list[str]], Path]

CONTRACT = """
[tool.importlinter]
root_package = "layers"

[[tool.importlinter.contracts]]
name = "low does not import high"
type = "forbidden"
source_modules = ["layers.low"]
forbidden_modules = ["layers.high"]
"""
LOW = '''"""The low layer."""


def double(x):
    """Twice x."""
    return x + x + 1


def level():
    """Which layer this is."""
    return "low"
'''
HIGH = '''"""The high layer, over the low one."""

from layers.low import double


def quadruple(x):
    """Four times x."""
    return double(double(x))
'''
FILES = {"layers/__init__.py": '"""Two layers."""\n', "layers/low.py": LOW,
         "layers/high.py": HIGH, "pyproject.toml": PYPROJECT + CONTRACT,
         "tests/test_low.py": "from layers.low import double\n\n\ndef test_double():\n"
                              "    assert double(3) == 6\n",
         "README.md": "Layers.\n"}  # fmt: skip
FIX = "    return x + x + 1"


def test_a_change_that_breaks_an_import_contract_is_rejected_and_one_that_keeps_them_kept(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = make_repo(tmp_path / "layers", FILES)
    breaks = sr("layers/low.py", f'{FIX}\n\n\ndef level():\n    """Which layer this is."""\n'
                '    return "low"',
                '    return x * 2\n\n\ndef level():\n    """Which layer this is."""\n'
                '    from layers.high import quadruple\n\n    return "low" if quadruple(1) else ""',
                "Double x; say the layer only when the high one works.")  # fmt: skip
    keeps = sr(
        "layers/low.py",
        '    from layers.high import quadruple\n\n    return "low" if quadruple(1) else ""',
        '    return "low"',
        "Double x; the low layer names itself.",
    )

    code, out = review(repo, script([breaks, keeps, "fix(low): double", "- ok"]), "--iterations",
                       "1", "--yes", "--target", "layers/low.py", "--heal", "1")  # fmt: skip

    assert code == 0, out
    [accepted] = out["accepted"]
    assert accepted["attempts"] == 2 and "return x * 2" in (repo / "layers/low.py").read_text()
    gates = [(e["gate"], e["status"]) for e in events(repo) if e["kind"] == "gate.result"]
    assert [s for g, s in gates if g == "contracts"] == ["failed", "passed"], gates
    assert "pyproject.toml: [broken] low does not import high" in user_prompts(repo)[1]
