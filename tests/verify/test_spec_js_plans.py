"""How a JavaScript test command is run for a per-test report, specified: the reporter options
each runner gets and where they are added (straight after a direct command; after ``--``
through npm; as they are through pnpm, yarn and bun), vitest's ``CI=true``, node's reporter
given through ``NODE_OPTIONS``, and a note instead of options where they cannot reach the
runner. Also which script a package manager's command runs, and how a repository without a
``test`` script is tested (a runner among its dependencies, or ``node --test``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from patchwright.verify import detect_test_command
from patchwright.verify.runners import plan_for
from patchwright.verify.runners.js import dev_dependencies, scripts, target


def package(root: Path, scripts_: dict[str, str] | None = None, **more: object) -> Path:
    (root / "package.json").write_text(json.dumps({"name": "p", "scripts": scripts_ or {}, **more}))
    return root


def test_jest_asked_directly_gets_its_json_report_options_after_the_command(
    tmp_path: Path,
) -> None:
    plan = plan_for(package(tmp_path), "npx jest --ci", tmp_path)
    report = tmp_path / "jest-report.json"
    assert plan.runner == "jest" and plan.reports and plan.env == {}
    assert plan.command == f"npx jest --ci --json --outputFile={report} --testLocationInResults"


def test_through_npm_the_options_follow_a_double_dash_and_through_pnpm_they_do_not(
    tmp_path: Path,
) -> None:
    package(tmp_path, {"test": "mocha test/"})
    report = tmp_path / "mocha-report.json"
    options = f"--reporter=json --reporter-option output={report}"
    assert plan_for(tmp_path, "npm test", tmp_path).command == f"npm test -- {options}"
    assert plan_for(tmp_path, "npm test -- --bail", tmp_path).command == (
        f"npm test -- --bail {options}"
    )
    assert plan_for(tmp_path, "pnpm test", tmp_path).command == f"pnpm test {options}"


def test_vitest_reports_beside_its_usual_output_and_is_told_it_runs_in_ci(tmp_path: Path) -> None:
    plan = plan_for(package(tmp_path, {"test": "vitest"}), "yarn test", tmp_path)
    report = tmp_path / "vitest-report.json"
    assert plan.env == {"CI": "true"}
    assert plan.command == (
        f"yarn test --reporter=default --reporter=json --outputFile.json={report}"
    )


def test_a_runner_options_cannot_reach_is_run_as_it_is_with_a_note_saying_why(
    tmp_path: Path,
) -> None:
    package(tmp_path, {"test": "vitest run && node check.js"})
    plan = plan_for(tmp_path, "npm test", tmp_path)
    assert plan.command == "npm test" and not plan.reports
    assert plan.env == {"CI": "true"}  # it must still end
    assert plan.note.startswith("no per-test report: options for `vitest` cannot reach it")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_nodes_runner_gets_its_reporter_through_node_options_wherever_it_runs(
    tmp_path: Path,
) -> None:
    package(tmp_path, {"test": "node --test test/ && eslint ."})
    plan = plan_for(tmp_path, "npm test", tmp_path)
    assert plan.command == "npm test" and plan.runner == "node" and plan.reports
    reporter = tmp_path / "node_reporter.mjs"
    assert reporter.is_file() and "export default async function* reporter" in reporter.read_text()
    options = plan.env["NODE_OPTIONS"]
    assert "--test-reporter=spec --test-reporter-destination=stdout" in options
    assert f'--test-reporter="{reporter}"' in options
    assert f'--test-reporter-destination="{tmp_path / "node-report.json"}"' in options


def test_a_report_left_by_an_earlier_run_is_removed_before_the_next(tmp_path: Path) -> None:
    stale = tmp_path / "jest-report.json"
    stale.write_text('{"testResults": []}')
    plan_for(package(tmp_path), "jest", tmp_path)
    assert not stale.exists()


@pytest.mark.parametrize(
    ("scripts_", "cmd", "runner"),
    [
        ({"test:unit": "jest"}, "npm run test:unit", "jest"),
        ({"test:unit": "jest"}, "npm run-script test:unit", "jest"),
        ({"test": "npm run unit", "unit": "mocha"}, "npm test", "mocha"),
        ({"test": "jest"}, "bun test", None),  # bun's own runner, not the script
        ({"test": "jest"}, "bun run test", "jest"),
        ({}, "yarn vitest run", "vitest"),
        ({}, "pnpm exec mocha", "mocha"),
        ({"test": "npm test"}, "npm test", None),  # a script that runs itself ends, unresolved
    ],
)
def test_which_script_a_package_managers_command_runs(
    tmp_path: Path, scripts_: dict[str, str], cmd: str, runner: str | None
) -> None:
    found = target(package(tmp_path, scripts_), cmd)
    assert (found.runner if found else None) == runner


def test_a_package_json_that_cannot_be_read_has_no_scripts_and_no_dependencies(
    tmp_path: Path,
) -> None:
    (tmp_path / "package.json").write_text("{ not json")
    assert scripts(tmp_path) == {} and dev_dependencies(tmp_path) == set()
    (tmp_path / "package.json").write_text('{"scripts": ["jest"], "dependencies": {"mocha": "1"}}')
    assert scripts(tmp_path) == {} and dev_dependencies(tmp_path) == {"mocha"}


def test_without_a_test_script_a_runner_installed_locally_is_run_from_node_modules(
    tmp_path: Path,
) -> None:
    package(tmp_path, devDependencies={"mocha": "^10"})
    assert detect_test_command(tmp_path) == "npx --no mocha"
    (tmp_path / "node_modules" / ".bin").mkdir(parents=True)
    (tmp_path / "node_modules" / ".bin" / "mocha").write_text("")
    assert detect_test_command(tmp_path) == "node_modules/.bin/mocha"


def test_node_test_files_inside_node_modules_do_not_make_a_node_test_project(
    tmp_path: Path,
) -> None:
    package(tmp_path)
    dep = tmp_path / "node_modules" / "dep" / "test"
    dep.mkdir(parents=True)
    (dep / "a.test.js").write_text("import test from 'node:test'\n")
    assert detect_test_command(tmp_path) is None
    (tmp_path / "lib.test.mjs").write_text("import { test } from 'node:test'\n")
    assert detect_test_command(tmp_path) == "node --test"
