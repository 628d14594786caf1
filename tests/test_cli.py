"""The command line itself: help, version and usage errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from patchwright.cli import app


def test_version_prints_package_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith("patchwright ")


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["no-such-command"])
    assert result.exit_code == 2


def test_help_runs_as_a_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "patchwright", "--help"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0
    assert "patchwright" in proc.stdout


def _words(text: str) -> str:
    """Text as a reader sees it: box lines and wrapping gone, code spans unquoted."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).replace("`", "").split())


def _commands(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, [*path, name])


def test_every_help_page_shows_its_text_as_written() -> None:
    """`[agent] strategy` names a config section and `<task>` a placeholder: neither is markup."""
    for path, command in _commands(typer.main.get_command(app), []):
        page = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "400"})
        assert page.exit_code == 0, path
        shown = _words(page.output)
        texts = [param.help for param in command.params if getattr(param, "help", None)]
        texts += (command.help or "").split("\n\n")
        texts += [sub.help.split("\n\n")[0] for sub in getattr(command, "commands", {}).values()]
        for text in texts:
            assert _words(text) in shown, (path, text)


CRASH = (
    "import sys, patchwright.cli as cli\n"
    "def broken(args): raise KeyError('lost')\n"
    "cli.app = broken\n"
    "sys.argv = ['patchwright', *sys.argv[1:]]\n"
    "cli.main()\n"
)


def test_patchwright_s_own_bug_says_so_keeps_the_traceback_and_answers_json(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "PATCHWRIGHT_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-c", CRASH, "run", "--json"], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 70
    out = json.loads(done.stdout)
    assert out["outcome"] == "error" and out["error"].startswith("internal error: KeyError: 'lost'")
    [saved] = (tmp_path / "state" / "crashes").iterdir()
    assert out["traceback"] == str(saved) and "in broken\nKeyError: 'lost'" in saved.read_text()
    assert "a bug in patchwright, not in your repository" in done.stderr
    assert "Traceback" not in done.stderr  # one line, the traceback kept in the file
    plain = subprocess.run([sys.executable, "-c", CRASH, "run"], env=env,
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert plain.returncode == 70 and plain.stdout == ""
