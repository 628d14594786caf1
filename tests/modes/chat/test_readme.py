"""Every command of the README's quick start runs verbatim, as a new user types them after
cloning: ``make install`` (set-up, then ``patchwright`` on the PATH), then the commands in
the demo repository with the embedded model."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]


def quick_start() -> list[str]:
    """The quick start's commands, comments removed."""
    section = (ROOT / "README.md").read_text().split("## Quick start", 1)[1]
    block = section.split("```", 2)[1]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_quick_start_installs_first_and_then_uses_the_command_on_the_path() -> None:
    commands = quick_start()
    assert commands[0] == "make install"
    assert not any(c.startswith(("uv ", "python")) for c in commands)  # nothing but the PATH
    assert [c.split()[0] for c in commands[2:]] == ["patchwright"] * (len(commands) - 2)


@pytest.mark.slow
@pytest.mark.timeout(900)  # the embedded model, beside the other worker, on 2 cores
def test_every_quick_start_command_runs_verbatim(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # stands in for ~/.local/bin: on the PATH, empty before
    scratch = tmp_path / "tmp"  # where `mktemp -d` puts the demo's copy
    scratch.mkdir()
    env = {**os.environ, "PATCHWRIGHT_BIN_DIR": str(bin_dir), "TMPDIR": str(scratch),
           "PATH": f"{bin_dir}:{os.environ['PATH']}"}  # fmt: skip
    env.pop("VIRTUAL_ENV", None)
    script = "set -euo pipefail\n" + "\n".join(quick_start()) + "\n"
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=3000)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (bin_dir / "patchwright").exists()
    assert "solved" in done.stdout
    assert "undid 1 change" in done.stdout
    assert "Usage: patchwright" in done.stdout  # `patchwright` with no terminal: the help
    # the fresh copy the quick start made, the fix undone in it (uv may leave a lock file)
    (demo,) = [p for p in scratch.iterdir() if p.is_dir()]
    original = ROOT / "examples" / "demo_repo" / "inventory" / "pricing.py"
    assert (demo / "inventory" / "pricing.py").read_bytes() == original.read_bytes()
