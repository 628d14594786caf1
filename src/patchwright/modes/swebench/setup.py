"""Everything an instance needs before the first test run: its directory, the checkout at
the base commit and the environment to run in."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.envs import (
    EnvironmentUnavailable,
    InstallSpec,
    InstanceSandbox,
    LocalEnvironments,
    host_environment,
    spec_for,
)
from patchwright.envs.docker import require_docker
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.repos import Repos

ENV_KINDS = ("local", "host", "docker")


@dataclass
class Where:
    """Where instances live and how their environments are made."""

    workdir: Path
    repos_dir: Path | None = None
    env: str = "local"
    python: Path | None = None  # host: the interpreter (default: patchwright's own)
    online: bool = False
    keep: bool = False  # keep each instance's checkout and virtualenv afterwards
    log: Callable[[str], None] = field(default=lambda _line: None)

    @property
    def repos(self) -> Repos:
        return Repos(self.workdir / "cache", self.repos_dir, online=self.online)


@dataclass
class Prepared:
    instance: Instance
    spec: InstallSpec
    env: InstanceSandbox
    home: Path

    @property
    def repo(self) -> Path:
        return self.env.repo


def instance_home(where: Where, instance: Instance) -> Path:
    return where.workdir / "instances" / instance.instance_id


def prepare_instance(where: Where, instance: Instance) -> Prepared:
    """The checkout at the base commit and its environment (``EnvironmentUnavailable`` or
    ``RepoError`` when either cannot be made)."""
    if where.env not in ENV_KINDS:
        raise EnvironmentUnavailable(f"--env {where.env}: use one of {', '.join(ENV_KINDS)}")
    if where.env == "docker":
        require_docker()
        raise EnvironmentUnavailable(
            "the docker environment grades predictions (swebench eval --env docker) but does "
            "not yet run the solving pipeline; use --env local"
        )
    spec = spec_for(instance.repo, instance.version, instance.eval_script)
    home = instance_home(where, instance)
    repos = where.repos
    if home.exists():
        cleanup(where, instance, home)
    home.mkdir(parents=True)
    repo = repos.worktree(instance.repo, instance.base_commit, home / "repo")
    if where.env == "host":
        return Prepared(instance, spec, host_environment(home, repo, where.python), home)
    envs = LocalEnvironments(where.workdir / "cache" / "envs", log=where.log)
    setup_commit = instance.environment_setup_commit or instance.base_commit

    def checkout() -> Path:
        target = (
            where.workdir / "cache" / "envs" / envs.key(instance.repo, instance.version) / "src"
        )
        return repos.worktree(instance.repo, setup_commit, target)

    built = envs.prepare(instance.repo, instance.version, spec, checkout)
    return Prepared(instance, spec, envs.instance(built, home, repo), home)


def cleanup(where: Where, instance: Instance, home: Path) -> None:
    """Remove an instance's checkout and virtualenv."""
    where.repos.remove(instance.repo, home / "repo")
    shutil.rmtree(home, ignore_errors=True)
