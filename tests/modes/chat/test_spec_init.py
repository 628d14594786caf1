"""``/init`` (``modes/chat/init.py``) and the facts it reads (``modes/chat/project_facts.py``):
AGENTS.md is shown before it is written and only on a yes; CLAUDE.md points to it, copies it
or is left out; neither file is ever overwritten; the overview is the model's, else the
README's first paragraph; the facts name each ecosystem's test, lint and run commands."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from tests.conftest import make_repo

from patchwright.agent.session import Session
from patchwright.modes.chat.init import CLAUDE_POINTER, InitError, run_init, summarise
from patchwright.modes.chat.project_facts import gather_facts, portable_test_cmd
from patchwright.modes.chat.state import ChatOptions, open_session_only

Script = Callable[[list[str]], Path]
README = "# Shop\n\n[![ci](badge.svg)](ci)\n\nA tiny shop that prices\ncarts.\n\nMore text.\n"


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def session_for(root: Path, script: Script, replies: list[str] | None = None) -> Session:
    return open_session_only(ChatOptions(repo=root, model=f"scripted:{script(replies or [])}"))


class Answers:
    """``confirm`` answering from a list, noting each question."""

    def __init__(self, *answers: bool) -> None:
        self.answers, self.asked = list(answers), []  # type: list[bool], list[str]

    def __call__(self, question: str, *, default: bool = False) -> bool:
        self.asked.append(question)
        return self.answers.pop(0)


def init(session: Session, confirm: Answers, **kwargs: object) -> tuple[list[str], str]:
    out = io.StringIO()
    written = run_init(session, Console(file=out, width=200, color_system=None), confirm,
                       **kwargs)  # type: ignore[arg-type]  # fmt: skip
    return written, out.getvalue()


# -- /init ---------------------------------------------------------------------------------


def test_agents_md_is_shown_first_and_a_no_writes_nothing(shop_repo: Path, script: Script) -> None:
    confirm = Answers(False)
    written, shown = init(session_for(shop_repo, script), confirm, use_model=False)
    assert written == [] and confirm.asked == ["Write AGENTS.md?"]
    assert "# AGENTS.md — shop" in shown and "nothing written" in shown
    assert not (shop_repo / "AGENTS.md").exists() and not (shop_repo / "CLAUDE.md").exists()


def test_a_yes_writes_agents_md_and_a_claude_md_pointing_to_it(
    shop_repo: Path, script: Script
) -> None:
    written, shown = init(session_for(shop_repo, script), Answers(True), use_model=False)
    assert written == ["AGENTS.md", "CLAUDE.md"]
    assert (shop_repo / "CLAUDE.md").read_text() == CLAUDE_POINTER
    agents = (shop_repo / "AGENTS.md").read_text()
    assert "- Tests: `python -m pytest -q`" in agents
    assert "wrote AGENTS.md, CLAUDE.md" in shown


def test_claude_none_writes_agents_md_alone(shop_repo: Path, script: Script) -> None:
    written, _ = init(session_for(shop_repo, script), Answers(True), use_model=False,
                      claude="none")  # fmt: skip
    assert written == ["AGENTS.md"] and not (shop_repo / "CLAUDE.md").exists()


def test_an_unknown_claude_mode_is_refused_before_anything_is_read(
    shop_repo: Path, script: Script
) -> None:
    with pytest.raises(InitError, match="--claude symlink: use one of pointer, copy, none"):
        init(session_for(shop_repo, script), Answers(), claude="symlink")


def test_an_existing_agents_md_is_kept_and_claude_md_is_offered_on_its_own(
    shop_repo: Path, script: Script
) -> None:
    (shop_repo / "AGENTS.md").write_text("# my notes\n")
    session = session_for(shop_repo, script)
    confirm = Answers(False)
    written, shown = init(session, confirm, claude="copy")
    assert written == [] and "already exists; /init never overwrites it" in shown
    assert confirm.asked == ["Write CLAUDE.md (copy to AGENTS.md)?"]
    written, _ = init(session, Answers(True), claude="copy")
    assert written == ["CLAUDE.md"]
    assert (shop_repo / "CLAUDE.md").read_text() == "# my notes\n"
    assert (shop_repo / "AGENTS.md").read_text() == "# my notes\n"


def test_an_existing_claude_md_is_never_replaced(shop_repo: Path, script: Script) -> None:
    (shop_repo / "CLAUDE.md").write_text("mine\n")
    written, _ = init(session_for(shop_repo, script), Answers(True), use_model=False)
    assert written == ["AGENTS.md"] and (shop_repo / "CLAUDE.md").read_text() == "mine\n"


def test_without_the_model_the_overview_is_the_readmes_first_paragraph(
    shop_repo: Path, script: Script
) -> None:
    (shop_repo / "README.md").write_text(README)
    init(session_for(shop_repo, script), Answers(True), use_model=False, claude="none")
    agents = (shop_repo / "AGENTS.md").read_text()
    assert "## Overview\n\nA tiny shop that prices carts.\n" in agents


def test_the_models_overview_and_architecture_are_streamed_and_used(
    shop_repo: Path, script: Script
) -> None:
    reply = ("Here you are.\nOVERVIEW:\n  Prices carts.\nARCHITECTURE:\n- shop/: prices\n"
             "* tests/: checks\nnot a bullet\n")  # fmt: skip
    streamed: list[str] = []
    ended: list[bool] = []
    init(session_for(shop_repo, script, [reply]), Answers(True), claude="none",
         on_token=streamed.append, end_stream=lambda: ended.append(True))  # fmt: skip
    agents = (shop_repo / "AGENTS.md").read_text()
    assert "## Overview\n\nPrices carts.\n" in agents
    assert "## Architecture map\n\n- shop/: prices\n- tests/: checks\n" in agents
    assert "not a bullet" not in agents
    assert "".join(streamed) == reply and ended == [True]


def test_a_reply_without_an_overview_falls_back_to_the_readme(
    shop_repo: Path, script: Script
) -> None:
    (shop_repo / "README.md").write_text(README)
    session = session_for(shop_repo, script, ["I could not read the repository."])
    summary = summarise(session, gather_facts(shop_repo))
    assert (summary.overview, summary.architecture, summary.by_model) == (
        "A tiny shop that prices carts.", "", False)  # fmt: skip


def test_a_failing_model_and_no_readme_leave_a_placeholder(shop_repo: Path, script: Script) -> None:
    summary = summarise(session_for(shop_repo, script, []), gather_facts(shop_repo))
    assert summary.overview == "shop: (describe the project here)" and not summary.by_model


def test_the_architecture_keeps_at_most_twelve_bullets(shop_repo: Path, script: Script) -> None:
    bullets = "".join(f"- part {n}\n" for n in range(20))
    session = session_for(shop_repo, script, [f"OVERVIEW: x\nARCHITECTURE:\n{bullets}"])
    summary = summarise(session, gather_facts(shop_repo))
    assert summary.architecture.splitlines() == [f"- part {n}" for n in range(12)]


# -- what the repository shows -------------------------------------------------------------


def test_go_and_rust_projects_name_their_commands(tmp_path: Path) -> None:
    go = make_repo(tmp_path / "go", {"go.mod": "module x\n", "main.go": "package main\n",
                                     "cmd/tool/main.go": "package main\n"})  # fmt: skip
    facts = gather_facts(go)
    assert facts.test_cmd == "go test ./..." and facts.lint_cmds == ["go vet ./..."]
    assert facts.run_cmds == ["go run .", "go run ./cmd/tool"]
    rust = make_repo(tmp_path / "rust", {"Cargo.toml": '[package]\nname = "r"\n'
                                         '[dependencies]\nserde = "1"\nclap = "4"\n',
                                         "src/main.rs": "fn main() {}\n"})  # fmt: skip
    facts = gather_facts(rust)
    assert facts.test_cmd == "cargo test" and facts.lint_cmds == ["cargo clippy"]
    assert facts.run_cmds == ["cargo run"] and facts.dependencies == ["serde", "clap"]
    assert facts.languages == [("rust", 1)] and facts.manifests == ["Cargo.toml"]


def test_python_linters_come_from_their_config_files(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "py", {"setup.cfg": "[flake8]\nmax-line-length = 99\n",
                                       "mypy.ini": "[mypy]\n", "ruff.toml": "",
                                       "Makefile": "VERSION := 1\ncheck:\n\ttrue\n"})  # fmt: skip
    facts = gather_facts(root)
    assert facts.lint_cmds == ["make check", "ruff check .", "ruff format --check .", "flake8",
                               "mypy"]  # fmt: skip


def test_dependencies_are_named_without_versions_extras_or_markers(tmp_path: Path) -> None:
    deps = ["requests[socks]>=2.31; python_version > '3.8'", "attrs ~= 23.1", "rich", "rich==13"]
    pyproject = "[project]\nname = 'x'\ndependencies = " + json.dumps(deps) + "\n"
    root = make_repo(tmp_path / "py", {"pyproject.toml": pyproject})
    assert gather_facts(root).dependencies == ["requests", "attrs", "rich"]


def test_broken_manifests_are_read_as_empty(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "broken", {"pyproject.toml": "[project\n",
                                           "package.json": '{"scripts": ["not", "a", "map"]}',
                                           "README.rst": "Broken\n======\n"})  # fmt: skip
    facts = gather_facts(root)
    assert facts.manifests == ["pyproject.toml", "package.json"]
    assert facts.lint_cmds == [] and facts.run_cmds == [] and facts.dependencies == []
    assert facts.readme == "Broken\n======"


def test_layout_packages_and_test_folders(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "lay", {"src/app/__init__.py": "", "src/app/core.py": "",
                                        "src/app/__main__.py": "", "tests/__init__.py": "",
                                        "tests/test_core.py": "", "docs/index.md": ""})  # fmt: skip
    facts = gather_facts(root)
    assert dict(facts.layout) == {"src": 3, "tests": 2, "docs": 1}
    assert facts.packages == ["src/app"] and facts.test_dirs == ["tests"]
    assert "python -m app" in facts.run_cmds
    assert facts.languages[0] == ("python", 5)


def test_a_top_level_main_module_is_not_advertised_without_a_name(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "flat", {"__main__.py": "print('hi')\n"})
    assert "python -m " not in gather_facts(root).run_cmds


@pytest.mark.parametrize(
    ("detected", "portable"),
    [("/home/u/.venv/bin/python3.12 -m pytest -q", "python -m pytest -q"),
     ("'/opt/a$b/bin/python' -m pytest -q", "python -m pytest -q"),
     ("/usr/bin/python3 -m pytest", "python -m pytest"), ("npm test --silent", "npm test --silent"),
     (None, None)],
)  # fmt: skip
def test_the_test_command_is_written_without_this_machines_interpreter_path(
    detected: str | None, portable: str | None
) -> None:
    assert portable_test_cmd(detected) == portable


def test_a_quoted_interpreter_path_with_spaces_is_made_portable_too() -> None:
    assert portable_test_cmd("'/home/me/my env/bin/python' -m pytest -q") == "python -m pytest -q"
