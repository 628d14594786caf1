"""Which command runs a repository's tests, found from its files.

Order: pytest (pytest.ini, ``[tool.pytest.ini_options]`` in pyproject.toml, ``[tool:pytest]``
in setup.cfg, ``[pytest]`` in tox.ini, a ``tests``/``test`` folder with Python files, or
``test_*.py``/``*_test.py`` files at the top two levels), then ``npm test`` when package.json
has a real test script, ``go test ./...`` with go.mod, ``cargo test`` with Cargo.toml.
"""

from __future__ import annotations

import configparser
import json
import shlex
import tomllib
from pathlib import Path

from patchwright.verify.tools import repo_python

_NPM_PLACEHOLDER = 'echo "Error: no test specified" && exit 1'


def detect_test_command(root: Path) -> str | None:
    """The test command for ``root``, or None when no runner is recognised."""
    root = Path(root)
    if _uses_pytest(root):
        return f"{shlex.quote(repo_python(root))} -m pytest -q"
    package = root / "package.json"
    if package.is_file():
        try:
            scripts = json.loads(package.read_text(encoding="utf-8")).get("scripts") or {}
        except (OSError, ValueError, AttributeError):
            scripts = {}
        test = scripts.get("test") if isinstance(scripts, dict) else None
        if isinstance(test, str) and test.strip() and test.strip() != _NPM_PLACEHOLDER:
            return "npm test --silent"
    if (root / "go.mod").is_file():
        return "go test ./..."
    if (root / "Cargo.toml").is_file():
        return "cargo test"
    return None


def _uses_pytest(root: Path) -> bool:
    if (root / "pytest.ini").is_file() or (root / "conftest.py").is_file():
        return True
    if _pyproject_has_pytest(root / "pyproject.toml"):
        return True
    if _ini_has_section(root / "setup.cfg", "tool:pytest"):
        return True
    if _ini_has_section(root / "tox.ini", "pytest"):
        return True
    for folder in ("tests", "test"):
        if (root / folder).is_dir() and any((root / folder).rglob("*.py")):
            return True
    return _has_test_files(root)


def _pyproject_has_pytest(path: Path) -> bool:
    if not path.is_file():
        return False
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    tool = data.get("tool", {})
    return isinstance(tool, dict) and "pytest" in tool


def _ini_has_section(path: Path, section: str) -> bool:
    if not path.is_file():
        return False
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return False
    return parser.has_section(section)


def _has_test_files(root: Path) -> bool:
    for pattern in ("test_*.py", "*_test.py", "*/test_*.py", "*/*_test.py"):
        for found in root.glob(pattern):
            if not any(part.startswith(".") or part in ("venv", "node_modules") for part in
                       found.relative_to(root).parts):  # fmt: skip
                return True
    return False
