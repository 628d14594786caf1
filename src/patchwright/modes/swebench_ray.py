"""Starting Ray for a batch: a local Ray on demand (``ray.init()``), or a connection to an
existing cluster.

On a small, busy machine Ray's dashboard agent can take longer to start than the raylet
waits for the file in which the agent publishes its ports (about 30 s), and the node fails
to start. A local Ray started here gives the agent fixed free ports up front, so there is no
file to wait for.
"""

from __future__ import annotations

import socket
import time
from typing import Any


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError(
            "Ray is not installed: install the extra (pip install 'patchwright[swebench]') "
            "or run with --workers 1"
        ) from exc
    return ray


def _pin_agent_ports() -> None:
    """Fixed free ports for the agent (see the module docstring); left alone on a Ray
    version without these parameters."""
    try:
        from ray._private import parameter
    except ImportError:
        return
    params = parameter.RayParams
    if getattr(params, "_patchwright_pinned", False):
        return
    original = params.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        for name in ("metrics_agent_port", "dashboard_agent_listen_port", "runtime_env_agent_port"):
            if hasattr(self, name) and not getattr(self, name):
                setattr(self, name, _free_port())

    setattr(params, "__init__", init)  # noqa: B010 - a method replaced on purpose
    setattr(params, "_patchwright_pinned", True)  # noqa: B010


def start_ray(workers: int, address: str | None) -> tuple[Any, bool, float]:
    """Ray, whether this call started it (and should shut it down), and the seconds it took."""
    ray = import_ray()
    started = time.monotonic()
    if ray.is_initialized():
        return ray, False, 0.0
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        _pin_agent_ports()
        ray.init(num_cpus=max(workers, 1), include_dashboard=False, log_to_driver=False,
                 configure_logging=False, _metrics_export_port=_free_port())  # fmt: skip
    return ray, True, time.monotonic() - started
