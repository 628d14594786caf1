"""A review of the code the running process was loaded from — patchwright's own checkout, or
any repository holding a package this process imported.

The loop changes files while the process runs. Python keeps a module it has loaded, but one
it has not loaded yet is read from disk at its first import — patchwright imports many parts
lazily (a model backend, the dashboard, a command's parts) — and data files are read when
needed (the prompt templates, whose changes Jinja picks up by their mtime; the model
catalog). So without care a change the loop made could run inside the loop before the gates
and the checkpoint approved it, or run half new next to half old.

The design: **freeze the running package before the first change** (:func:`guard`, called
before the bootstrap).

* *Detection*: every top-level package in ``sys.modules`` whose folder lies inside the
  repository (an installed copy in a ``site-packages`` folder inside it, a virtual
  environment's, does not count: the review does not change those).
* *Snapshot*: every file under that folder, code and data (not caches), is read into memory
  (patchwright's: about 2 MB).
* *Imports*: a finder first on ``sys.meta_path`` serves every later import of the package's
  modules from the snapshot, compiled from the frozen text (never a ``.pyc`` from disk); a
  module the loop added is refused with an ImportError that says why.
* *Data*: the loaded modules' loaders are pointed at the snapshot, so
  ``importlib.resources`` (the model catalog, the dashboard's files) reads the frozen files;
  patchwright's prompt templates are served from the snapshot. (A traceback still quotes a
  line from the file as it is on disk — ``linecache`` reads the disk first.)

From then on the process runs one version of its code, the one it started with, for the rest
of its life (:meth:`SelfGuard.release` undoes it, for tests and embedders); the loop's gates
judge the changed code in processes of their own (the test suite, ruff, mypy, the import
contracts); each accepted change is a commit ``patchwright undo`` takes back.

A repository can also hold a package that its tests would import from *elsewhere*: a copy of
patchwright's checkout with no environment of its own, tested by the interpreter patchwright
runs in, imports ``patchwright`` from the original checkout — the gates would judge the old
code and pass anything. :func:`shadowed_packages` asks the interpreter the tests run under
where it imports the repository's packages from; the loop refuses such a review unless
``--test-cmd`` says how to test it.
"""

from __future__ import annotations

import shlex
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.abc import Loader
from pathlib import Path
from types import ModuleType

import jinja2

from patchwright.agent import prompts
from patchwright.agent.request import RunError
from patchwright.modes.review.frozen import FrozenLoader, FrozenPackage, read_folder
from patchwright.sandbox import Sandbox
from patchwright.verify.tools import repo_python

_INSTALLED = frozenset({"site-packages", "dist-packages"})
_NOT_PACKAGES = frozenset({"tests", "test", "docs", "benchmarks", "examples", "scripts"})
_PROBE = (
    "import importlib.util as u, sys\n"
    "for n in sys.argv[1:]:\n"
    "    s = u.find_spec(n)\n"
    "    w = (s.origin or '') if s else ''\n"
    "    w = w or (list(s.submodule_search_locations or [''])[0] if s else '')\n"
    "    print(n + '=' + w)\n"
)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def running_from(root: Path, modules: Mapping[str, ModuleType] | None = None) -> dict[str, Path]:
    """The top-level packages this process loaded a module of from inside ``root``: name →
    folder (a namespace package's other folders, an installed copy, do not count)."""
    root = root.resolve()
    found: dict[str, Path] = {}
    for name, module in list((sys.modules if modules is None else modules).items()):
        where = getattr(module, "__file__", None) if module is not None else None
        parts = name.split(".")
        if not where or parts[0] in found:
            continue
        file = Path(where).resolve()
        depth = len(parts) - (file.name != "__init__.py")
        if depth < 1 or not _inside(file, root) or _INSTALLED.intersection(file.parts):
            continue
        folder = file.parents[depth - 1]
        if folder.name == parts[0]:
            found[parts[0]] = folder
    return found


@dataclass
class SelfGuard:
    """The packages frozen for a review (empty: the review changes none of this process's
    code)."""

    frozen: list[FrozenPackage] = field(default_factory=list)
    _undo: list[tuple[ModuleType, Loader | None, Loader | None]] = field(
        default_factory=list, repr=False
    )
    _templates: tuple[jinja2.Environment, jinja2.BaseLoader | None] | None = field(
        default=None, repr=False
    )

    def describe(self) -> str:
        """One line for the user ("" when nothing is frozen)."""
        if not self.frozen:
            return ""
        which = ", ".join(f"{p.name} ({len(p.files)} files in {p.folder})" for p in self.frozen)
        return (f"this repository holds code the running process was loaded from: {which}; "
                "it runs as it was when the review started — changes are judged by the gates "
                "in processes of their own, each one a commit `patchwright undo` takes back")  # fmt: skip

    def release(self) -> None:
        """Back to the files on disk for what is imported from now on."""
        for package in self.frozen:
            if package in sys.meta_path:
                sys.meta_path.remove(package)
        for module, loader, spec_loader in self._undo:
            module.__loader__ = loader
            if module.__spec__ is not None:
                module.__spec__.loader = spec_loader
        if self._templates is not None:
            env, templates = self._templates
            env.loader = templates
            if env.cache is not None:
                env.cache.clear()
        self.frozen, self._undo, self._templates = [], [], None


def guard(root: Path) -> SelfGuard:
    """Freeze the packages this process was loaded from that lie inside ``root`` (see the
    module docstring); a package frozen already stays as it was frozen."""
    result = SelfGuard()
    active = {p.folder: p for p in sys.meta_path if isinstance(p, FrozenPackage)}
    for name, folder in running_from(root).items():
        if folder in active:
            continue
        package = FrozenPackage(name, folder, read_folder(folder))
        sys.meta_path.insert(0, package)
        result.frozen.append(package)
        for module in _loaded(name):
            _point_at_snapshot(module, package, result)
        if name == "patchwright":
            result._templates = _freeze_templates(package)
    return result


def _loaded(name: str) -> list[ModuleType]:
    return [m for n, m in list(sys.modules.items())
            if m is not None and (n == name or n.startswith(name + "."))]  # fmt: skip


def _point_at_snapshot(module: ModuleType, package: FrozenPackage, guard: SelfGuard) -> None:
    """The loaded module's resources and source come from the snapshot from now on."""
    spec = module.__spec__
    found = package.module_file(module.__name__)
    if spec is None or found is None or package.relative(spec.origin or "") != found[0]:
        return
    guard._undo.append((module, getattr(module, "__loader__", None), spec.loader))
    loader = FrozenLoader(package, found[0])
    module.__loader__ = loader
    spec.loader = loader


def _freeze_templates(
    package: FrozenPackage,
) -> tuple[jinja2.Environment, jinja2.BaseLoader | None]:
    """patchwright's prompt templates from the snapshot (Jinja reads them from the folder)."""

    env = prompts._env()  # the one environment every prompt is rendered with
    prefix = "agent/templates/"
    templates = {rel[len(prefix) :]: data.decode("utf-8")
                 for rel, data in package.files.items() if rel.startswith(prefix)}  # fmt: skip
    old = env.loader
    env.loader = jinja2.DictLoader(templates)
    if env.cache is not None:
        env.cache.clear()
    return env, old


# -- a package the tests would import from elsewhere --------------------------------------------
def repo_packages(root: Path) -> list[str]:
    """The top-level packages the repository holds (at its root or under ``src/``)."""
    names = []
    for base in (root, root / "src"):
        if base.is_dir():
            names += [d.name for d in sorted(base.iterdir())
                      if (d / "__init__.py").is_file() and d.name.isidentifier()
                      and d.name not in _NOT_PACKAGES]  # fmt: skip
    return names[:8]


def _pytest_paths(root: Path) -> list[str]:
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    paths = data.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("pythonpath", [])
    return [str(root / p) for p in ([paths] if isinstance(paths, str) else paths)]


def shadowed_packages(root: Path, sandbox: Sandbox) -> dict[str, str]:
    """The repository's packages that the interpreter its tests run under would import from
    outside it: name → where from."""
    root = root.resolve()
    names = repo_packages(root)
    if not names:
        return {}
    python = repo_python(root)
    cmd = " ".join(shlex.quote(x) for x in [python, "-c", _PROBE, *names])
    env = {"PYTHONPATH": ":".join(_pytest_paths(root))} if _pytest_paths(root) else None
    result = sandbox.run(cmd, timeout=60, cwd=root, extra_env=env)
    found: dict[str, str] = {}
    for line in result.stdout.splitlines():
        name, _, where = line.partition("=")
        if name in names and where and not _inside(Path(where).resolve(), root):
            found[name] = str(Path(where).parent if where.endswith(".py") else where)
    return found


def prepare(root: Path, sandbox: Sandbox, *, test_cmd_given: bool) -> SelfGuard:
    """Before the review's first change: refuse it when its tests would judge other code
    than the repository's (unless ``--test-cmd`` says how to test it), and freeze the code
    this process was loaded from (see the module docstring)."""
    shadowed = {} if test_cmd_given else shadowed_packages(root, sandbox)
    if shadowed:
        which = "; ".join(f"{name} from {where}" for name, where in shadowed.items())
        raise RunError(
            f"this repository's tests would import {which} — not this repository's code — "
            f"with {repo_python(root.resolve())}, so the gates would judge other code than the "
            "review's changes. Give the repository its own environment (`uv sync`, or "
            "`python -m venv .venv && .venv/bin/pip install -e .`), or say how to test it "
            "with --test-cmd"
        )
    return guard(root)
