"""The ``docker`` environment: the official SWE-bench images, when a Docker engine is
reachable. There is none on machines without one; callers get a clear refusal."""

from __future__ import annotations

import shutil
import subprocess

from patchwright.envs.base import EnvironmentUnavailable


def docker_available() -> str | None:
    """None when a Docker engine answers; otherwise why not, and what to do."""
    exe = shutil.which("docker")
    if exe is None:
        return "the docker environment needs the docker CLI and a running engine; none here"
    try:
        probe = subprocess.run([exe, "info", "--format", "{{.ServerVersion}}"],
                               capture_output=True, text=True, timeout=20, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return "docker info did not answer within 20 s: is the engine running?"
    if probe.returncode != 0:
        why = (probe.stderr or probe.stdout).strip().splitlines()[-1:] or ["no answer"]
        return f"no Docker engine is reachable ({why[0]}); start one or use --env local"
    return None


def require_docker() -> None:
    """Raise ``EnvironmentUnavailable`` unless a Docker engine answers."""
    why = docker_available()
    if why is not None:
        raise EnvironmentUnavailable(why)


def image_for(instance_id: str, image: str = "") -> str:
    """The official evaluation image of an instance (the dataset's ``image`` column when
    present)."""
    if image:
        return image
    name = instance_id.replace("__", "_1776_").lower()
    return f"swebench/sweb.eval.x86_64.{name}:latest"


def run_eval_script(image: str, script: str, timeout: float = 1800.0) -> tuple[int | None, str]:
    """Run an evaluation script in a fresh container of ``image``: (exit code, log)."""
    require_docker()
    argv = ["docker", "run", "--rm", "-i", "--network", "none", image, "bash", "-s"]
    try:
        proc = subprocess.run(argv, input=script, capture_output=True, text=True,
                              timeout=timeout, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f}s"
    return proc.returncode, proc.stdout + proc.stderr
