"""Which command runs a repository's tests, found from its files.

Order: pytest (pytest.ini, ``[tool.pytest.ini_options]`` in pyproject.toml, ``[tool:pytest]``
in setup.cfg, ``[pytest]`` in tox.ini, a ``tests``/``test`` folder with Python files, or
``test_*.py``/``*_test.py`` files at the top two levels), then JavaScript with package.json:
its ``test`` script through the package manager its lock file names (``npm test``,
``pnpm test``, ``yarn test``, ``bun run test``), or without one a runner among its
dependencies (jest, vitest, mocha) or ``node --test`` when its tests use ``node:test``; then
``go test ./...`` with go.mod, ``cargo test`` with Cargo.toml.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from patchwright.verify.tools import ini_section, pyproject_tool, repo_python

_NPM_PLACEHOLDER = 'echo "Error: no test specified" && exit 1'


def detect_test_command(root: Path) -> str | None:
    """The test command for ``root``, or None when no runner is recognised."""
    root = Path(root)
    if _uses_pytest(root):
        return f"{shlex.quote(repo_python(root))} -m pytest -q"
    if (root / "package.json").is_file() and (found := _javascript(root)):
        return found
    if (root / "go.mod").is_file():
        return "go test ./..."
    if (root / "Cargo.toml").is_file():
        return "cargo test"
    return None


_SCRIPT_RUNS = {"npm": "npm test --silent", "pnpm": "pnpm test", "yarn": "yarn test",
                "bun": "bun run test"}  # fmt: skip
_DIRECT = {"jest": "jest", "vitest": "vitest run", "mocha": "mocha"}


def _javascript(root: Path) -> str | None:
    """The package's ``test`` script through its package manager (the lock file's, when
    installed); without one, a runner among its dependencies (``jest``, ``vitest``, ``mocha``
    from ``node_modules/.bin``), or ``node --test`` when its test files use ``node:test``."""
    from patchwright.verify.runners.js import dev_dependencies, manager, scripts

    test = scripts(root).get("test", "").strip()
    if test and test != _NPM_PLACEHOLDER:
        return _SCRIPT_RUNS[manager(root)]
    deps = dev_dependencies(root)
    for name, args in _DIRECT.items():
        if name in deps:
            local = root / "node_modules" / ".bin" / name
            head = (
                shlex.quote(f"node_modules/.bin/{name}") if local.exists() else f"npx --no {name}"
            )
            return f"{head}{args[len(name) :]}"
    return "node --test" if _uses_node_test(root) else None


def _uses_node_test(root: Path) -> bool:
    patterns = ("test/**/*.[cm]js", "test/**/*.js", "tests/**/*.js", "**/*.test.[cm]js",
                "**/*.test.js")  # fmt: skip
    seen = 0
    for pattern in patterns:
        for path in root.glob(pattern):
            if "node_modules" in path.parts:
                continue
            seen += 1
            if seen > 200:
                return False
            try:
                head = path.read_text(encoding="utf-8", errors="replace")[:4000]
            except OSError:
                continue
            if "node:test" in head:
                return True
    return False


def _uses_pytest(root: Path) -> bool:
    if (root / "pytest.ini").is_file() or (root / "conftest.py").is_file():
        return True
    if pyproject_tool(root, "pytest"):
        return True
    if ini_section(root / "setup.cfg", "tool:pytest") or ini_section(root / "tox.ini", "pytest"):
        return True
    for folder in ("tests", "test"):
        if (root / folder).is_dir() and any((root / folder).rglob("*.py")):
            return True
    return _has_test_files(root)


def _has_test_files(root: Path) -> bool:
    for pattern in ("test_*.py", "*_test.py", "*/test_*.py", "*/*_test.py"):
        for found in root.glob(pattern):
            if not any(part.startswith(".") or part in ("venv", "node_modules") for part in
                       found.relative_to(root).parts):  # fmt: skip
                return True
    return False
