"""What ``patchwright`` with no subcommand means: the chat in a terminal, help elsewhere,
chat flags alone start the chat, ``--resume`` alone means the newest session."""

from __future__ import annotations

import pytest

from patchwright.cli import chat_argv


@pytest.mark.parametrize(
    ("argv", "terminal", "seen"),
    [
        ([], True, ["chat"]),
        ([], False, ["--help"]),
        (["--model", "ollama:qwen"], False, ["chat", "--model", "ollama:qwen"]),
        (["--version"], True, ["--version"]),
        (["run", "--task", "x", "--resume"], True, ["run", "--task", "x", "--resume"]),
        (["chat", "--resume"], True, ["chat", "--resume="]),
        (["--resume", "--yes"], True, ["chat", "--resume=", "--yes"]),
        (["tui", "-r", "2026"], True, ["tui", "-r", "2026"]),
    ],
)
def test_the_arguments_the_cli_sees(argv: list[str], terminal: bool, seen: list[str]) -> None:
    assert chat_argv(argv, terminal=terminal) == seen
