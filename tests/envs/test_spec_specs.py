"""Specification of install specs: how the environment of a (repository, version) is built
and its tests run — from the official ``swebench`` package's constants where it knows the
pair, else from the instance's own ``eval_script``, else plain defaults that say so — and
which files of a test patch are the tests to run."""

from __future__ import annotations

import shlex

import pytest

from patchwright.envs import InstallSpec, spec_for
from patchwright.envs import test_files_of as files_of  # not collected
from patchwright.envs.official import load
from patchwright.envs.specs import DEFAULT_PYTHON, DEFAULT_TEST_CMD, from_mapping

# The shape of an official eval_script (from bench/swebench_dev.jsonl, shortened).
EVAL_SCRIPT = """#!/bin/bash
set -uxo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
git -c core.fileMode=false diff a820c139ccbe6d1865d73c4a459945cd69899f8f
python -m pip install -r requirements.txt
python -m pip install -e .[test]
git checkout a820c139ccbe6d1865d73c4a459945cd69899f8f test/cli/commands_test.py
git apply -v - <<'EOF_114329324912'
diff --git a/test/cli/commands_test.py b/test/cli/commands_test.py
EOF_114329324912
: '>>>>> Start Test Output'
PYTHONWARNINGS=ignore pytest -rA --tb=short test/cli/commands_test.py test/api/x_test.py::test_y
: '>>>>> End Test Output'
git checkout a820c139ccbe6d1865d73c4a459945cd69899f8f test/cli/commands_test.py
"""


def constants() -> object:
    found = load("harness.constants")
    if found is None or not hasattr(found, "MAP_REPO_VERSION_TO_SPECS"):
        pytest.skip("the swebench package is not installed here")
    return found


# -- the spec itself ----------------------------------------------------------------------


def test_the_default_spec_is_python_3_9_an_editable_install_and_pytest_ra() -> None:
    spec = InstallSpec()
    assert (spec.python, spec.install, spec.test_cmd, spec.source) == (
        DEFAULT_PYTHON, "python -m pip install -e .", DEFAULT_TEST_CMD, "default",
    )  # fmt: skip
    assert (DEFAULT_PYTHON, DEFAULT_TEST_CMD) == ("3.9", "pytest -rA")


def test_the_test_command_appends_each_file_shell_quoted() -> None:
    spec = InstallSpec(test_cmd="pytest -rA")
    command = spec.test_command(["tests/test a.py", "tests/test_b.py::test_c[x;y]"])
    assert shlex.split(command) == [
        "pytest",
        "-rA",
        "tests/test a.py",
        "tests/test_b.py::test_c[x;y]",
    ]
    assert spec.test_command([]) == "pytest -rA"


def test_the_spec_record_is_plain_json() -> None:
    spec = InstallSpec(pip_packages=("a==1",), pre_install=("apt-get install -y x",),
                       reqs_paths=("req.txt",), notes=("n",))  # fmt: skip
    assert spec.to_json() == {
        "python": "3.9", "install": "python -m pip install -e .", "packages": "",
        "pip_packages": ["a==1"], "pre_install": ["apt-get install -y x"],
        "test_cmd": "pytest -rA", "source": "default",
    }  # fmt: skip


def test_a_harness_spec_dictionary_becomes_a_spec() -> None:
    spec = from_mapping(
        {"python": 3.8, "packages": ["numpy", "scipy"], "pip_packages": ["pytest==7.4"],
         "pre_install": ["sed -i x setup.cfg"], "test_cmd": ["cd tests", "./run.py -v"]},
        reqs_paths=["requirements/dev.txt"],
    )  # fmt: skip
    assert spec.python == "3.8"
    assert spec.packages == "numpy scipy"
    assert spec.pip_packages == ("pytest==7.4",)
    assert spec.pre_install == ("sed -i x setup.cfg",)
    assert spec.test_cmd == "cd tests && ./run.py -v"  # a list of steps runs as one command
    assert spec.reqs_paths == ("requirements/dev.txt",)
    assert spec.source == "row"


def test_a_sparse_harness_spec_falls_back_to_the_defaults() -> None:
    spec = from_mapping({}, source="swebench")
    assert (spec.python, spec.install, spec.test_cmd) == ("3.9", "python -m pip install -e .",
                                                          "pytest -rA")  # fmt: skip
    assert (spec.packages, spec.pip_packages, spec.pre_install) == ("", (), ())


# -- where a spec comes from --------------------------------------------------------------


@pytest.mark.parametrize(("repo", "version"), [("django/django", "3.0"), ("sympy/sympy", "1.1"),
                                                ("pytest-dev/pytest", "5.4")])  # fmt: skip
def test_a_pair_the_harness_knows_takes_its_constants(repo: str, version: str) -> None:
    official = constants().MAP_REPO_VERSION_TO_SPECS[repo][version]  # type: ignore[attr-defined]
    spec = spec_for(repo, version, EVAL_SCRIPT)  # the constants win over the script
    assert spec.source == "swebench" and spec.notes == ()
    assert spec.python == official["python"]
    assert spec.test_cmd == official["test_cmd"]
    assert spec.install == official["install"]


def test_the_harness_s_requirements_paths_come_with_its_spec() -> None:
    reqs = constants().MAP_REPO_TO_REQS_PATHS["django/django"]  # type: ignore[attr-defined]
    assert spec_for("django/django", "3.0").reqs_paths == tuple(reqs)


def test_an_unknown_version_of_a_known_repository_is_not_guessed() -> None:
    constants()
    spec = spec_for("django/django", "0.0-never")
    assert spec.source == "default"
    assert spec.notes == ("no install spec known for django/django 0.0-never: using defaults",)


def test_without_constants_the_eval_script_gives_the_install_line_and_test_command() -> None:
    spec = spec_for("someone/unknown", "1.0", EVAL_SCRIPT)
    assert spec.source == "eval_script"
    assert spec.install == "python -m pip install -e .[test]"  # the last install line
    assert spec.test_cmd == "PYTHONWARNINGS=ignore pytest -rA --tb=short"  # files are per instance
    assert spec.python == DEFAULT_PYTHON
    assert spec.notes == ("Python version not in the eval script: using the default 3.9",)
    assert (
        spec.test_command(["t/a_test.py"])
        == "PYTHONWARNINGS=ignore pytest -rA --tb=short t/a_test.py"
    )


def test_an_eval_script_without_markers_or_install_line_keeps_the_defaults() -> None:
    spec = spec_for("someone/unknown", "1.0", "#!/bin/bash\ncd /testbed\npytest -rA t.py\n")
    assert (spec.source, spec.install, spec.test_cmd) == (
        "eval_script", "python -m pip install -e .", "pytest -rA",
    )  # fmt: skip


def test_a_blank_eval_script_is_no_eval_script() -> None:
    assert spec_for("someone/unknown", "1.0", "  \n").source == "default"


def test_an_unreadable_module_of_the_package_is_none_not_an_error() -> None:
    assert load("harness.no_such_module_here") is None


# -- the test files of a test patch -------------------------------------------------------


def test_the_test_files_are_those_the_test_patch_touches_each_once_in_order() -> None:
    patch = (
        "diff --git a/tests/test_b.py b/tests/test_b.py\n--- a/tests/test_b.py\n"
        "diff --git a/tests/test_a.py b/tests/test_a.py\nnew file mode 100644\n"
        "diff --git a/tests/test_b.py b/tests/test_b.py\n"
    )
    assert files_of(patch) == ["tests/test_b.py", "tests/test_a.py"]


@pytest.mark.parametrize(
    "data", ["tests/data/case.json", "tests/img.png", "tests/table.csv", "docs/notes.md",
             "tests/cfg.yaml", "tests/cfg.yml", "pyproject.toml", "tests/fixture.txt",
             "tests/model.pkl", "tests/photo.jpeg"],
)  # fmt: skip
def test_data_files_of_a_test_patch_are_not_run_as_tests(data: str) -> None:
    patch = f"diff --git a/{data} b/{data}\ndiff --git a/tests/test_x.py b/tests/test_x.py\n"
    assert files_of(patch) == ["tests/test_x.py"]


def test_a_renamed_test_file_is_run_under_its_new_name() -> None:
    patch = "diff --git a/tests/old_test.py b/tests/new_test.py\nrename from tests/old_test.py\n"
    assert files_of(patch) == ["tests/new_test.py"]
    assert files_of("") == []
