"""Environments: install specs, interpreters, the local uv environment, docker's refusal,
and the Session seam that makes the gates and tools run in an environment."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from swebench_case import git, script

from patchwright.agent.session import Session
from patchwright.config import Settings
from patchwright.envs import (
    EnvironmentUnavailable,
    InstallSpec,
    LocalEnvironments,
    docker_available,
    find_python,
    host_environment,
    spec_for,
)
from patchwright.envs.docker import require_docker
from patchwright.modes.swebench.setup import Where, prepare_instance

HERE = f"{sys.version_info.major}.{sys.version_info.minor}"


def test_specs_come_from_the_official_package() -> None:
    spec = spec_for("sqlfluff/sqlfluff", "1.4")
    assert spec.source == "swebench"
    assert (spec.python, spec.packages, spec.reqs_paths) == (
        "3.9",
        "requirements.txt",
        ("requirements_dev.txt",),
    )
    assert spec.test_command(["test/a.py"]) == "pytest -rA test/a.py"
    assert spec_for("nobody/nothing", "0.1").source == "default"


def test_the_nearest_python_is_used_and_said_when_the_wanted_one_is_missing() -> None:
    exact = find_python(HERE)
    assert exact is not None and exact.exact and exact.note is None
    near = find_python(f"{sys.version_info.major}.99")
    assert near is not None and not near.exact and "wanted one is missing" in (near.note or "")
    assert find_python("9.1") is None


def test_docker_says_why_it_cannot_run() -> None:
    why = docker_available()
    if why is None:
        pytest.skip("a Docker engine is reachable here")
    assert "docker" in why.lower()
    with pytest.raises(EnvironmentUnavailable):
        require_docker()


def test_a_session_given_an_environment_runs_commands_there(
    calc_world: dict[str, Any], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    repo = home / "repo"
    repo.mkdir(parents=True)
    (repo / "mod.py").write_text("VALUE = 42\n")
    env = host_environment(home, repo, Path(sys.executable))
    session = Session(Settings(), repo, model=script(tmp_path, [{"content": ""}]), environment=env)
    try:
        assert session.sandbox is env
        ran = session.sandbox.run("python -c 'import mod, sys; print(mod.VALUE, sys.prefix)'")
        assert ran.exit_code == 0, ran.stderr
        assert ran.stdout.split() == [
            "42",
            sys.prefix,
        ]  # the environment's interpreter, in the checkout
    finally:
        session.close()
        env.close()


def test_the_local_environment_builds_once_and_installs_each_checkout(
    calc_world: dict[str, Any],
) -> None:
    tmp = calc_world["tmp"]
    repo_dir = tmp / "src" / "calc"
    (repo_dir / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='calc', packages=['calc'])\n"
    )
    git(repo_dir, "add", "-A")
    git(repo_dir, "commit", "-q", "-m", "setup.py")
    git(repo_dir, "push", "-q", str(calc_world["mirrors"] / "example__calc.git"), "main")
    instance = calc_world["instance"].__class__(**{**calc_world["instance"].__dict__,
                                                    "base_commit": git(repo_dir, "rev-parse", "HEAD").strip(),
                                                    "environment_setup_commit": ""})  # fmt: skip
    spec = InstallSpec(python=HERE, install="", test_cmd="pytest -rA")
    envs = LocalEnvironments(tmp / "work" / "cache" / "envs")
    where = Where(tmp / "work", calc_world["mirrors"], env="local")
    built = envs.prepare(instance.repo, instance.version, spec, lambda: where.repos.worktree(
        instance.repo, instance.base_commit, tmp / "setup-checkout"))  # fmt: skip
    assert "coverage" in built.lock.read_text()
    again = envs.prepare(instance.repo, instance.version, spec, lambda: pytest.fail("rebuilt"))
    assert again.lock == built.lock
    home = tmp / "work" / "instances" / instance.instance_id
    home.mkdir(parents=True)
    repo = where.repos.worktree(instance.repo, instance.base_commit, home / "repo")
    env = envs.instance(built, home, repo)
    try:
        ran = env.run("python -c 'import calc.ops, coverage; print(calc.ops.__file__)'")
        assert ran.exit_code == 0, ran.stderr
        assert ran.stdout.strip() == str(repo / "calc" / "ops.py")
        assert env.kind == "local" and env.notes == []
    finally:
        env.close()


def test_an_unknown_environment_kind_is_refused(calc_world: dict[str, Any]) -> None:
    with pytest.raises(EnvironmentUnavailable, match="use one of local, host, docker"):
        prepare_instance(Where(calc_world["tmp"] / "w", env="vm"), calc_world["instance"])


def test_a_requirement_with_no_installable_release_is_left_out_of_a_copy(tmp_path: Path) -> None:
    (tmp_path / "requirements_dev.txt").write_text(
        "pytest>=7\ntypes-pkg_resources\nflake8  # lint\n"
    )
    envs = LocalEnvironments(tmp_path / "envs")
    args = envs._without(["-q", "-r", "requirements_dev.txt"], "types-pkg-resources", tmp_path)
    assert args[:2] == ["-q", "-r"] and Path(args[2]).parent == tmp_path / "envs"
    assert Path(args[2]).read_text().split() == ["pytest>=7", "flake8", "#", "lint"]
    assert (tmp_path / "requirements_dev.txt").read_text().count("types-pkg_resources") == 1
