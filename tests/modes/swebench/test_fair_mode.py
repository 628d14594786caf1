"""The default mode is leaderboard-fair: nothing of an instance's hidden tests (its
``test_patch``, FAIL_TO_PASS, PASS_TO_PASS) is applied, run, read or shown before the
prediction is written; ``--oracle-tests`` uses them and marks every output; ``swebench eval``
grades with them, as the harness does.

The hidden tests here carry a sentinel (a new test file and a new test whose names hold it),
and a watch sees every process started (its command line and what is piped into it), every
prompt, and the files of the instance's directory and of the output directory. The same
watch sees the sentinel as soon as ``swebench eval`` or ``--oracle-tests`` applies the test
patch — so a leak in the default mode could not go unseen."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from swebench_case import FIX, TESTS, git, reply, script, where_for
from typer.testing import CliRunner

from patchwright.cli import app
from patchwright.config import Settings
from patchwright.llm.scripted import ScriptedModel
from patchwright.modes.swebench.instance import SolveOptions, solve_instance
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.outputs import Predictions

SENTINEL = "hiddentest7q2x"
HIDDEN_FILE = f"tests/test_{SENTINEL}.py"
HIDDEN_F2P = [f"tests/test_ops.py::test_mean_{SENTINEL}", f"{HIDDEN_FILE}::test_{SENTINEL}"]


def _hidden_test_patch(repo: Path) -> str:
    """A test patch that adds a test to tests/test_ops.py and a new test file, as git makes
    it; the repository is left as it was."""
    (repo / "tests" / "test_ops.py").write_text(
        TESTS + f"\n\ndef test_mean_{SENTINEL}():\n    assert mean([1.0, 2.0]) == 1.5\n"
    )
    (repo / HIDDEN_FILE).write_text(
        f"from calc.ops import mean\n\n\ndef test_{SENTINEL}():\n    assert mean([0.5, 1.0]) == 0.75\n"
    )
    git(repo, "add", "-N", HIDDEN_FILE)
    patch = git(repo, "diff")
    git(repo, "reset", "-q")
    git(repo, "checkout", "--", "tests/test_ops.py")
    (repo / HIDDEN_FILE).unlink()
    return patch


@pytest.fixture
def hidden_world(calc_world: dict[str, Any]) -> dict[str, Any]:
    """The calc instance whose hidden tests carry the sentinel; its eval script embeds the
    test patch, as the official datasets' do."""
    test_patch = _hidden_test_patch(calc_world["tmp"] / "src" / "calc")
    eval_script = (
        "#!/bin/bash\npython -m pip install -e .\n"
        f"git apply -v - <<'EOF_114329324912'\n{test_patch}\nEOF_114329324912\n"
        ": '>>>>> Start Test Output'\n"
        f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest -rA tests/test_ops.py {HIDDEN_FILE}\n"
        ": '>>>>> End Test Output'\n"
    )
    row = {**calc_world["row"], "test_patch": test_patch, "FAIL_TO_PASS": json.dumps(HIDDEN_F2P),
           "eval_script": eval_script}  # fmt: skip
    calc_world["instances"].write_text(json.dumps(row) + "\n")
    return {**calc_world, "row": row, "instance": Instance.from_row(row)}


class Watch:
    """Where the sentinel was seen, and in which phase of the test."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = roots
        self.phase = "before the prediction"
        self.seen: list[tuple[str, str]] = []
        self.looked = {"commands": 0, "prompts": 0, "scans": 0}
        self._scanned: dict[Path, tuple[float, int]] = {}

    def look(self, where: str, data: object) -> None:
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
        if SENTINEL in text.lower():
            self.seen.append((self.phase, f"{where}: {text[:200]}"))

    def scan(self) -> None:
        """Every file under the roots (names and contents), changed ones only."""
        self.looked["scans"] += 1
        for root in self.roots:
            for path in root.rglob("*") if root.is_dir() else []:
                if ".git" in path.parts or not path.is_file():
                    continue
                stat = path.stat()
                if self._scanned.get(path) == (stat.st_mtime, stat.st_size):
                    continue
                self._scanned[path] = (stat.st_mtime, stat.st_size)
                self.look(f"file {path.name}", path.name)
                self.look(f"file {path}", path.read_bytes())


@pytest.fixture
def watch(hidden_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[Watch]:
    tmp = hidden_world["tmp"]
    seen = Watch([tmp / "work" / "instances", tmp / "out"])
    real_popen = subprocess.Popen

    class WatchedPopen(real_popen):  # type: ignore[misc,valid-type]
        def __init__(self, args: Any, *rest: Any, **kw: Any) -> None:
            seen.looked["commands"] += 1
            seen.look("command", args)
            seen.scan()
            super().__init__(args, *rest, **kw)

        def communicate(self, input: Any = None, timeout: float | None = None) -> Any:
            if input is not None:
                seen.look("piped into a command", input)
            return super().communicate(input, timeout)

    monkeypatch.setattr(subprocess, "Popen", WatchedPopen)
    real_complete = ScriptedModel.complete

    def complete(self: ScriptedModel, messages: Sequence[Any], **kw: Any) -> Any:
        seen.looked["prompts"] += 1
        seen.look("prompt", json.dumps(list(messages)))
        return real_complete(self, messages, **kw)

    monkeypatch.setattr(ScriptedModel, "complete", complete)
    real_add = Predictions.add

    def add(self: Predictions, row: dict[str, Any]) -> bool:
        seen.scan()  # result.json and events.ndjson, written before the prediction
        seen.phase = "after the prediction"
        return real_add(self, row)

    monkeypatch.setattr(Predictions, "add", add)
    yield seen


def cli(world: dict[str, Any], *args: str) -> list[str]:
    tmp = world["tmp"]
    return ["swebench", *args, "--instances", str(world["instances"]), "--repos",
            str(world["mirrors"]), "--env", "host", "--python", sys.executable, "--workdir",
            str(tmp / "work")]  # fmt: skip


def test_a_default_run_never_touches_the_hidden_tests_before_its_prediction(
    hidden_world: dict[str, Any], watch: Watch
) -> None:
    tmp = hidden_world["tmp"]
    model = script(tmp, [reply(*FIX)])
    solved = CliRunner().invoke(app, [*cli(hidden_world, "--model", model, "-k", "1",
                                            "--max-iter", "1", "-o", str(tmp / "out"))])  # fmt: skip
    assert solved.exit_code == 0, solved.output
    assert "fair mode: nothing of test_patch" in solved.output
    assert watch.phase == "after the prediction", solved.output  # a prediction was written
    assert watch.seen == []  # no command, piped input, prompt or file held the hidden tests
    assert watch.looked["prompts"] == 1 and watch.looked["commands"] > 10
    row = json.loads((tmp / "out" / "predictions.jsonl").read_text())
    assert "return total / len(xs)" in row["model_patch"] and "oracle_tests" not in row
    result = json.loads((tmp / "out" / "example__calc-1" / "result.json").read_text())
    assert result["outcome"] == "unverified" and result["oracle_tests"] is False
    assert result["checks"]["files"] == ["tests/test_ops.py"]  # the repository's own file
    assert result["trials"][0]["grade"]["REGRESSION"]["success"] == [
        "tests/test_ops.py::test_add", "tests/test_ops.py::test_mean_of_ints",
        "tests/test_ops.py::test_median",
    ]  # fmt: skip
    watch.phase = "grading"
    predictions = str(tmp / "out" / "predictions.jsonl")
    graded = CliRunner().invoke(app, [*cli(hidden_world, "eval", "--predictions", predictions)])
    assert graded.exit_code == 0, graded.output
    assert graded.output.strip().splitlines()[-1] == "resolved 1/1"  # the hidden tests pass
    report = json.loads((tmp / "out" / "predictions.eval.json").read_text())
    assert report[0]["report"]["FAIL_TO_PASS"]["success"] == HIDDEN_F2P
    assert any(phase == "grading" for phase, _ in watch.seen)  # the watch does see them


class Tripwire(Instance):
    """An instance that records every read of its hidden tests."""

    reads: list[str] = []  # noqa: RUF012 - one list per test (reset by the test)

    def __getattribute__(self, name: str) -> Any:
        if name in ("test_patch", "fail_to_pass", "pass_to_pass"):
            Tripwire.reads.append(name)
        return super().__getattribute__(name)


@pytest.mark.parametrize("strategy", ["pipeline", "agent"])
def test_a_default_run_never_reads_the_hidden_tests_of_the_instance(
    hidden_world: dict[str, Any], settings: Settings, strategy: str
) -> None:
    tmp, row = hidden_world["tmp"], hidden_world["row"]
    fields = vars(Instance.from_row(row))
    edit = f"calc/ops.py\n<<<<<<< SEARCH\n{FIX[0]}\n=======\n{FIX[1]}\n>>>>>>> REPLACE\n"
    replies = [reply(*FIX)] if strategy == "pipeline" else [
        call("edit", edits=edit), call("finish", summary="true division"),
        call("approve", commit_message="fix(ops): mean of floats"),
    ]  # fmt: skip
    Tripwire.reads = []
    opts = SolveOptions(model=script(tmp, replies), strategy=strategy, candidates=1, max_iter=1,
                        plan=False)  # fmt: skip
    result = solve_instance(Tripwire(**fields), where_for(hidden_world), opts, settings, tmp / "o")
    assert "return total / len(xs)" in result.model_patch, (result.reason, result.candidates)
    assert Tripwire.reads == []
    if strategy == "agent":
        return
    Tripwire.reads = []  # the tripwire can fire: the oracle reads them
    solve_instance(Tripwire(**fields), where_for(hidden_world),
                   SolveOptions(model="gold", oracle_tests=True), settings, tmp / "o2")  # fmt: skip
    assert {"test_patch", "fail_to_pass", "pass_to_pass"} <= set(Tripwire.reads)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"id": f"c_{name}", "name": name,
                                           "arguments": arguments}]}  # fmt: skip


def test_oracle_tests_marks_every_output_and_a_file_keeps_one_mode(
    hidden_world: dict[str, Any], watch: Watch
) -> None:
    tmp = hidden_world["tmp"]
    out = tmp / "out"
    solved = CliRunner().invoke(app, cli(hidden_world, "--model", "gold", "--oracle-tests",
                                         "-o", str(out)))  # fmt: skip
    assert solved.exit_code == 0, solved.output
    assert solved.output.count("ORACLE TESTS:") == 2  # before the run and in the summary
    assert any(phase == "before the prediction" for phase, _ in watch.seen)  # it did use them
    row = json.loads((out / "predictions.jsonl").read_text())
    assert row["oracle_tests"] is True and row["model_patch"] == hidden_world["row"]["patch"]
    result = json.loads((out / "example__calc-1" / "result.json").read_text())
    assert result["oracle_tests"] is True and result["outcome"] == "verified"
    assert result["checks"]["oracle_tests"] is True
    start = json.loads((out / "example__calc-1" / "events.ndjson").read_text().splitlines()[0])
    assert start["kind"] == "instance.start" and start["oracle_tests"] is True
    graded = CliRunner().invoke(app, cli(hidden_world, "eval", "--predictions",
                                         str(out / "predictions.jsonl")))  # fmt: skip
    assert "example__calc-1: resolved (oracle tests)" in graded.output
    assert "ORACLE TESTS: 1 of these predictions" in graded.output
    assert json.loads((out / "predictions.eval.json").read_text())[0]["oracle_tests"] is True
    (out / "predictions.jsonl").write_text("")  # the instance runs again, now without the flag
    with (out / "predictions.jsonl").open("w") as handle:
        handle.write(json.dumps({**row, "instance_id": "other"}) + "\n")
    fair = CliRunner().invoke(app, cli(hidden_world, "--model", "gold", "-o", str(out)))
    assert fair.exit_code == 2 and "keeps one mode" in fair.output


REPRODUCTION = """Here is the test:

```python
from calc.ops import mean


def test_mean_of_floats_is_exact():
    assert mean([1.0, 2.0]) == 1.5
```
"""
DOCSTRING = ('"""Arithmetic helpers."""', '"""Arithmetic helpers, exact."""')


def test_a_reproduction_test_written_from_the_issue_chooses_the_fix(
    hidden_world: dict[str, Any], settings: Settings
) -> None:
    tmp = hidden_world["tmp"]
    model = script(tmp, [{"content": REPRODUCTION}, reply(*DOCSTRING), reply(*FIX)])
    where = where_for(hidden_world, keep=True)
    result = solve_instance(hidden_world["instance"], where,
                            SolveOptions(model=model, candidates=2, max_iter=1, reproduce=True),
                            settings, tmp / "out")  # fmt: skip
    assert result.outcome == "verified", (result.reason, result.trials)
    repro = result.checks["reproduction"]
    assert repro["kept"] and repro["tests"] == [
        "test_patchwright_reproduction.py::test_mean_of_floats_is_exact"
    ]
    first, second = result.trials
    assert not first["passed"] and "REPRODUCTION still failing" in first["reason"]
    assert second["passed"] and "return total / len(xs)" in result.model_patch
    assert "reproduction" not in result.model_patch and "Arithmetic helpers, exact" not in (
        result.model_patch
    )
    assert result.localisation["signals"]["sbfl"] > 0  # SBFL over the reproduction test
    assert result.localisation["suspects"][0]["name"] == "mean"
    checkout = where.workdir / "instances" / "example__calc-1" / "repo"
    assert not (checkout / "test_patchwright_reproduction.py").exists()  # on disk only to run
    events = [json.loads(x) for x in (tmp / "out" / "example__calc-1" / "events.ndjson")
              .read_text().splitlines()]  # fmt: skip
    [written] = [e for e in events if e["kind"] == "reproduction.test"]
    assert written["kept"] and "def test_mean_of_floats_is_exact" in written["text"]
    assert next(e["phase"] for e in events if e["kind"] == "model.reply") == "reproduce"
