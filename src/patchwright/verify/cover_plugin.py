"""A pytest plugin that records, per test, the lines of the repository each test runs.

patchwright copies this file into the sandbox's scratch directory, puts that directory first
on ``PYTHONPATH`` and loads it with ``-p patchwright_cover_plugin`` (see ``testcover``). It
runs in the *repository's* interpreter, so it uses only the standard library, pytest and
coverage.py, and keeps to what Python 3.7 accepts. Nothing happens unless
``PATCHWRIGHT_COVER_DIR`` is set: importing it elsewhere starts nothing.

Every process (an xdist worker too) writes ``<dir>/cover-<pid>.json``: either
``{"error": why}`` or ``{"contexts": {test id or "": {path: [lines]}}}`` with paths relative to
the working directory; ``""`` holds what ran outside any test (imports, collection).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest

_DIR = os.environ.get("PATCHWRIGHT_COVER_DIR", "")
_ROOT = os.path.realpath(os.getcwd())
_SKIP = (".venv/", "venv/", ".patchwright/", ".tox/", ".nox/")  # environments in the repo
_cov: Any = None
_error = ""


def _write(payload: dict[str, Any]) -> None:
    path = os.path.join(_DIR, f"cover-{os.getpid()}.json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump(payload, out)


def _start() -> None:
    global _cov, _error
    try:
        import coverage
    except Exception as exc:  # not importable by this interpreter: measure nothing
        _error = f"coverage.py is not importable by {sys.executable} ({exc})"
        return
    if not hasattr(coverage.Coverage, "switch_context"):
        version = coverage.__version__
        _error = f"coverage.py {version} has no per-test contexts (5.0 or later needed)"
        return
    _cov = coverage.Coverage(data_file=None, config_file=False, branch=False)
    _cov.start()


if _DIR:
    _start()


def pytest_configure(config: pytest.Config) -> None:
    if _DIR and _error:
        _write({"error": _error})
        pytest.exit(_error, returncode=0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    if _cov is not None:
        _cov.switch_context(item.nodeid)
    yield
    if _cov is not None:
        _cov.switch_context("")


def _relative(path: str) -> str | None:
    real = os.path.realpath(path)
    if not real.startswith(_ROOT + os.sep):
        return None
    rel = os.path.relpath(real, _ROOT).replace(os.sep, "/")
    return None if rel.startswith(_SKIP) or "/site-packages/" in rel else rel


def pytest_unconfigure(config: pytest.Config) -> None:
    if _cov is None:
        return
    _cov.stop()
    data = _cov.get_data()
    contexts: dict[str, dict[str, list[int]]] = {}
    for measured in data.measured_files():
        rel = _relative(measured)
        if rel is None:
            continue
        for line, names in (data.contexts_by_lineno(measured) or {}).items():
            for name in names:
                contexts.setdefault(name, {}).setdefault(rel, []).append(line)
    _write({"contexts": contexts})
