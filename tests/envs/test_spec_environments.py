"""Specification of the environments a task's commands run in, without building any: which
interpreter serves a wanted Python version, how uv is found, what an instance sandbox puts
in front of its commands (``host``), the ``local`` cache's keys and reuse of a built
environment, and the ``docker`` kind's refusal and image names — with fake ``docker`` and
``uv`` executables on a controlled ``PATH``, never a real engine or build."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from patchwright.envs import (
    EnvironmentUnavailable,
    InstallSpec,
    InstanceSandbox,
    LocalEnvironments,
    docker_available,
    find_python,
    host_environment,
)
from patchwright.envs.docker import image_for, require_docker, run_eval_script
from patchwright.envs.instance import import_roots
from patchwright.envs.pythons import uv_command


def executable(path: Path, body: str = "exit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine with nothing on it: an empty ``PATH``, a home and a pyenv root of its own."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    return tmp_path


def pyenv_python(machine: Path, version: str, name: str = "python3") -> Path:
    return executable(machine / "pyenv" / "versions" / version / "bin" / name)


# -- interpreters -------------------------------------------------------------------------


def test_the_exact_version_is_used_when_it_is_installed(machine: Path) -> None:
    wanted = pyenv_python(machine, "3.9.18")
    pyenv_python(machine, "3.11.4")
    found = find_python("3.9")
    assert found is not None
    assert (found.path, found.version, found.exact, found.note) == (wanted, "3.9", True, None)


def test_the_nearest_minor_version_is_used_and_a_tie_goes_to_the_newer(machine: Path) -> None:
    pyenv_python(machine, "3.7.17")
    newer = pyenv_python(machine, "3.9.18")
    found = find_python("3.8")
    assert found is not None and found.path == newer and not found.exact
    assert found.note == "Python 3.9 used: the wanted one is missing"


def test_no_interpreter_of_the_wanted_major_version_is_none(machine: Path) -> None:
    pyenv_python(machine, "3.9.18")
    assert find_python("2.7") is None
    assert find_python("latest") is None


def test_uv_managed_interpreters_and_versioned_names_on_path_count_too(machine: Path) -> None:
    uv_python = executable(
        machine / "home" / ".local" / "share" / "uv" / "python"
        / "cpython-3.10.14-linux-x86_64-gnu" / "bin" / "python3"
    )  # fmt: skip
    on_path = executable(machine / "bin" / "python3.12")
    assert find_python("3.10").path == uv_python  # type: ignore[union-attr]
    assert find_python("3.12").path == on_path  # type: ignore[union-attr]


def test_pyenv_s_interpreter_is_preferred_over_one_on_path(machine: Path) -> None:
    pyenv = pyenv_python(machine, "3.12.1", name="python")
    executable(machine / "bin" / "python3.12")
    assert find_python("3.12").path == pyenv  # type: ignore[union-attr]


def test_a_version_folder_without_an_interpreter_is_skipped(machine: Path) -> None:
    (machine / "pyenv" / "versions" / "3.9.1" / "bin").mkdir(parents=True)
    assert find_python("3.9") is None


def test_uv_is_found_on_path_else_in_the_user_s_local_bin_else_not_at_all(machine: Path) -> None:
    assert uv_command() is None
    local = executable(machine / "home" / ".local" / "bin" / "uv")
    assert uv_command() == [str(local)]
    on_path = executable(machine / "bin" / "uv")
    assert uv_command() == [str(on_path)]


# -- the local environments' cache ----------------------------------------------------------


def test_the_local_environment_needs_uv_and_says_how_to_get_it(machine: Path) -> None:
    with pytest.raises(EnvironmentUnavailable, match=r"needs uv: install it .* or use --env host"):
        LocalEnvironments(machine / "envs")


def test_a_built_environment_s_key_is_the_repository_and_version() -> None:
    assert LocalEnvironments.key("pylint-dev/astroid", "2.15") == "pylint-dev__astroid__2.15"


def test_a_built_environment_is_reused_without_a_checkout_or_a_build(machine: Path) -> None:
    uv = executable(machine / "bin" / "uv", 'echo called >> "$HOME/uv.log"; exit 1\n')
    envs = LocalEnvironments(machine / "envs")
    assert envs.uv == [str(uv)]
    folder = machine / "envs" / "o__r__1.0"
    folder.mkdir(parents=True)
    (folder / "env.json").write_text(json.dumps({"python": "/opt/py/3.8/bin/python3",
                                                 "notes": ["Python 3.8 used"], "seconds": 9}))  # fmt: skip
    (folder / "requirements.lock").write_text("pytest==7.4.0\n")

    def checkout() -> Path:
        raise AssertionError("a built environment needs no checkout")

    built = envs.prepare("o/r", "1.0", InstallSpec(), checkout)
    assert (built.key, built.python, built.lock) == ("o__r__1.0", "/opt/py/3.8/bin/python3",
                                                     folder / "requirements.lock")  # fmt: skip
    assert built.notes == ["Python 3.8 used"]
    assert envs.prepare("o/r", "1.0", InstallSpec(), checkout) == built
    assert not (machine / "home" / "uv.log").exists()  # uv never ran


def test_an_environment_without_its_lock_is_built_again(machine: Path) -> None:
    executable(machine / "bin" / "uv")
    folder = machine / "envs" / "o__r__1.0"
    folder.mkdir(parents=True)
    (folder / "env.json").write_text(json.dumps({"python": "/x/python3"}))
    asked: list[str] = []

    def checkout() -> Path:
        asked.append("checkout")
        return machine

    with pytest.raises(EnvironmentUnavailable, match=r"o__r__1\.0: no Python 3\.x here"):
        LocalEnvironments(machine / "envs").prepare("o/r", "1.0", InstallSpec(python="3.8"),
                                                    checkout)  # fmt: skip
    assert asked == ["checkout"]


# -- instance sandboxes -------------------------------------------------------------------


def test_packages_import_from_src_when_it_holds_one_and_from_the_checkout(tmp_path: Path) -> None:
    assert import_roots(tmp_path) == [tmp_path]
    (tmp_path / "src" / "docs").mkdir(parents=True)
    assert import_roots(tmp_path) == [tmp_path]  # src/ without a package
    (tmp_path / "src" / "pkg").mkdir()
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    assert import_roots(tmp_path) == [tmp_path / "src", tmp_path]


def test_a_virtualenv_s_bin_comes_first_on_path_and_names_the_virtualenv(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "repo").mkdir()
    sandbox = InstanceSandbox(tmp_path, tmp_path / "repo", kind="local", bin_dir=venv / "bin",
                              python_path=[tmp_path / "a", tmp_path / "b"], notes=["n"])  # fmt: skip
    assert sandbox.variables["PATH"].split(os.pathsep)[0] == str(venv / "bin")
    assert sandbox.variables["VIRTUAL_ENV"] == str(venv)
    assert sandbox.variables["PYTHONPATH"] == os.pathsep.join(
        [str(tmp_path / "a"), str(tmp_path / "b")]
    )
    assert (sandbox.kind, sandbox.notes) == ("local", ["n"])


def test_a_plain_bin_dir_is_not_called_a_virtualenv_and_nothing_is_set_without_one(
    tmp_path: Path,
) -> None:
    (tmp_path / "bin").mkdir()
    assert "VIRTUAL_ENV" not in InstanceSandbox(tmp_path, tmp_path, kind="host",
                                                bin_dir=tmp_path / "bin").variables  # fmt: skip
    assert InstanceSandbox(tmp_path, tmp_path, kind="host").variables == {}


def test_the_host_environment_uses_the_interpreter_as_it_is(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    (repo / "src" / "pkg" / "__init__.py").write_text("")
    python = Path(sys.executable)
    env = host_environment(tmp_path, repo, python)
    assert env.kind == "host" and env.repo == repo.resolve()
    assert env.notes == [f"host environment: {python} as it is, nothing installed"]
    assert env.variables["PATH"].split(os.pathsep)[0] == str(python.parent)
    assert env.variables["PYTHONPATH"] == os.pathsep.join([str(repo / "src"), str(repo)])


def test_an_instance_s_commands_run_in_its_checkout_with_its_variables(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = host_environment(tmp_path, repo)
    try:
        ran = env.run('pwd; echo "$PYTHONPATH"; echo "$EXTRA"', extra_env={"EXTRA": "given"})
        assert ran.exit_code == 0, ran.stderr
        assert ran.stdout.splitlines() == [str(repo.resolve()), str(repo.resolve()), "given"]
    finally:
        env.close()


# -- docker -------------------------------------------------------------------------------


def test_the_official_image_is_the_dataset_s_column_or_derived_from_the_id() -> None:
    assert image_for("sqlfluff__sqlfluff-4764") == (
        "swebench/sweb.eval.x86_64.sqlfluff_1776_sqlfluff-4764:latest"
    )  # the image column of that row in bench/swebench_dev.jsonl
    assert image_for("Owner__Repo-1") == "swebench/sweb.eval.x86_64.owner_1776_repo-1:latest"
    assert image_for("o__r-1", "registry.example/img:tag") == "registry.example/img:tag"


def test_without_the_docker_cli_the_docker_kind_is_refused_with_the_reason(machine: Path) -> None:
    why = docker_available()
    assert why == "the docker environment needs the docker CLI and a running engine; none here"
    with pytest.raises(EnvironmentUnavailable, match="needs the docker CLI"):
        require_docker()
    with pytest.raises(EnvironmentUnavailable):
        run_eval_script("img", "echo hi")


def test_a_cli_without_an_engine_gives_the_engine_s_last_words(machine: Path) -> None:
    executable(machine / "bin" / "docker",
               "echo 'Client: Docker Engine'\necho 'Cannot connect to the Docker daemon' >&2\n"
               "exit 1\n")  # fmt: skip
    assert docker_available() == (
        "no Docker engine is reachable (Cannot connect to the Docker daemon); "
        "start one or use --env local"
    )


def test_an_eval_script_runs_on_stdin_in_a_fresh_offline_container(machine: Path) -> None:
    executable(machine / "bin" / "docker",
               'if [ "$1" = info ]; then echo 24.0.7; exit 0; fi\n'
               'echo "argv: $*"; /bin/cat; exit 3\n')  # fmt: skip
    assert docker_available() is None
    code, log = run_eval_script("swebench/img:latest", "pytest -rA t.py\n")
    assert code == 3
    assert log == "argv: run --rm -i --network none swebench/img:latest bash -s\npytest -rA t.py\n"
