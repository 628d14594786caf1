"""Install specs: how to build the environment of a (repository, version) and test in it.

Looked up, in order: the official ``swebench`` package's per-repository, per-version
constants (``MAP_REPO_VERSION_TO_SPECS``: Python version, pre-install and install
commands, packages, the test command); else the instance's own ``eval_script`` (newer
SWE-bench datasets ship it: the install line and the test command between the
``Start Test Output`` markers); else a plain default (Python 3.9, ``pip install -e .``,
``pytest -rA``), said so in the spec's ``source``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_PYTHON = "3.9"
DEFAULT_TEST_CMD = "pytest -rA"
# Test-patch files that are data, not tests (the harness's NON_TEST_EXTS).
NON_TEST_EXTS = (".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml",
                 ".yaml", ".toml")  # fmt: skip
_START = ">>>>> Start Test Output"
_END = ">>>>> End Test Output"


@dataclass(frozen=True)
class InstallSpec:
    """What to install and how to test, for one (repository, version)."""

    python: str = DEFAULT_PYTHON
    install: str = "python -m pip install -e ."
    packages: str = ""  # "requirements.txt", "environment.yml" or package names
    pip_packages: tuple[str, ...] = ()
    pre_install: tuple[str, ...] = ()
    test_cmd: str = DEFAULT_TEST_CMD
    reqs_paths: tuple[str, ...] = ()  # where "requirements.txt" lives in the repository
    source: str = "default"  # swebench | eval_script | default | row
    notes: tuple[str, ...] = field(default_factory=tuple)

    def test_command(self, test_files: Sequence[str]) -> str:
        """The official test command for these test files (the harness's directives)."""
        return " ".join([self.test_cmd, *(shlex.quote(f) for f in test_files)])

    def to_json(self) -> dict[str, Any]:
        return {
            "python": self.python,
            "install": self.install,
            "packages": self.packages,
            "pip_packages": list(self.pip_packages),
            "pre_install": list(self.pre_install),
            "test_cmd": self.test_cmd,
            "source": self.source,
        }


def spec_for(repo: str, version: str, eval_script: str = "") -> InstallSpec:
    """The install spec of ``repo`` at ``version`` (see the module docstring)."""
    official = _official(repo, version)
    if official is not None:
        return official
    if eval_script.strip():
        return _from_eval_script(eval_script)
    return InstallSpec(notes=(f"no install spec known for {repo} {version}: using defaults",))


def _official(repo: str, version: str) -> InstallSpec | None:
    from patchwright.envs.official import load

    constants = load("harness.constants")
    if constants is None or not hasattr(constants, "MAP_REPO_VERSION_TO_SPECS"):
        return None
    specs: Mapping[str, Any] | None = constants.MAP_REPO_VERSION_TO_SPECS.get(repo, {}).get(version)
    if specs is None:
        return None
    reqs = getattr(constants, "MAP_REPO_TO_REQS_PATHS", {}).get(repo, ())
    return from_mapping(specs, reqs_paths=reqs, source="swebench")


def from_mapping(
    specs: Mapping[str, Any], *, reqs_paths: Sequence[str] = (), source: str = "row"
) -> InstallSpec:
    """An ``InstallSpec`` from the harness's spec dictionary shape."""
    test_cmd = specs.get("test_cmd", DEFAULT_TEST_CMD)
    if isinstance(test_cmd, list):
        test_cmd = " && ".join(test_cmd)
    packages = specs.get("packages", "")
    return InstallSpec(
        python=str(specs.get("python", DEFAULT_PYTHON)),
        install=str(specs.get("install", "python -m pip install -e .")),
        packages=packages if isinstance(packages, str) else " ".join(packages),
        pip_packages=tuple(str(p) for p in specs.get("pip_packages", ())),
        pre_install=tuple(str(c) for c in specs.get("pre_install", ())),
        test_cmd=str(test_cmd),
        reqs_paths=tuple(reqs_paths),
        source=source,
    )


_INSTALL = re.compile(r"^\s*(python -m pip install .*)$", re.M)
_TEST_FILE_ARG = re.compile(r"\S+\.py(?:::\S+)?$")


def _from_eval_script(script: str) -> InstallSpec:
    """The install line and the test command of an instance's ``eval_script``."""
    install = _INSTALL.findall(script)
    test_cmd = DEFAULT_TEST_CMD
    if _START in script and _END in script:
        block = script.split(_START, 1)[1].split(_END, 1)[0]
        lines = [x.strip() for x in block.splitlines()[1:] if x.strip() and x.strip() != ":"]
        if lines:
            words = shlex.split(lines[0])
            while words and _TEST_FILE_ARG.match(words[-1]):
                words.pop()  # the test files are added per instance
            test_cmd = shlex.join(words) or DEFAULT_TEST_CMD
    return InstallSpec(
        install=install[-1] if install else "python -m pip install -e .",
        test_cmd=test_cmd,
        source="eval_script",
        notes=("Python version not in the eval script: using the default " + DEFAULT_PYTHON,),
    )


_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.M)


def test_files_of(test_patch: str) -> list[str]:
    """The test files a test patch touches: the official harness's test directives."""
    files = [b for _, b in _DIFF_FILE.findall(test_patch)]
    return [f for f in dict.fromkeys(files) if not f.endswith(NON_TEST_EXTS)]
