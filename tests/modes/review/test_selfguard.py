"""A review of the code the running process was loaded from: the process keeps running the
code it started with — modules it loaded, modules it loads later, their data files — while
the review changes and commits the files, and the gates judge
the changed files in processes of their own. A review of patchwright's own checkout is
detected as such; a repository whose tests would import its package from elsewhere is
refused; the project's import contracts are among the gates."""

from __future__ import annotations

import importlib
import importlib.resources
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from tests.conftest import PYPROJECT, make_repo
from tests.modes.review.test_review import review, sr

import patchwright
from patchwright.modes.review.frozen import FrozenPackage
from patchwright.modes.review.selfguard import running_from

Script = Callable[[list[str]], Path]


@pytest.fixture
def imported_repo(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A repository holding a package this process imports (a fresh name each time), with a
    bug its test catches; everything the test process took from it is let go afterwards."""
    pkg = f"selfpkg_{uuid.uuid4().hex[:8]}"
    files = {
        f"{pkg}/__init__.py": '"""Shapes, loaded by the process that reviews them."""\n',
        f"{pkg}/shapes.py": '"""Areas."""\n\n\ndef area(w, h):\n    """w by h."""\n    return w + h\n',
        f"{pkg}/data.txt": "version 1\n",
        "tests/test_shapes.py": f"from {pkg}.shapes import area\n\n\ndef test_area():\n"
        "    assert area(2, 3) == 6\n",
        "pyproject.toml": PYPROJECT,
        "README.md": "Shapes.\n",
    }
    repo = make_repo(tmp_path / "shapes", files)
    sys.path.insert(0, str(repo))
    try:
        yield repo, pkg
    finally:
        sys.path.remove(str(repo))
        for finder in [f for f in sys.meta_path if isinstance(f, FrozenPackage)]:
            if finder.name == pkg:
                sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == pkg or n.startswith(pkg + ".")]:
            del sys.modules[name]


def test_the_process_keeps_running_the_code_it_started_with_while_the_review_changes_it(
    imported_repo: tuple[Path, str], script: Script, shop: Any
) -> None:
    repo, pkg = imported_repo
    package = importlib.import_module(pkg)  # loaded before; its shapes module is not
    fix = sr(f"{pkg}/shapes.py", "    return w + h", "    return w * h", "Multiply, not add.")

    code, out = review(repo, script([fix, "fix(shapes): multiply", "- ok"]), "--iterations",
                       "1", "--yes", "--target", f"{pkg}/shapes.py")  # fmt: skip

    assert code == 0, out
    [accepted] = out["accepted"]
    assert "tests/test_shapes.py::test_area (failed)" in accepted["fixed"]  # judged on disk
    assert accepted["commit"] == shop.git(repo, "rev-parse", "HEAD").strip()  # undoable
    assert any(f"code the running process was loaded from: {pkg}" in n for n in out["notes"])
    shapes: ModuleType = importlib.import_module(f"{pkg}.shapes")  # first imported now
    assert "return w * h" in Path(shapes.__file__ or "").read_text()  # the file changed...
    assert shapes.area(2, 3) == 5  # ...and the process runs the code it started with
    assert "return w + h" in shapes.__loader__.get_source(shapes.__name__)
    assert importlib.import_module(pkg) is package
    (repo / pkg / "data.txt").write_text("version 2\n")
    assert importlib.resources.files(pkg).joinpath("data.txt").read_text() == "version 1\n"
    (repo / pkg / "added.py").write_text("X = 1\n")
    with pytest.raises(ImportError, match="after this process froze it"):
        importlib.import_module(f"{pkg}.added")


def test_a_review_of_patchwrights_own_checkout_is_detected(tmp_path: Path) -> None:
    folder = Path(patchwright.__file__).resolve().parent
    checkout = folder.parents[1] if folder.parent.name == "src" else folder.parent

    assert running_from(checkout)["patchwright"] == folder
    assert "patchwright" not in running_from(tmp_path)
    installed = ModuleType("vendored")
    installed.__file__ = str(tmp_path / ".venv/lib/python3.11/site-packages/vendored/__init__.py")
    assert running_from(tmp_path, {"vendored": installed}) == {}  # an environment's, not ours
    ours = ModuleType("ours.deep.leaf")
    ours.__file__ = str(tmp_path / "src/ours/deep/leaf.py")
    assert running_from(tmp_path, {"ours.deep.leaf": ours}) == {"ours": tmp_path / "src/ours"}


def test_a_copy_whose_tests_would_import_the_package_from_elsewhere_is_refused(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    copy = make_repo(tmp_path / "copy", {
        "src/patchwright/__init__.py": '"""A copy with no environment of its own."""\n',
        "tests/test_nothing.py": "def test_nothing():\n    pass\n",
        "pyproject.toml": PYPROJECT, "README.md": "A copy.\n",
    })  # fmt: skip

    code, out = review(copy, script([]), "--iterations", "1", "--yes")

    assert code == 2, out
    assert "would import patchwright from" in out["error"] and "--test-cmd" in out["error"]


GUARD_PATCHWRIGHT = """
import importlib, importlib.resources, sys
from pathlib import Path
import patchwright
from patchwright.agent import prompts
from patchwright.modes.review.frozen import FrozenLoader
from patchwright.modes.review.selfguard import guard
root = Path(patchwright.__file__).resolve().parents[2]
assert "patchwright.ui.dashboard.app" not in sys.modules
frozen = guard(root)
assert [p.name for p in frozen.frozen] == ["patchwright"], frozen.describe()
lazy = importlib.import_module("patchwright.ui.dashboard.app")
assert isinstance(lazy.__loader__, FrozenLoader)
assert type(prompts._env().loader).__name__ == "DictLoader"
assert "The user adds these instructions" in prompts.render("review_augment", lines=["x"])
catalog = importlib.resources.files("patchwright.llm").joinpath("catalog.toml")
assert type(catalog).__name__ == "FrozenFile" and "qwen2.5-coder-1.5b" in catalog.read_text()
frozen.release()
assert type(prompts._env().loader).__name__ == "PackageLoader"
print("ok")
"""


def test_patchwright_frozen_serves_its_later_imports_templates_and_catalog_from_memory() -> None:
    run = subprocess.run([sys.executable, "-c", GUARD_PATCHWRIGHT], capture_output=True,
                         text=True, timeout=120, check=False)  # fmt: skip

    assert run.stdout.strip() == "ok", run.stderr
