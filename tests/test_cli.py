"""The command line itself: help, version and usage errors."""

from __future__ import annotations

import subprocess
import sys

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
