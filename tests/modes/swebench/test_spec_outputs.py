"""Specification of what a run leaves behind: ``predictions.jsonl`` (official lines,
appended once per instance, resumable after a crash, one mode per file), ``result.json``
(``InstanceResult``), the errored instances a batch may run again, and a graded
prediction's record (``Graded``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from patchwright.modes.swebench.eval import Graded
from patchwright.modes.swebench.outputs import (
    Predictions,
    errored,
    mode_conflict,
    read_predictions,
)
from patchwright.modes.swebench.result import InstanceResult

OFFICIAL_KEYS = {"instance_id", "model_name_or_path", "model_patch"}


def line(instance_id: str, **extra: Any) -> dict[str, Any]:
    return {"instance_id": instance_id, "model_name_or_path": "m", "model_patch": "", **extra}


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_a_result_s_prediction_is_exactly_the_official_line() -> None:
    result = InstanceResult("o__r-1", "qwen", outcome="verified", model_patch="diff --git a/x")
    assert result.prediction() == {
        "instance_id": "o__r-1",
        "model_name_or_path": "qwen",
        "model_patch": "diff --git a/x",
    }


def test_a_prediction_the_hidden_tests_chose_says_so() -> None:
    line_ = InstanceResult("o__r-1", "qwen", oracle_tests=True).prediction()
    assert line_["oracle_tests"] is True
    assert set(line_) == OFFICIAL_KEYS | {"oracle_tests"}


def test_a_new_result_is_an_error_until_the_pipeline_says_otherwise() -> None:
    result = InstanceResult("o__r-1")
    assert result.outcome == "error"
    assert result.model_patch == "" and result.attempts == 1


def test_result_json_rounds_time_and_cost_and_reads_back_ignoring_unknown_keys() -> None:
    result = InstanceResult("o__r-1", "m", outcome="unverified", seconds=12.3456, cost=0.00012345678,
                            churn=1.5, trials=[{"candidate": 1}])  # fmt: skip
    data = result.to_json()
    assert data["seconds"] == 12.35
    assert data["cost"] == 0.000123
    assert json.loads(json.dumps(data)) == data  # plain JSON all the way down
    again = InstanceResult.from_json({**data, "added_by_a_newer_version": 1})
    assert again.outcome == "unverified" and again.churn == 1.5
    assert again.trials == [{"candidate": 1}]


def test_predictions_start_empty_and_make_their_folder_on_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "out" / "run" / "predictions.jsonl"
    predictions = Predictions(path)
    assert predictions.done == set() and predictions.rows == [] and not path.exists()
    assert predictions.add(line("a")) is True
    assert lines_of(path) == [line("a")]


def test_each_instance_is_written_once_even_across_reopenings(tmp_path: Path) -> None:
    path = tmp_path / "predictions.jsonl"
    Predictions(path).add(line("a", model_patch="first"))
    reopened = Predictions(path)
    assert reopened.done == {"a"}
    assert reopened.add(line("a", model_patch="second")) is False
    assert [r["model_patch"] for r in lines_of(path)] == ["first"]


def test_a_last_line_without_its_newline_is_torn_and_cut_even_if_it_parses(
    tmp_path: Path,
) -> None:
    path = tmp_path / "predictions.jsonl"
    path.write_text(json.dumps(line("a")) + "\n" + json.dumps(line("b")))
    predictions = Predictions(path)
    assert predictions.done == {"a"}  # b may have been cut mid-write: run it again
    assert path.read_text() == json.dumps(line("a")) + "\n"
    predictions.add(line("b"))
    assert [r["instance_id"] for r in lines_of(path)] == ["a", "b"]


def test_everything_after_a_torn_line_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "predictions.jsonl"
    path.write_bytes(
        (json.dumps(line("a")) + "\n").encode() + b'{"instance_id": "b\xff\n'
        + (json.dumps(line("c")) + "\n").encode()
    )  # fmt: skip
    assert Predictions(path).done == {"a"}
    assert lines_of(path) == [line("a")]


def test_lines_that_are_not_predictions_are_kept_but_not_counted(tmp_path: Path) -> None:
    path = tmp_path / "predictions.jsonl"
    path.write_text('["not", "a", "row"]\n{"note": "x"}\n' + json.dumps(line("a")) + "\n")
    predictions = Predictions(path)
    assert predictions.done == {"a"}
    assert len(path.read_text().splitlines()) == 3


def test_forgetting_rewrites_the_file_without_those_instances(tmp_path: Path) -> None:
    path = tmp_path / "predictions.jsonl"
    predictions = Predictions(path)
    for name in "abc":
        predictions.add(line(name))
    predictions.forget({"b", "not-there"})
    assert predictions.done == {"a", "c"}
    assert [r["instance_id"] for r in lines_of(path)] == ["a", "c"]
    assert not path.with_suffix(".tmp").exists()
    assert predictions.add(line("b")) is True  # it may run again


def test_read_predictions_indexes_by_id_with_the_last_line_winning(tmp_path: Path) -> None:
    path = tmp_path / "predictions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in
                            [line("a", model_patch="old"), line("b"), line("a", model_patch="new")]))  # fmt: skip
    found = read_predictions(path)
    assert set(found) == {"a", "b"}
    assert found["a"]["model_patch"] == "new"


@pytest.mark.parametrize("oracle", [False, True])
def test_a_file_of_one_mode_accepts_more_of_that_mode(tmp_path: Path, oracle: bool) -> None:
    predictions = Predictions(tmp_path / "predictions.jsonl")
    predictions.add(InstanceResult("a", "m", oracle_tests=oracle).prediction())
    assert mode_conflict(predictions, oracle=oracle) == ""


def test_fair_predictions_refuse_an_oracle_batch_and_the_reverse(tmp_path: Path) -> None:
    fair = Predictions(tmp_path / "fair" / "predictions.jsonl")
    fair.add(line("a"))
    fair.add(line("b"))
    why = mode_conflict(fair, oracle=True)
    assert "holds 2 predictions chosen without hidden tests" in why
    assert "another --output directory" in why
    oracle = Predictions(tmp_path / "oracle" / "predictions.jsonl")
    oracle.add(line("a", oracle_tests=True))
    assert "with the hidden tests (--oracle-tests)" in mode_conflict(oracle, oracle=False)


def test_an_empty_file_conflicts_with_no_mode(tmp_path: Path) -> None:
    predictions = Predictions(tmp_path / "predictions.jsonl")
    assert mode_conflict(predictions, oracle=True) == mode_conflict(predictions, oracle=False) == ""


def test_errored_reads_each_instance_s_last_result_and_skips_unreadable_ones(
    tmp_path: Path,
) -> None:
    results = {"ok": {"outcome": "verified"}, "bad": {"outcome": "error"},
               "empty": {"outcome": "empty"}}  # fmt: skip
    for name, data in results.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "result.json").write_text(json.dumps(data))
    (tmp_path / "torn").mkdir()
    (tmp_path / "torn" / "result.json").write_text('{"outcome": "err')
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "result.json").write_text(json.dumps({"outcome": "error"}))
    assert errored(tmp_path) == {"bad"}
    assert errored(tmp_path / "nothing-here") == set()


def test_a_graded_record_says_oracle_tests_only_when_they_chose_the_prediction() -> None:
    plain = Graded("o__r-1", resolved=True, reason="resolved", notes=["nearer Python"])
    assert plain.to_json() == {"instance_id": "o__r-1", "resolved": True, "reason": "resolved",
                               "report": {}, "notes": ["nearer Python"]}  # fmt: skip
    marked = Graded("o__r-1", oracle_tests=True).to_json()
    assert marked["oracle_tests"] is True and marked["resolved"] is False
