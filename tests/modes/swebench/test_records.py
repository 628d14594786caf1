"""Instances files, the predictions file (resumable) and reading test logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from patchwright.modes.swebench.grading import grade, parse_log, parse_pytest_summary
from patchwright.modes.swebench.instances import InstanceError, load_instances
from patchwright.modes.swebench.outputs import Predictions, errored


def rows(n: int) -> list[dict[str, Any]]:
    return [{"instance_id": f"o__r-{i}", "repo": "o/r", "base_commit": "abc", "problem_statement": "p",
             "test_patch": "d", "FAIL_TO_PASS": json.dumps([f"t.py::f{i}"]), "PASS_TO_PASS": "[]"}
            for i in range(n)]  # fmt: skip


def test_instances_from_jsonl_and_parquet_with_filter_and_slice(tmp_path: Path) -> None:
    jsonl = tmp_path / "i.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows(5)))
    assert [i.instance_id for i in load_instances(jsonl, window="1:3")] == ["o__r-1", "o__r-2"]
    assert [i.instance_id for i in load_instances(jsonl, pattern=r"-[34]$")] == ["o__r-3", "o__r-4"]
    assert load_instances(jsonl)[2].fail_to_pass == ("t.py::f2",)
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = tmp_path / "i.parquet"
    pq.write_table(pa.Table.from_pylist(rows(2)), parquet)
    assert [i.instance_id for i in load_instances(parquet)] == ["o__r-0", "o__r-1"]


def test_bad_instances_files_say_what_is_wrong(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"instance_id": "x"}) + "\n")
    with pytest.raises(InstanceError, match="missing repo, base_commit"):
        load_instances(bad)
    with pytest.raises(InstanceError, match="use A:B"):
        load_instances(bad, window="3")
    with pytest.raises(InstanceError, match="no such file"):
        load_instances(tmp_path / "none.jsonl")


def test_predictions_resume_and_cut_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "predictions.jsonl"
    first = {"instance_id": "a", "model_name_or_path": "m", "model_patch": "diff"}
    path.write_text(json.dumps(first) + "\n" + '{"instance_id": "b", "model_pa')
    predictions = Predictions(path)
    assert predictions.done == {"a"}
    assert predictions.add({**first, "instance_id": "b"}) is True
    assert predictions.add({**first, "instance_id": "a"}) is False  # never twice
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["instance_id"] for x in lines] == ["a", "b"]
    assert set(lines[0]) == {"instance_id", "model_name_or_path", "model_patch"}


LOG = """tests/test_x.py::test_a PASSED
=========================== short test summary info ============================
PASSED tests/test_x.py::test_a
FAILED tests/test_x.py::test_b[1-2] - AssertionError: boom
SKIPPED [1] tests/test_x.py:9: no network
ERROR tests/test_x.py::test_c
"""


def test_logs_are_read_by_the_official_parser_or_the_same_rule() -> None:
    status, parser = parse_log("marshmallow-code/marshmallow", LOG)
    assert parser == "swebench"  # the installed package's parser for this repository
    assert status == parse_pytest_summary(LOG)
    assert status["tests/test_x.py::test_b[1-2]"] == "FAILED"
    assert parse_log("someone/else", LOG)[1] == "pytest -rA"


def test_grading_follows_the_harness_rule() -> None:
    status = parse_pytest_summary(LOG)
    ok = grade(status, ["tests/test_x.py::test_a"], [])
    assert ok.resolved and ok.reason() == "resolved"
    broken = grade(
        status, ["tests/test_x.py::test_a"], ["tests/test_x.py::test_c", "tests/test_x.py::gone"]
    )
    assert not broken.resolved
    assert broken.p2p_failed == [
        "tests/test_x.py::test_c",
        "tests/test_x.py::gone",
    ]  # error and missing fail


def test_errored_instances_can_be_forgotten_to_run_again(tmp_path: Path) -> None:
    for name, outcome in (("a", "verified"), ("b", "error")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "result.json").write_text(json.dumps({"outcome": outcome}))
    predictions = Predictions(tmp_path / "predictions.jsonl")
    for name in "ab":
        predictions.add({"instance_id": name, "model_name_or_path": "m", "model_patch": ""})
    predictions.forget(errored(tmp_path) & predictions.done)
    assert Predictions(tmp_path / "predictions.jsonl").done == {"a"}
