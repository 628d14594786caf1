"""Project memory: the user's notes, then the repository's from the root down to the working
directory, CLAUDE.local.md, ``@path`` imports (depth-limited, confined), one budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwright.agent.memory import IMPORT_DEPTH, read_memory


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg" / "sub").mkdir(parents=True)
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "config" / "patchwright"
    folder.mkdir(parents=True)
    return folder


def test_the_users_notes_come_first_and_the_nearest_folders_last(repo: Path, home: Path) -> None:
    (home / "AGENTS.md").write_text("user: prefer small commits")
    (repo / "AGENTS.md").write_text("root: run make test")
    (repo / "pkg" / "CLAUDE.md").write_text("pkg: no globals")
    (repo / "pkg" / "sub" / "CLAUDE.local.md").write_text("sub: my own notes")
    memory = read_memory(repo, repo / "pkg" / "sub", user_dir=home)
    assert memory.text.split("\n\n") == [
        "user: prefer small commits",
        "root: run make test",
        "pkg: no globals",
        "sub: my own notes",
    ]
    assert memory.sources[1:] == ["AGENTS.md", "pkg/CLAUDE.md", "pkg/sub/CLAUDE.local.md"]
    assert memory.sources[0].endswith("patchwright/AGENTS.md")


def test_without_a_working_directory_the_process_cwd_inside_the_repo_counts(
    repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "AGENTS.md").write_text("root")
    (repo / "pkg" / "AGENTS.md").write_text("pkg")
    monkeypatch.chdir(repo / "pkg")
    assert read_memory(repo, user_dir=home).sources == ["AGENTS.md", "pkg/AGENTS.md"]
    monkeypatch.chdir(home)  # outside the repository: the root alone
    assert read_memory(repo, user_dir=home).sources == ["AGENTS.md"]


def test_a_claude_md_pointer_imports_agents_md_once(repo: Path, home: Path) -> None:
    (repo / "AGENTS.md").write_text("# Rules\nrun pytest")
    (repo / "CLAUDE.md").write_text("@AGENTS.md\n")
    memory = read_memory(repo, user_dir=home)
    assert memory.text == "# Rules\nrun pytest"
    assert memory.sources == ["AGENTS.md"]


def test_imports_resolve_from_the_importing_file_and_follow_in_place(
    repo: Path, home: Path
) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("style: black, 100 columns")
    (repo / "docs" / "testing.md").write_text("tests: pytest -q")
    (repo / "AGENTS.md").write_text(
        "Overview. See @docs/style.md for style.\n@./docs/testing.md\n"
        "Mail ops@example.com; `@docs/secret.md` in code is text.\n"
        "```\n@docs/fenced.md\n```"
    )
    (repo / "docs" / "secret.md").write_text("never imported")
    (repo / "docs" / "fenced.md").write_text("never imported either")
    memory = read_memory(repo, user_dir=home)
    assert memory.sources == ["AGENTS.md", "docs/style.md", "docs/testing.md"]
    assert "style: black" in memory.text and "tests: pytest -q" in memory.text
    assert "never imported" not in memory.text
    assert "@./docs/testing.md" not in memory.text  # an import-only line is replaced


def test_imports_stay_inside_the_repository(repo: Path, home: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("SECRET from outside")
    (repo / "AGENTS.md").write_text(f"@../outside.md\n@{tmp_path}/outside.md\n@~/.ssh/id_rsa\nok")
    memory = read_memory(repo, user_dir=home)
    assert memory.text == "ok"
    assert memory.sources == ["AGENTS.md"]


def test_imports_stop_at_the_depth_limit_and_cycles_end(repo: Path, home: Path) -> None:
    for n in range(IMPORT_DEPTH + 3):
        (repo / f"n{n}.md").write_text(f"level {n}\n@n{n + 1}.md")
    (repo / "AGENTS.md").write_text("top\n@n0.md\n@AGENTS.md")
    memory = read_memory(repo, user_dir=home)
    assert f"level {IMPORT_DEPTH - 1}" in memory.text
    assert f"level {IMPORT_DEPTH}" not in memory.text
    assert memory.sources.count("AGENTS.md") == 1


def test_everything_together_is_capped(repo: Path, home: Path) -> None:
    (home / "AGENTS.md").write_text("u" * 40)
    (repo / "AGENTS.md").write_text("r" * 100)
    memory = read_memory(repo, user_dir=home, max_chars=60)
    assert memory.truncated
    assert memory.text.startswith("u" * 40)
    assert len(memory.text) <= 60 + len("\n\n\n[... truncated]")


def test_a_claude_md_copied_from_agents_md_counts_once(repo: Path, home: Path) -> None:
    (repo / "AGENTS.md").write_text("run pytest")
    (repo / "CLAUDE.md").write_text("run pytest\n")
    assert read_memory(repo, user_dir=home).sources == ["AGENTS.md"]
