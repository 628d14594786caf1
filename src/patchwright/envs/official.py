"""The official ``swebench`` package's data, loaded light.

``import swebench`` runs its package ``__init__``, which imports the whole harness (Docker,
Hugging Face ``datasets``, Modal): about 20 s. The install specs and the log parsers are
plain Python that need none of it, so their modules are loaded under bare package stubs
(each parent package of the module loaded, and ``swebench.harness.test_spec``) that skip
those ``__init__`` files — in well under a second. Where the package is absent, callers fall back
to their own rules.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from functools import cache
from pathlib import Path
from typing import Any


def _stub(name: str, path: Path) -> None:
    if name not in sys.modules:
        module = types.ModuleType(name)
        module.__path__ = [str(path)]
        sys.modules[name] = module


@cache
def _root() -> Path | None:
    try:
        spec = importlib.util.find_spec("swebench")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def load(module: str) -> Any | None:
    """``swebench.<module>`` loaded without the package's heavy ``__init__`` files; None
    when the package is not installed or the module cannot be loaded."""
    root = _root()
    if root is None:
        return None
    parts = ["swebench", *module.split(".")[:-1]]
    for depth in range(1, len(parts) + 1):  # every parent package, bare
        _stub(".".join(parts[:depth]), root.joinpath(*parts[1:depth]))
    _stub("swebench.harness.test_spec", root / "harness" / "test_spec")
    if "swebench.harness.test_spec.test_spec" not in sys.modules:
        shim = types.ModuleType("swebench.harness.test_spec.test_spec")
        shim.TestSpec = object  # type: ignore[attr-defined]  # only a type annotation there
        sys.modules[shim.__name__] = shim
    try:
        return importlib.import_module(f"swebench.{module}")
    except Exception:  # an incompatible version: the caller's fallback applies
        return None
