"""Tool fixes before the model: ruff's safe fixes and ``ruff format`` become review proposals
with no model call — the same gates, checkpoint, commit and HISTORY.md —, every file's fixes
in one transaction; a fix that breaks a test is rolled back and left to the model, which is
asked only about what the tools could not fix."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import PYPROJECT, make_repo
from tests.modes.review.test_review import events, review, review_file, sr, user_prompts

Script = Callable[[list[str]], Path]

RUFF = PYPROJECT + '\n[tool.ruff.lint]\nselect = ["E", "F"]\n'
LEVELS = '''"""Stock levels: what is left after the sales."""

import os
import sys


def left(have, sold):
    """Units left after selling ``sold`` of ``have``."""
    return have - sold


def is_unknown(level):
    """True when the level was never counted."""
    return level == None
'''
LEVELS_TEST = """from stock.levels import is_unknown, left


def test_left():
    assert left(5, 2) == 3


def test_unknown():
    assert is_unknown(None) and not is_unknown(0)
"""
STOCK = {"README.md": "Stock levels for a small shop.\n", "pyproject.toml": RUFF,
         "stock/__init__.py": '"""Stock levels."""\n', "stock/levels.py": LEVELS,
         "tests/test_levels.py": LEVELS_TEST}  # fmt: skip


def model_calls(repo: Path, out: dict[str, Any]) -> int:
    requests = [e for e in events(repo) if e["kind"] == "model.request"]
    assert out["usage"]["calls"] == len(requests), out["usage"]
    return len(requests)


def ruff_codes(repo: Path) -> list[str]:
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "json", "."],
        cwd=repo, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return sorted(item["code"] for item in json.loads(run.stdout))


def test_an_unused_import_is_fixed_by_ruff_with_no_model_call_committed_and_recorded(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = make_repo(tmp_path / "stock", STOCK)

    code, out = review(repo, script([]), "--iterations", "1", "--yes")

    assert (code, out["outcome"]) == (0, "finished"), out
    [fix] = out["accepted"]
    assert (fix["kind"], fix["target"], fix["files"]) == ("lint", "stock/levels.py",
                                                          ["stock/levels.py"])  # fmt: skip
    assert model_calls(repo, out) == 0
    assert fix["commit"] == shop.git(repo, "rev-parse", "HEAD").strip()
    subject = shop.git(repo, "log", "-1", "--format=%s").strip()
    assert subject == "fix(lint): ruff's safe fixes (F401) in stock/levels.py"
    text = (repo / "stock/levels.py").read_text()
    assert "import os" not in text and "import sys" not in text
    assert "level == None" in text  # E711's fix is unsafe: the model's to make
    assert ruff_codes(repo) == ["E711"]
    assert any("F401" in f for f in fix["fixed"]), fix
    history = review_file(repo, "HISTORY.md")
    assert fix["commit"][:12] in history and "· lint ·" in history and "-import os" in history
    assert "tool fixes (no model)" in review_file(repo, "MEMORY.md")
    gates = {e["gate"]: e["status"] for e in events(repo) if e["kind"] == "gate.result"}
    assert (gates["lint"], gates["tests"]) == ("passed", "passed"), gates
    assert shop.git(repo, "status", "--porcelain").strip() == ""


def test_the_model_is_then_asked_only_about_what_the_tools_could_not_fix(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = make_repo(tmp_path / "stock", STOCK)
    fix = sr("stock/levels.py", "    return level == None", "    return level is None",
             "Compare with None by identity.")  # fmt: skip

    code, out = review(repo, script([fix, "fix(levels): compare with None by identity", "- ok"]),
                       "--iterations", "2", "--yes", "--focus", "bugs")  # fmt: skip

    assert code == 0, out
    assert [(a["kind"], a["target"]) for a in out["accepted"]] == [
        ("lint", "stock/levels.py"), ("bug", "stock/levels.py")]  # fmt: skip
    prompt = user_prompts(repo)[0]
    found = prompt.split("The tools report problems in the function")[1].split("\n\n")[0]
    assert "[lint E711]" in found and "F401" not in found, found
    assert ruff_codes(repo) == []
    assert model_calls(repo, out) == 3  # the proposal, its commit message, the memory


REGISTRY = '''"""Registered plugins."""

PLUGINS = []


def register(name):
    """Add a plugin by name."""
    PLUGINS.append(name)
'''
CSV_PLUGIN = '''"""The CSV plugin: it registers itself when imported."""

from shop.registry import register

register("csv")
'''
APP = '''"""The app: which plugins it has."""

import shop.csv_plugin
from shop.registry import PLUGINS


def plugins():
    """The registered plugins' names."""
    return sorted(PLUGINS)
'''
APP_TEST = """from shop.app import plugins


def test_the_csv_plugin_is_registered():
    assert plugins() == ["csv"]
"""
PRICES = '''"""Prices."""

import json


def gross(net):
    """The price with 20% tax."""
    return round(net * 1.2, 2)
'''


def test_a_fix_that_breaks_a_test_is_rolled_back_while_the_rest_of_the_batch_is_kept(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    files = {"README.md": "A shop with plugins.\n", "pyproject.toml": RUFF,
             "shop/__init__.py": '"""The shop."""\n', "shop/registry.py": REGISTRY,
             "shop/csv_plugin.py": CSV_PLUGIN, "shop/app.py": APP, "shop/prices.py": PRICES,
             "tests/test_app.py": APP_TEST}  # fmt: skip
    repo = make_repo(tmp_path / "plugins", files)
    head = shop.git(repo, "rev-parse", "HEAD").strip()

    code, out = review(repo, script([]), "--iterations", "1", "--yes")

    assert code == 0, out
    assert model_calls(repo, out) == 0
    [kept] = out["accepted"]
    [refused] = out["rejected"]
    assert (kept["kind"], kept["files"]) == ("lint", ["shop/prices.py"])
    assert (refused["kind"], refused["target"]) == ("lint", "shop/app.py")
    assert "test_the_csv_plugin_is_registered" in refused["errors"], refused
    assert (repo / "shop/app.py").read_text() == APP  # the side-effect import is back
    assert "import json" not in (repo / "shop/prices.py").read_text()
    assert shop.git(repo, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    assert shop.git(repo, "status", "--porcelain").strip() == ""
    assert "test_the_csv_plugin_is_registered" in review_file(repo, "FAILED_PEER_REVIEW.md")
    rollbacks = [e for e in events(repo) if e["kind"] == "txn.rollback"]
    assert len(rollbacks) == 2  # the whole batch, then shop/app.py alone
    declined = json.loads((repo / ".patchwright/review/toolfixes.json").read_text())["declined"]
    assert list(declined) == ["shop/app.py"]  # not proposed again at this content


FORMATTED = RUFF.replace('select = ["E", "F"]', 'select = ["E", "F", "I"]') + (
    '\n[tool.ruff.format]\nquote-style = "double"\n'
)
REPORT = '''"""Reports on the stock."""

import sys
from stock.levels import left
import os


def report(have,sold):
    """A one-line report."""
    return 'left: %d' % left(have,sold)
'''


def test_every_tool_fixable_finding_of_the_repository_is_fixed_in_one_transaction(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    levels = LEVELS.replace("import os\nimport sys\n", "import sys\nimport os\n")
    files = {**STOCK, "pyproject.toml": FORMATTED, "stock/levels.py": levels,
             "stock/report.py": REPORT}  # fmt: skip
    repo = make_repo(tmp_path / "stock", files)
    head = shop.git(repo, "rev-parse", "HEAD").strip()

    code, out = review(repo, script([]), "--iterations", "1", "--yes")

    assert code == 0, out
    assert model_calls(repo, out) == 0
    [batch] = out["accepted"]
    assert (batch["target"], batch["files"]) == (".", ["stock/levels.py", "stock/report.py"])
    assert shop.git(repo, "rev-list", "--count", f"{head}..HEAD").strip() == "1"
    message = shop.git(repo, "log", "-1", "--format=%B")
    assert message.startswith("fix(lint): ruff's safe fixes (")
    assert "- stock/report.py: ruff --fix (" in message and "ruff format" in message
    assert ruff_codes(repo) == ["E711"]
    report = (repo / "stock/report.py").read_text()
    assert "def report(have, sold):" in report and '"left: %d"' in report
    assert len([e for e in events(repo) if e["kind"] == "txn.write"]) == 1


def test_eslint_fixes_are_planned_where_the_project_configures_and_installs_eslint(
    tmp_path: Path,
) -> None:
    from tests.conftest import install_node_modules

    from patchwright.modes.review.autofix import ToolFixer
    from patchwright.sandbox import Sandbox
    from patchwright.verify import take_baseline

    calc = "let total = 0;\nexport function add(n) {\n  total += n;\n  let doubled = n * 2;\n  return doubled;\n}\n"  # fmt: skip
    files = {"package.json": '{"name": "calc", "type": "module"}\n',
             "eslint.config.js": "export default [{ rules: { 'prefer-const': 'error' } }];\n",
             "src/calc.js": calc, "src/plain.js": "export const one = 1;\n"}  # fmt: skip
    repo = make_repo(tmp_path / "calc", files)
    install_node_modules(repo)
    sandbox = Sandbox(repo)
    fixer = ToolFixer(repo, sandbox)

    [fix] = fixer.plan(take_baseline(repo, sandbox), ["src/calc.js", "src/plain.js"], files)

    assert (fix.path, fix.tools) == ("src/calc.js", ("eslint --fix",))
    assert "const doubled = n * 2;" in fix.new and "let total = 0;" in fix.new
    assert fix.old == calc and (repo / "src/calc.js").read_text() == calc  # nothing written
