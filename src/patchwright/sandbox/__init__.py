"""patchwright.sandbox: run commands contained (process group, rlimits, scrubbed env,
bubblewrap or ``unshare -n``), and judge them first with a parsed command-danger policy.

Public API: ``Sandbox``, ``ExecResult``, ``Limits``, ``classify``, ``Verdict``,
``Isolation``, ``build_env``.
"""

from __future__ import annotations

from patchwright.sandbox.envbuild import build_env
from patchwright.sandbox.isolation import Isolation
from patchwright.sandbox.policy import classify
from patchwright.sandbox.result import ExecResult, Limits
from patchwright.sandbox.runner import Sandbox
from patchwright.sandbox.verdict import Verdict

__all__ = ["ExecResult", "Isolation", "Limits", "Sandbox", "Verdict", "build_env", "classify"]
