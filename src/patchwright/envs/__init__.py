"""patchwright.envs: where a task's commands execute — the ``Environment`` seam.

``Environment`` is the protocol (run a command, say what the environment is); ``host``
runs with an interpreter that is already set up, ``local`` with a uv virtualenv per
(repository, version) built from an install spec, ``docker`` in an official SWE-bench
image when a Docker engine is reachable. The local kinds are sandboxes (``InstanceSandbox``,
a ``Sandbox`` whose commands see the environment's interpreter first), so the gates and the
agent's tools run through them unchanged.

Public API: ``Environment``, ``EnvironmentUnavailable``, ``InstallSpec``, ``spec_for``,
``InstanceSandbox``, ``host_environment``, ``LocalEnvironments``, ``find_python``,
``docker_available``.
"""

from __future__ import annotations

from patchwright.envs.base import Environment, EnvironmentUnavailable
from patchwright.envs.docker import docker_available
from patchwright.envs.instance import InstanceSandbox, host_environment
from patchwright.envs.local import LocalEnvironments
from patchwright.envs.pythons import find_python
from patchwright.envs.specs import InstallSpec, spec_for, test_files_of

__all__ = [
    "Environment",
    "EnvironmentUnavailable",
    "InstallSpec",
    "InstanceSandbox",
    "LocalEnvironments",
    "docker_available",
    "find_python",
    "host_environment",
    "spec_for",
    "test_files_of",
]
