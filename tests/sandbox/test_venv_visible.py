"""A virtualenv under /tmp or HOME works whole inside the bubblewrap sandbox.

uv makes ``venv/bin/python`` a symlink to the base interpreter; bubblewrap hides ``/tmp``
and HOME. Before, only ``venv/bin`` stayed visible, so mypy died with ``ModuleNotFoundError``
(and the types gate said ``passed``) and the venv's pytest was missing. Here patchwright runs
from such a venv built in ``tmp_path`` (under ``/tmp``), exactly as a user's clone does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest
from rewheel import rewheel

from patchwright.envs.pythons import uv_command
from patchwright.sandbox import Sandbox

DRIVER = textwrap.dedent(
    """
    import json, sys
    sys.path.extend(sys.argv[2:])  # patchwright's own code and libraries, after the venv's
    from pathlib import Path
    from patchwright.sandbox import Sandbox
    from patchwright.verify import run_gates, take_baseline
    from patchwright.verify.typecheck import TypesGate
    from patchwright.verify.testgate import TestsGate

    root = Path(sys.argv[1])
    box = Sandbox(root)
    base = take_baseline(root, box)
    m = root / "pkg" / "m.py"
    m.write_text(m.read_text() + "\\n\\ny: str = double(1)\\n")
    (root / "tests" / "test_m.py").write_text(
        (root / "tests" / "test_m.py").read_text() + "\\n\\ndef test_new():\\n    assert double(2) == 5\\n"
    )
    results = run_gates(root, box, base, touched=["pkg/m.py", "tests/test_m.py"],
                        gates=[TypesGate(), TestsGate()], stop_on_failure=False)
    print(json.dumps({
        "mode": box.layer.mode,
        "prefix": sys.prefix,
        "baseline": {i: c.outcome for i, c in base.tests.cases.items()} if base.tests else None,
        "gates": {r.name: {"status": r.status, "reason": r.reason, "output": r.output,
                           "new": [p.render() for p in r.new_problems]} for r in results},
    }))
    """
)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A uv virtualenv under /tmp with mypy and pytest installed into it (offline: wheels
    made from the distributions installed here)."""
    uv = uv_command()
    if uv is None:
        pytest.skip("uv is not installed (make setup installs it)")
    base = tmp_path_factory.mktemp("user")
    folder = base / "venv"
    subprocess.run([*uv, "venv", "-q", "-p", sys.executable, str(folder)], check=True)
    wheels = rewheel(["mypy", "pytest"], base / "wheels")
    subprocess.run(
        [*uv, "pip", "install", "-q", "--offline", "--no-index", "--python",
         str(folder / "bin" / "python"), *map(str, wheels)],
        check=True,
    )  # fmt: skip
    return folder


def _repo(root: Path, venv: Path) -> None:
    files = {
        "mypy.ini": "[mypy]\n",
        "pkg/__init__.py": "",
        "pkg/m.py": "def double(x: int) -> int:\n    return 2 * x\n",
        "tests/test_m.py": (
            "import pytest\n\nfrom pkg.m import double\n\n\n"
            "def test_double():\n    assert double(2) == 4\n\n\n"
            "def test_runs_the_venvs_pytest():\n"
            f"    assert pytest.__file__.startswith({str(venv)!r})\n"
        ),
        "pytest.ini": "[pytest]\npythonpath = .\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_a_symlinked_venv_under_tmp_runs_its_mypy_and_pytest_in_the_sandbox(
    tmp_path: Path, venv: Path
) -> None:
    probe = Sandbox(tmp_path)
    if probe.layer.mode != "bwrap":
        pytest.skip(f"bubblewrap is not in force here ({probe.isolation})")
    python = venv / "bin" / "python"
    assert python.is_symlink() and str(venv).startswith("/tmp/"), "the layout users have"
    repo = tmp_path / "repo"
    _repo(repo, venv)
    ours = [str(Path(__file__).parents[2] / "src"), sysconfig.get_paths()["purelib"]]
    done = subprocess.run(
        [str(python), "-c", DRIVER, str(repo), *ours], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["mode"] == "bwrap" and report["prefix"] == str(venv)
    assert report["baseline"] == {
        "tests/test_m.py::test_double": "passed",
        "tests/test_m.py::test_runs_the_venvs_pytest": "passed",
    }
    types, tests = report["gates"]["types"], report["gates"]["tests"]
    assert types["status"] == "failed", types
    assert any("pkg/m.py" in p and "assignment" in p for p in types["new"]), types
    assert tests["status"] == "failed", tests
    assert tests["new"] == ["tests/test_m.py::test_new (failed)"], tests
