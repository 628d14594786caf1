"""``patchwright init`` and the facts it reads from a repository: test, lint and type-check
commands, entry points, layout — written to AGENTS.md, never over an existing file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from patchwright.agent.memory import read_memory
from patchwright.cli import app
from patchwright.modes.chat.project_facts import gather_facts

PYPROJECT = """[project]
name = "tool"
dependencies = ["httpx>=0.27", "rich"]
[project.scripts]
tool = "tool.cli:main"
[tool.ruff]
line-length = 100
[tool.mypy]
strict = true
"""


def test_the_facts_of_a_python_and_node_repository(tmp_path: Path) -> None:
    (tmp_path / "src" / "tool").mkdir(parents=True)
    (tmp_path / "src" / "tool" / "__init__.py").write_text("")
    (tmp_path / "src" / "tool" / "__main__.py").write_text("print('hi')\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_tool.py").write_text("def test_x():\n    pass\n")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "Makefile").write_text("test:\n\tpytest\nlint:\n\truff check .\n")
    scripts = {"lint": "eslint .", "start": "node web/index.js"}
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))
    (tmp_path / "uv.lock").write_text("")
    facts = gather_facts(tmp_path)
    assert facts.test_cmd == "make test  (or: python -m pytest -q)"
    assert facts.lint_cmds == ["make lint", "ruff check .", "ruff format --check .",
                               "mypy --strict", "npm run lint"]  # fmt: skip
    assert "tool  (→ tool.cli:main)" in facts.run_cmds and "python -m tool" in facts.run_cmds
    assert "npm run start  (→ node web/index.js)" in facts.run_cmds
    assert facts.dependencies == ["httpx", "rich"]
    assert facts.locks == ["uv.lock"] and facts.test_dirs == ["tests"]
    assert facts.packages == ["src/tool"]


def test_init_writes_agents_md_and_a_claude_md_copy_and_never_overwrites(
    shop_repo: Path, shop: Any
) -> None:
    runner = CliRunner()
    args = ["init", "--repo", str(shop_repo), "--no-model", "--yes", "--claude", "copy"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    agents = (shop_repo / "AGENTS.md").read_text()
    assert "`python -m pytest -q`" in agents and "## Non-negotiables" in agents
    assert (shop_repo / "CLAUDE.md").read_text() == agents
    assert read_memory(shop_repo).sources == ["AGENTS.md"]  # the copy is not read twice
    (shop_repo / "AGENTS.md").write_text("# mine\n")
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "already exists" in again.output
    assert (shop_repo / "AGENTS.md").read_text() == "# mine\n"
