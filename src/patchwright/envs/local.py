"""The ``local`` environment: a uv virtualenv per (repository, version), built once from the
install spec and reused.

Building (online, once per key, under a file lock so parallel workers wait for one build):
a virtualenv on the spec's Python (or the nearest one, noted), the spec's packages,
``pip_packages`` and install command (``python -m pip install`` runs as ``uv pip install``
so every wheel lands in uv's cache), plus ``coverage`` (for fault localisation) and the
build backend; ``uv pip freeze`` of the result is the key's lock. Per instance (offline):
a fresh ``.venv`` in the instance directory from that lock (uv's cache; pip where uv
refused), and the instance's own checkout installed editable without dependencies — so each instance runs its own code, and
instances of one key can run side by side.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.envs.base import EnvironmentUnavailable
from patchwright.envs.instance import InstanceSandbox, import_roots
from patchwright.envs.pythons import find_python, uv_command
from patchwright.envs.specs import InstallSpec

Log = Callable[[str], None]
_PIP_INSTALL = re.compile(r"^\s*python -m pip install\b")
# setuptools 81 dropped pkg_resources, which older projects import at run time
_EXTRAS = ("coverage", "setuptools<81", "wheel")


@dataclass
class BuiltEnv:
    """A built (repository, version) environment: its interpreter, lock and notes."""

    key: str
    python: str
    lock: Path
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


# uv trusts the system's certificate store, as pip and curl do, unless the user says otherwise:
# with its bundled roots, a proxy that re-signs TLS (corporate networks) fails every install
# ("invalid peer certificate: UnknownIssuer"). UV_NATIVE_TLS is the older releases' name.
SYSTEM_CERTS = {"UV_SYSTEM_CERTS": "1", "UV_NATIVE_TLS": "1"}


class LocalEnvironments:
    """The cache of built environments under ``cache`` (see the module docstring)."""

    def __init__(self, cache: Path, *, log: Log | None = None, timeout: float = 1800.0) -> None:
        self.cache = Path(cache).resolve()
        self.log = log or (lambda _line: None)
        self.timeout = timeout
        uv = uv_command()
        if uv is None:
            raise EnvironmentUnavailable(
                "the local environment needs uv: install it (pip install uv) or use --env host"
            )
        self.uv = uv

    @staticmethod
    def key(repo: str, version: str) -> str:
        return f"{repo.replace('/', '__')}__{version}"

    def prepare(
        self, repo: str, version: str, spec: InstallSpec, checkout: Callable[[], Path]
    ) -> BuiltEnv:
        """The built environment of ``repo`` at ``version``, building it first if needed
        (``checkout`` gives a checkout at the environment's setup commit)."""
        key = self.key(repo, version)
        folder = self.cache / key
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / ".lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            built = _read_built(folder, key)
            if built is not None:
                return built
            return self._build(folder, key, spec, checkout())

    def _build(self, folder: Path, key: str, spec: InstallSpec, checkout: Path) -> BuiltEnv:
        started = time.monotonic()
        found = find_python(spec.python)
        if found is None:
            raise EnvironmentUnavailable(
                f"{key}: no Python {spec.python.split('.')[0]}.x here; install Python "
                f"{spec.python} (e.g. pyenv install {spec.python}) and run again"
            )
        notes = [n for n in (found.note, *spec.notes) if n]
        venv = folder / "venv"
        python = str(venv / "bin" / "python")
        self._run([*self.uv, "venv", "--seed", "-q", "--clear", "-p", str(found.path), str(venv)])
        env = {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "VIRTUAL_ENV": str(venv)}
        for command in spec.pre_install:
            if re.search(r"\bapt(-get)?\b", command):
                notes.append(f"system packages not installed (needs root/apt): {command}")
            else:
                self._run(["bash", "-c", command], cwd=checkout, env=env)
        self._install_packages(spec, checkout, python, notes)
        if spec.install.strip():
            self._install_project(spec.install, checkout, python, env, notes)
        self._install([*_EXTRAS, *_build_requires(checkout)], python, notes)
        frozen = self._run([*self.uv, "pip", "freeze", "--exclude-editable", "--python", python])
        lock = folder / "requirements.lock"
        lock.write_text(frozen, encoding="utf-8")
        built = BuiltEnv(key, str(found.path), lock, notes, time.monotonic() - started)
        (folder / "env.json").write_text(json.dumps({"python": built.python, "notes": notes,
                                                     "seconds": round(built.seconds, 1)}))  # fmt: skip
        return built

    def _install_packages(
        self, spec: InstallSpec, checkout: Path, python: str, notes: list[str]
    ) -> None:
        if spec.packages == "requirements.txt":
            paths = [p for p in spec.reqs_paths if (checkout / p).is_file()]
            for path in paths:
                self._install(["-r", path], python, notes, cwd=checkout)
            if not paths:
                notes.append("requirements file of the spec not found in the checkout")
        elif spec.packages == "environment.yml":
            notes.append("conda environment.yml not supported by the local environment: skipped")
        elif spec.packages.strip():
            self._install(spec.packages.split(), python, notes)
        if spec.pip_packages:
            self._install(list(spec.pip_packages), python, notes)

    def _install_project(
        self, command: str, checkout: Path, python: str, env: dict[str, str], notes: list[str]
    ) -> None:
        """The spec's install command: as ``uv pip install``, else as written (pip), else —
        for a build backend without PEP 660 editable builds and no ``setup.py`` — without
        ``-e`` (each instance's own checkout is then imported from ``PYTHONPATH``)."""
        uv = _PIP_INSTALL.sub(f"{' '.join(self.uv)} pip install --python {python}", command)
        plain = re.sub(r"\s-e\s+", " ", command)
        attempts = [(uv, ""), (command, "ran with pip"), (plain, "installed without -e")]
        for i, (argv, _how) in enumerate(attempts):
            if i and argv == attempts[i - 1][0]:
                continue
            try:
                self._run(["bash", "-c", argv], cwd=checkout, env=env)
                return
            except EnvironmentUnavailable as exc:
                if i == len(attempts) - 1:
                    raise
                notes.append(f"install: {attempts[i + 1][1]} ({_last_line(exc)[:160]})")

    def _install(
        self, args: Sequence[str], python: str, notes: list[str], *, cwd: Path | None = None
    ) -> None:
        """``uv pip install ARGS``; where uv refuses, pip; where pip finds no release of a
        requirement (all yanked or removed since), that requirement is left out and said."""
        if not args:
            return
        try:
            self._run([*self.uv, "pip", "install", "-q", "--python", python, *args], cwd=cwd)
            return
        except EnvironmentUnavailable as exc:
            notes.append(
                f"pip install {' '.join(args)}: ran with pip (uv: {_last_line(exc)[:160]})"
            )
        args = list(args)
        for _ in range(5):
            try:
                self._run([python, "-m", "pip", "install", "-q", *args], cwd=cwd)
                return
            except EnvironmentUnavailable as exc:
                missing = re.search(r"No matching distribution found for ([\w.\-\[\]]+)", str(exc))
                if missing is None or "-r" not in args:
                    raise
                args = self._without(args, missing.group(1), cwd or Path.cwd())
                notes.append(f"requirement {missing.group(1)} has no installable release: left out")
        raise EnvironmentUnavailable(f"pip install {' '.join(args)}: too many missing requirements")

    def _without(self, args: list[str], name: str, cwd: Path) -> list[str]:
        """``args`` with the requirements file after ``-r`` copied, less the line naming
        ``name`` (the copy lives in the cache, not in the checkout)."""
        at = args.index("-r") + 1
        source = cwd / args[at]
        key = re.sub(r"[-_.]+", "-", name).lower()
        kept = [line for line in source.read_text(encoding="utf-8").splitlines()
                if re.sub(r"[-_.]+", "-", re.split(r"[<>=!~;\[ ]", line.strip(), maxsplit=1)[0]).lower() != key]  # fmt: skip
        self.cache.mkdir(parents=True, exist_ok=True)
        copy = self.cache / f"filtered-{hashlib.sha1(str(source).encode()).hexdigest()[:12]}.txt"
        copy.write_text("\n".join(kept) + "\n", encoding="utf-8")
        return [*args[:at], str(copy), *args[at + 1 :]]

    def _run(
        self, argv: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> str:
        self.log(" ".join(argv))
        full_env = {**SYSTEM_CERTS, **os.environ, **(env or {})}
        proc = subprocess.run(list(argv), cwd=cwd, env=full_env, capture_output=True, text=True,
                              timeout=self.timeout, check=False)  # fmt: skip
        if proc.returncode != 0:
            tail = (proc.stdout + proc.stderr).strip()[-1500:]
            raise EnvironmentUnavailable(f"install step failed: {' '.join(argv)}\n{tail}")
        return proc.stdout

    def instance(self, built: BuiltEnv, home: Path, repo: Path) -> InstanceSandbox:
        """A fresh virtualenv for one instance (offline, from the key's lock and uv's cache)
        and the sandbox that runs in it."""
        venv = home / ".venv"
        python = str(venv / "bin" / "python")
        notes = list(built.notes)
        self._run([*self.uv, "venv", "-q", "--seed", "--clear", "-p", built.python, str(venv)])
        lock = ["-r", str(built.lock)]
        try:
            self._run([*self.uv, "pip", "install", "-q", "--offline", "--python", python, *lock])
        except EnvironmentUnavailable:  # something pip installed is not in uv's cache
            self._install(lock, python, notes)
        python_path: list[Path] = []
        try:  # pip falls back to ``setup.py develop`` where setuptools predates PEP 660
            self._run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                       "--no-build-isolation", "-e", str(repo)])  # fmt: skip
        except EnvironmentUnavailable as exc:
            notes.append("the checkout could not be installed editable, so it is imported "
                         f"from PYTHONPATH instead ({_last_line(exc)[:200]})")  # fmt: skip
            python_path = import_roots(repo)
        return InstanceSandbox(home, repo, kind="local", bin_dir=venv / "bin",
                               python_path=python_path, notes=notes)  # fmt: skip


def _last_line(exc: Exception) -> str:
    lines = [x.strip() for x in str(exc).splitlines() if x.strip()]
    return lines[-1] if lines else str(exc)


def _read_built(folder: Path, key: str) -> BuiltEnv | None:
    meta, lock = folder / "env.json", folder / "requirements.lock"
    if not (meta.is_file() and lock.is_file()):
        return None
    data = json.loads(meta.read_text(encoding="utf-8"))
    return BuiltEnv(key, str(data["python"]), lock, list(data.get("notes", [])))


def _build_requires(checkout: Path) -> list[str]:
    """The build backend the checkout's ``pyproject.toml`` names (for offline editable
    installs without build isolation)."""
    pyproject = checkout / "pyproject.toml"
    if not pyproject.is_file():
        return []
    import tomllib

    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    requires = data.get("build-system", {}).get("requires", [])
    return [str(r) for r in requires if isinstance(r, str)]
