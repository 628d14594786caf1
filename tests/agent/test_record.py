"""The run record under ``.patchwright/runs/<run-id>/``: events appended as JSON lines, the
trajectory and the summary rewritten whole, a secret never written — and a run found again by
a unique prefix of its id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patchwright.agent.record import RunRecord, find_run, new_run_id
from patchwright.events import GitBranch, TxnRollback
from patchwright.llm import redact

SECRET = "sk-test-0123456789abcdefghijklmnop"


def test_events_are_appended_one_json_line_each(tmp_path: Path) -> None:
    record = RunRecord(tmp_path, "20250101-000000-aaaaaa")
    record.on_event(GitBranch(branch="patchwright/fix", ts=1.0))
    record.on_event(TxnRollback(reason="a gate failed", iteration=1, ts=2.0))
    lines = (record.dir / "events.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        {"kind": "git.branch", "ts": 1.0, "branch": "patchwright/fix"},
        {"kind": "txn.rollback", "ts": 2.0, "reason": "a gate failed", "iteration": 1},
    ]
    assert record.dir == tmp_path / ".patchwright" / "runs" / "20250101-000000-aaaaaa"


def test_nothing_written_holds_a_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    record = RunRecord(tmp_path, redact=redact)
    record.on_event(TxnRollback(reason=f"the server said: bad key {SECRET}"))
    record.write_trajectory([{"role": "user", "content": f"use {SECRET}"}], [])
    record.write_summary({"reason": f"auth failed for {SECRET}"})
    for name in ("events.jsonl", "trajectory.json", "summary.json"):
        text = (record.dir / name).read_text()
        assert SECRET not in text, name
    assert json.loads((record.dir / "summary.json").read_text())["reason"].startswith("auth")


def test_the_trajectory_is_rewritten_after_every_step(tmp_path: Path) -> None:
    record = RunRecord(tmp_path)
    record.write_trajectory([{"role": "user", "content": "fix it"}], [])
    record.write_trajectory(
        [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "done"}],
        [{"iteration": 1, "attempt": "applied"}],
    )
    data = json.loads((record.dir / "trajectory.json").read_text())
    assert data["run_id"] == record.run_id
    assert [m["role"] for m in data["messages"]] == ["user", "assistant"]
    assert data["actions"] == [{"iteration": 1, "attempt": "applied"}]
    assert not list(record.dir.glob("*.tmp"))  # written whole, then moved into place


def test_a_run_is_found_by_a_unique_prefix_or_as_the_newest(tmp_path: Path) -> None:
    assert find_run(tmp_path) is None
    first = RunRecord(tmp_path, "20250101-000000-aaaaaa")
    second = RunRecord(tmp_path, "20250102-000000-bbbbbb")
    RunRecord(tmp_path, "20250102-000000-bbbccc")
    assert find_run(tmp_path, "20250101") == first.dir
    assert find_run(tmp_path, "20250102-000000-bbbb") == second.dir
    assert find_run(tmp_path, "20250102") is None  # two runs start so: ambiguous
    assert find_run(tmp_path, "1999") is None
    assert find_run(tmp_path) == tmp_path / ".patchwright" / "runs" / "20250102-000000-bbbccc"


def test_run_ids_sort_by_time_and_differ() -> None:
    a, b = new_run_id(), new_run_id()
    assert a != b and len(a) == len("20250101-000000-aaaaaa") and a[:8].isdigit()


def test_a_crash_leaves_its_traceback_in_the_record(tmp_path: Path) -> None:
    record = RunRecord(tmp_path)
    try:
        [][0]
    except IndexError as exc:
        path = record.write_crash(exc)
    assert path == record.dir / "crash.txt"
    text = path.read_text()
    assert "Traceback" in text and "IndexError: list index out of range" in text
    assert "test_a_crash_leaves_its_traceback_in_the_record" in text
