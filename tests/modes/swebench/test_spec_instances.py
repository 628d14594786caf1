"""Specification of the instances file: official SWE-bench rows (the columns of
``bench/swebench_dev.jsonl``) read from JSONL or a JSON array, their test lists decoded,
chosen with ``--filter REGEX`` then cut with ``--slice A:B``, and every usage or data error
said with the row and the reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from patchwright.modes.swebench.instances import (
    Instance,
    InstanceError,
    load_instances,
    parse_slice,
    read_rows,
)

PATCH = "diff --git a/src/pkg/mod.py b/src/pkg/mod.py\n--- a/src/pkg/mod.py\n+++ b/src/pkg/mod.py\n"


def official_row(instance_id: str = "owner__proj-101", **extra: Any) -> dict[str, Any]:
    """A row with the columns of the official dataset (test lists JSON-encoded strings)."""
    row: dict[str, Any] = {
        "repo": "owner/proj",
        "instance_id": instance_id,
        "base_commit": "a820c139ccbe6d1865d73c4a459945cd69899f8f",
        "patch": PATCH,
        "test_patch": "diff --git a/test/t_test.py b/test/t_test.py\n",
        "problem_statement": "Enable quiet mode in the CLI",
        "hints_text": "",
        "created_at": "2023-04-16T14:24:42Z",
        "version": "1.4",
        "FAIL_TO_PASS": json.dumps(["test/t_test.py::test_quiet"]),
        "PASS_TO_PASS": json.dumps(["test/t_test.py::test_a", "test/t_test.py::test_b"]),
        "environment_setup_commit": "d19de0ecd16d298f9e3bfb91da122734c40c01e5",
        "eval_script": "#!/bin/bash\n",
        "log_parser": "parse_log_sqlfluff",
        "eval_type": "pass_and_fail",
        "image": "swebench/sweb.eval.x86_64.owner_1776_proj-101:latest",
    }
    row.update(extra)
    return row


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_an_official_row_keeps_every_column_the_pipeline_uses() -> None:
    instance = Instance.from_row(official_row())
    assert instance.instance_id == "owner__proj-101"
    assert instance.repo == "owner/proj"
    assert instance.version == "1.4"
    assert instance.fail_to_pass == ("test/t_test.py::test_quiet",)
    assert instance.pass_to_pass == ("test/t_test.py::test_a", "test/t_test.py::test_b")
    assert instance.environment_setup_commit.startswith("d19de0ec")
    assert instance.patch == PATCH
    assert instance.image.endswith("owner_1776_proj-101:latest")


def test_test_lists_may_be_real_lists_or_absent() -> None:
    listed = Instance.from_row(official_row(FAIL_TO_PASS=["a.py::t"], PASS_TO_PASS=None))
    assert listed.fail_to_pass == ("a.py::t",)
    assert listed.pass_to_pass == ()
    blank = Instance.from_row(official_row(FAIL_TO_PASS="", PASS_TO_PASS="[]"))
    assert (blank.fail_to_pass, blank.pass_to_pass) == ((), ())


def test_optional_columns_default_to_empty_strings_not_none() -> None:
    row = official_row()
    for optional in ("version", "environment_setup_commit", "patch", "eval_script", "image"):
        row[optional] = None
    instance = Instance.from_row(row)
    assert (instance.version, instance.patch, instance.image, instance.eval_script) == (
        "", "", "", "",
    )  # fmt: skip


def test_a_test_list_that_is_not_json_or_not_a_list_is_refused_with_its_row() -> None:
    with pytest.raises(InstanceError, match=r"^rows\.jsonl row 3: test list is not JSON"):
        Instance.from_row(official_row(FAIL_TO_PASS="[oops"), "rows.jsonl row 3")
    with pytest.raises(InstanceError, match="must be a list of test ids"):
        Instance.from_row(official_row(PASS_TO_PASS=json.dumps({"a": 1})))
    with pytest.raises(InstanceError, match="must be a list of test ids"):
        Instance.from_row(official_row(PASS_TO_PASS=json.dumps("test/t_test.py::x")))


def test_every_missing_or_empty_required_column_is_named() -> None:
    row = official_row(problem_statement="", base_commit=None)
    del row["test_patch"]
    with pytest.raises(InstanceError) as caught:
        Instance.from_row(row, "here")
    assert str(caught.value) == "here: missing base_commit, problem_statement, test_patch"


def test_rows_come_from_jsonl_skipping_blank_lines_or_from_a_json_array(tmp_path: Path) -> None:
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text(json.dumps(official_row("a")) + "\n\n   \n" + json.dumps(official_row("b")))
    assert [r["instance_id"] for r in read_rows(jsonl)] == ["a", "b"]
    array = tmp_path / "rows.json"
    array.write_text(json.dumps([official_row("c"), official_row("d")], indent=2))
    assert [r["instance_id"] for r in read_rows(array)] == ["c", "d"]


def test_a_line_that_is_not_json_is_reported_with_its_line_number(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(official_row()) + "\n{not json\n")
    with pytest.raises(InstanceError, match=r"rows\.jsonl:2: not JSON"):
        read_rows(path)


def test_a_data_error_names_the_file_and_the_one_based_row(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "dev.jsonl", [official_row("a"), official_row("b", repo="")])
    with pytest.raises(InstanceError, match=r"^dev\.jsonl row 2: missing repo$"):
        load_instances(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0:10", slice(0, 10)),
        (":5", slice(None, 5)),
        ("3:", slice(3, None)),
        (" -2 : ", slice(-2, None)),
        (":", slice(None, None)),
        ("", None),
        (None, None),
    ],
)
def test_a_slice_is_python_s_a_colon_b_with_either_side_optional(
    text: str | None, expected: slice | None
) -> None:
    assert parse_slice(text) == expected


@pytest.mark.parametrize("text", ["5", "1:2:3", "a:b", "1.5:2"])
def test_anything_but_a_colon_b_is_a_usage_error(text: str) -> None:
    with pytest.raises(InstanceError, match="use A:B"):
        parse_slice(text)


def test_a_bad_slice_is_said_before_the_file_is_even_looked_for(tmp_path: Path) -> None:
    with pytest.raises(InstanceError, match="--slice"):
        load_instances(tmp_path / "does-not-exist.jsonl", window="x")


def test_the_filter_searches_anywhere_in_the_id_and_the_slice_cuts_what_matched(
    tmp_path: Path,
) -> None:
    ids = ["astropy__astropy-1", "django__django-2", "astropy__astropy-3", "astropy__astropy-4"]
    path = write_jsonl(tmp_path / "i.jsonl", [official_row(i) for i in ids])
    chosen = load_instances(path, pattern="astropy", window="1:")
    assert [i.instance_id for i in chosen] == ["astropy__astropy-3", "astropy__astropy-4"]
    assert [i.instance_id for i in load_instances(path, pattern=r"-2$")] == ["django__django-2"]
    assert [i.instance_id for i in load_instances(path, window="-1:")] == ["astropy__astropy-4"]
    assert load_instances(path, pattern="flask") == []


def test_an_invalid_filter_regex_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "i.jsonl", [official_row()])
    with pytest.raises(InstanceError, match=r"--filter '\(unclosed'"):
        load_instances(path, pattern="(unclosed")
