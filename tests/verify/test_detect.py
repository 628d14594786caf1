"""Which command runs a repository's tests, found from its files as a person would find it."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwright.verify import detect_test_command


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.mark.parametrize(
    "files",
    [
        {"pytest.ini": "[pytest]\n"},
        {"conftest.py": ""},
        {"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n"},
        {"setup.cfg": "[tool:pytest]\ntestpaths = t\n"},
        {"tox.ini": "[pytest]\n"},
        {"tests/test_calc.py": "def test_x(): pass\n"},
        {"test/check.py": ""},
        {"calc_test.py": ""},
        {"pkg/test_calc.py": ""},
    ],
    ids=lambda files: next(iter(files)),
)
def test_a_python_project_runs_pytest(tmp_path: Path, files: dict[str, str]) -> None:
    command = detect_test_command(write(tmp_path, files))
    assert command is not None and command.endswith(" -m pytest -q")


def test_pytest_comes_first_when_a_project_has_several_runners(tmp_path: Path) -> None:
    write(tmp_path, {"go.mod": "module x\n", "Cargo.toml": "[package]\n", "tests/test_a.py": ""})
    assert str(detect_test_command(tmp_path)).endswith("-m pytest -q")


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"go.mod": "module x\n"}, "go test ./..."),
        ({"Cargo.toml": "[package]\nname = 'x'\n"}, "cargo test"),
        ({".venv/lib/test_site.py": "", "deep/er/test_far.py": "", "README.md": ""}, None),
        (
            {
                "package.json": '{"scripts": {"test": "echo \\"Error: no test specified\\" && exit 1"}}'
            },
            None,
        ),
    ],
    ids=["go", "rust", "test files only in hidden or deep folders", "npm's placeholder script"],
)
def test_other_projects_and_projects_with_no_runner(
    tmp_path: Path, files: dict[str, str], expected: str | None
) -> None:
    assert detect_test_command(write(tmp_path, files)) == expected
