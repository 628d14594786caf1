"""Starting Ray for a batch: a local Ray on demand (``ray.init()``), or a connection to an
existing cluster.

On a small, busy machine Ray's node agent can take longer to start than the raylet waits
for it (30 s); the error then says so and points at ``--workers 1``.

A driver started by ``uv run`` (``make test`` is) would, by Ray's default, start every worker
through ``uv run`` again, with the working directory packaged as a runtime environment; the
workers then never come up offline. Our workers need nothing but this interpreter, so that
hook is off unless the user sets ``RAY_ENABLE_UV_RUN_RUNTIME_ENV`` themselves.
"""

from __future__ import annotations

import os
import time
from typing import Any

UV_HOOK = "RAY_ENABLE_UV_RUN_RUNTIME_ENV"


def import_ray() -> Any:
    os.environ.setdefault(UV_HOOK, "0")  # read when Ray is first imported
    try:
        import ray
        from ray._private import ray_constants
    except ImportError as exc:
        raise RuntimeError(
            "Ray is not installed: install the extra (pip install 'patchwright[swebench]') "
            "or run with --workers 1"
        ) from exc
    # read again, as Ray reads it, in case Ray was imported before the default was set
    ray_constants.RAY_ENABLE_UV_RUN_RUNTIME_ENV = os.environ[UV_HOOK].lower() in ("true", "1")
    return ray


def start_ray(workers: int, address: str | None) -> tuple[Any, bool, float]:
    """Ray, whether this call started it (and should shut it down), and the seconds it took."""
    ray = import_ray()
    started = time.monotonic()
    if ray.is_initialized():
        return ray, False, 0.0
    try:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=max(workers, 1), include_dashboard=False, log_to_driver=False,
                     configure_logging=False)  # fmt: skip
    except Exception as exc:  # Ray says only "timed out during startup"
        raise RuntimeError(
            f"Ray did not start ({exc}). On a small, busy machine its node agent can miss "
            "the raylet's 30 s start-up wait: try again when the machine is quieter, or run "
            "with --workers 1 (in process, no Ray)"
        ) from exc
    return ray, True, time.monotonic() - started
