"""Specification of what the review loop remembers and shows: the short model answers it
asks for (``ask``), MEMORY.md and HISTORY.md (``memory``, ``files``), and the live state the
dashboard reads (``state``).

Memory never loses an iteration: when the model cannot answer, the notes are merged by rule.
The live state is built from events alone and is safe to read while the loop runs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from patchwright.events import (
    EventBus,
    GateResult,
    ModelRequest,
    ReviewCascade,
    ReviewFindings,
    ReviewHistory,
    ReviewIteration,
    ReviewModelFailed,
    ReviewOutcome,
    ReviewPhase,
    ReviewProposal,
    ReviewStart,
    ReviewTarget,
    ReviewUsage,
    TxnWrite,
)
from patchwright.events import ReviewMemory as ReviewMemoryEvent
from patchwright.llm import CapExceeded, ScriptedModel
from patchwright.modes.review.ask import ask_text
from patchwright.modes.review.files import (
    ReviewPaths,
    cut_diff,
    failed_entry,
    history_entry,
    one_line,
    pending_entry,
    sha,
)
from patchwright.modes.review.memory import MEMORY_CHARS, Recall, ReviewMemory
from patchwright.modes.review.state import MAX_LOG, MAX_TEXT, ReviewState


class Recorder:
    """Every event a bus carries, in order."""

    def __init__(self, bus: EventBus) -> None:
        self.events: list[Any] = []
        bus.subscribe(self.events.append)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


class CappedModel:
    """A model whose run has reached its spending cap (ScriptedModel cannot)."""

    name = "capped"
    context_window = 1000

    def count_tokens(self, text: str) -> int:
        return len(text) // 4

    def complete(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        raise CapExceeded("cost cap reached", cap="cost", limit=1.0, spent=1.0, estimate=0.1)


def memory_of(tmp_path: Path, replies: Sequence[str]) -> tuple[ReviewMemory, Recorder]:
    bus = EventBus()
    recorder = Recorder(bus)
    paths = ReviewPaths.for_repo(tmp_path)
    return ReviewMemory(paths, ScriptedModel(list(replies)), bus), recorder


# --- ask ---------------------------------------------------------------------------------------


def test_an_answer_comes_back_without_its_code_fences() -> None:
    model = ScriptedModel(["```markdown\n- keeps totals in cents\n```\n"])
    assert ask_text(model, "summarise", bus=EventBus(), phase="memory") == "- keeps totals in cents"


def test_an_answer_that_is_only_fences_or_blank_is_no_answer() -> None:
    model = ScriptedModel(["```\n```", "   \n"])
    bus = EventBus()
    assert ask_text(model, "p", bus=bus, phase="memory") is None
    assert ask_text(model, "p", bus=bus, phase="memory") is None


def test_a_model_that_fails_gives_no_answer_and_says_so_on_the_bus() -> None:
    bus = EventBus()
    recorder = Recorder(bus)
    assert ask_text(ScriptedModel([]), "p", bus=bus, phase="summary") is None
    (failed,) = recorder.of(ReviewModelFailed)
    assert failed.phase == "summary" and "used up" in failed.error


def test_a_reached_cap_is_not_swallowed_it_ends_the_loop() -> None:
    with pytest.raises(CapExceeded):
        ask_text(CappedModel(), "p", bus=EventBus(), phase="memory")  # type: ignore[arg-type]


# --- MEMORY.md ---------------------------------------------------------------------------------


def test_nothing_remembered_recalls_as_empty_text(tmp_path: Path) -> None:
    memory, _ = memory_of(tmp_path, [])
    assert memory.recall() == Recall("", "")


def test_the_models_memory_is_written_under_a_title_and_recalled_without_it(
    tmp_path: Path,
) -> None:
    memory, recorder = memory_of(tmp_path, ["# My notes\n- money is kept in cents\n"])
    assert memory.update(1, ["iteration 1: reviewed a.py: clean"]) == "- money is kept in cents"
    assert memory.paths.read("MEMORY.md") == "# Review memory\n\n- money is kept in cents\n"
    assert memory.recall().memory == "- money is kept in cents"
    (event,) = recorder.of(ReviewMemoryEvent)
    assert (event.iteration, event.by_model, event.compacted) == (1, True, False)


def test_when_the_model_cannot_answer_the_notes_are_merged_as_bullets(tmp_path: Path) -> None:
    memory, recorder = memory_of(tmp_path, [])
    memory.paths.write("MEMORY.md", "# Review memory\n\n- old fact\n")
    memory.update(1, ["new fact", "- already a bullet", "   "])
    assert memory.recall().memory == "- old fact\n- new fact\n- already a bullet"
    assert recorder.of(ReviewMemoryEvent)[0].by_model is False
    assert recorder.of(ReviewModelFailed)  # the failure is not hidden


def test_every_third_iteration_the_memory_is_compacted_by_a_second_answer(tmp_path: Path) -> None:
    memory, recorder = memory_of(tmp_path, ["- a\n- b\n- c", "- a and b\n- c"])
    assert memory.update(3, ["note"]) == "- a and b\n- c"
    assert recorder.of(ReviewMemoryEvent)[0].compacted is True


def test_a_compaction_the_model_cannot_do_keeps_the_last_eight_bullets(tmp_path: Path) -> None:
    long = "\n".join(f"- fact {i}" for i in range(12))
    memory, _ = memory_of(tmp_path, [long])  # the compaction call finds no reply
    kept = memory.update(6, ["note"])
    assert kept.splitlines() == [f"- fact {i}" for i in range(4, 12)]


def test_a_rambling_answer_is_cut(tmp_path: Path) -> None:
    memory, _ = memory_of(tmp_path, ["- " + "x" * 5000])
    assert len(memory.update(1, ["n"])) == 3000


def test_notes_merged_by_rule_drop_the_oldest_bullets_past_the_cap(tmp_path: Path) -> None:
    memory, _ = memory_of(tmp_path, [])
    for i in range(30):
        memory.note([f"iteration {i}: reviewed file_{i}.py and found it clean"])
    text = memory.recall().memory
    assert len(text) <= MEMORY_CHARS
    assert text.splitlines()[-1] == "- iteration 29: reviewed file_29.py and found it clean"
    assert "iteration 0:" not in text


def test_a_long_memory_is_recalled_cut_at_a_line_with_a_marker(tmp_path: Path) -> None:
    memory, _ = memory_of(tmp_path, [])
    body = "\n".join(f"- fact number {i:03d} about the code" for i in range(100))
    memory.paths.write("MEMORY.md", "# Review memory\n\n" + body + "\n")
    recalled = memory.recall().memory
    lines = recalled.splitlines()
    assert lines[-1] == "- … (memory cut)"
    assert all(line in body.splitlines() for line in lines[:-1])  # whole lines only
    assert len(recalled) <= MEMORY_CHARS + len("\n- … (memory cut)")


# --- HISTORY.md --------------------------------------------------------------------------------


def test_an_accepted_change_is_appended_to_the_history_and_announced(tmp_path: Path) -> None:
    memory, recorder = memory_of(tmp_path, [])
    for n in range(4):
        memory.record_change(paths=[f"m{n}.py"], kind="bug", rationale=f"fix {n}",
                             diff=f"+line {n}", commit=f"{n}" * 40)  # fmt: skip
    text = memory.paths.read("HISTORY.md")
    assert text.startswith("# Review history\n\n## ") and text.count("\n## ") == 4
    recent = memory.recall().history
    assert "fix 0" not in recent and all(f"fix {n}" in recent for n in (1, 2, 3))
    assert [e.paths for e in recorder.of(ReviewHistory)][-1] == ["m3.py"]


def test_a_history_entry_names_files_kind_short_commit_reason_and_diff() -> None:
    entry = history_entry(paths=["a.py", "b.py"], kind="bug", rationale="Fix the\n  rounding.",
                          diff="-x\n+y\n", commit="0123456789abcdef0123")  # fmt: skip
    head, why, *rest = entry.splitlines()
    assert head.endswith(" · `a.py`, `b.py` · bug · 0123456789ab")
    assert why == "Why: Fix the rounding."
    assert "\n".join(rest) == "\n```diff\n-x\n+y\n```"


def test_a_history_entry_without_files_or_commit_says_so() -> None:
    head = history_entry(paths=[], kind="lint", rationale="", diff="", commit=None).splitlines()[0]
    assert head.endswith(" · (no files) · lint")


def test_a_failed_entry_keeps_the_errors_and_the_last_attempt_when_there_was_one() -> None:
    entry = failed_entry(target="a.py", kind="feature", rationale="add x", errors="E1\n" * 3000,
                         diff="+x")  # fmt: skip
    assert "`a.py` · feature rejected by the gates" in entry
    assert "Last attempt:\n\n```diff\n+x\n```" in entry
    shown = entry.split("```text\n", 1)[1].split("\n```", 1)[0]
    assert len(shown) == 4000 and shown.startswith("E1\nE1")  # errors capped
    bare = failed_entry(target="a.py", kind="bug", rationale="r", errors="boom", diff="  ")
    assert "Last attempt" not in bare and bare.endswith("```text\nboom\n```")


def test_a_pending_proposal_is_titled_by_its_kind_and_lists_its_findings() -> None:
    feature = pending_entry(target="a.py", kind="feature", iteration=2, findings=[],
                            rationale="Add a flag.", diff="+flag\n\n")  # fmt: skip
    assert feature.startswith("# Feature proposal: `a.py`")
    assert "- (none: the model's own review)" in feature and feature.endswith("+flag\n```\n")
    review = pending_entry(target="a.py", kind="bug", iteration=2, findings=["a.py:3: [lint E1] x"],
                           rationale="", diff="")  # fmt: skip
    assert review.startswith("# Peer review: `a.py`") and "- a.py:3: [lint E1] x" in review


def test_one_line_flattens_and_caps_with_an_ellipsis() -> None:
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("word " * 100, limit=12) == "word word w…"
    assert len(one_line("x" * 500)) == 300


def test_a_diff_just_short_enough_is_not_cut() -> None:
    diff = "\n".join(str(i) for i in range(6))
    assert cut_diff(diff, head=3, tail=2) == diff
    assert "[2 lines cut for memory]" in cut_diff(diff + "\n6", head=3, tail=2)


# --- the review's files ------------------------------------------------------------------------


def test_appending_creates_the_record_with_its_title_and_separates_entries(tmp_path: Path) -> None:
    paths = ReviewPaths.for_repo(tmp_path)
    paths.append("FAILED_FEATURE.md", "## one\n", title="Failed")
    paths.append("FAILED_FEATURE.md", "\n\n## two", title="ignored once it exists")
    assert paths.read("FAILED_FEATURE.md") == "# Failed\n\n## one\n\n## two\n"


def test_a_missing_or_undecodable_file_reads_as_empty(tmp_path: Path) -> None:
    paths = ReviewPaths.for_repo(tmp_path)
    assert paths.read("MEMORY.md") == ""
    paths.file("MEMORY.md").parent.mkdir(parents=True)
    paths.file("MEMORY.md").write_bytes(b"\xff\xfe\xfa")
    assert paths.read("MEMORY.md") == ""
    paths.remove("MEMORY.md")
    paths.remove("MEMORY.md")  # removing twice is fine
    assert not paths.file("MEMORY.md").exists()


def test_a_cache_round_trips_and_a_broken_or_foreign_one_reads_as_empty(tmp_path: Path) -> None:
    paths = ReviewPaths.for_repo(tmp_path)
    assert paths.load_cache("targets.json") == {}
    paths.save_cache("targets.json", {"a.py": {"tries": 2}})
    assert paths.load_cache("targets.json") == {"a.py": {"tries": 2}}
    (paths.cache / "list.json").write_text(json.dumps([1, 2]))
    (paths.cache / "broken.json").write_text("{not json")
    assert paths.load_cache("list.json") == {} and paths.load_cache("broken.json") == {}


def test_memory_files_outside_the_repository_have_no_repository_names(tmp_path: Path) -> None:
    elsewhere = ReviewPaths(tmp_path / "repo", tmp_path / "notes", tmp_path / "repo" / "c")
    assert elsewhere.relative_names == frozenset()


def test_a_content_hash_depends_on_the_text_alone() -> None:
    assert sha("x = 1\n") == sha("x = 1\n") != sha("x = 2\n")
    assert len(sha("\udcff lone surrogate")) == 40  # never raises on odd text


# --- the live state ----------------------------------------------------------------------------


def live(files: dict[str, str] | None = None) -> tuple[EventBus, ReviewState]:
    bus = EventBus()
    state = ReviewState(lambda name: (files or {}).get(name, ""))
    bus.subscribe(state.on_event)
    return bus, state


def start(bus: EventBus) -> None:
    bus.emit(ReviewStart(run_id="r", model="m", focus="bug", iterations=5, targets=[],
                         memory_dir="mem"))  # fmt: skip


def test_a_new_iteration_forgets_the_last_ones_target_proposal_and_gates() -> None:
    bus, state = live()
    start(bus)
    bus.emit(ReviewTarget(path="a.py", score=1.0, reasons=[], cascade=False, iteration=1,
                          runners_up=[{"path": "b.py"}], queue=[]))  # fmt: skip
    bus.emit(ReviewProposal(iteration=1, target="a.py", proposal="bug", rationale="r", diff="+x"))
    bus.emit(GateResult(gate="lint", status="passed", new_problems=0, fixed_problems=0,
                        seconds=0.1, reason=None))  # fmt: skip
    assert state.snapshot()["proposal"]["diff"] == "+x"
    bus.emit(ReviewIteration(iteration=2, limit=5))
    snap = state.snapshot()
    assert (snap["target"], snap["proposal"], snap["gates"], snap["runners_up"]) == (
        None, None, [], [])  # fmt: skip
    assert snap["iteration"] == 2 and snap["limit"] == 5


def test_a_new_write_starts_the_gate_list_afresh_and_gates_are_listed_in_order() -> None:
    bus, state = live()
    for gate in ("syntax", "lint"):
        bus.emit(GateResult(gate=gate, status="passed", new_problems=0, fixed_problems=0,
                            seconds=0.1, reason=None))  # fmt: skip
    bus.emit(TxnWrite(iteration=1, paths=["a.py"]))
    assert state.snapshot()["phase"] == "verifying" and state.snapshot()["gates"] == []
    bus.emit(GateResult(gate="tests", status="failed", new_problems=2, fixed_problems=0,
                        seconds=1.5, reason="2 new failures"))  # fmt: skip
    assert state.snapshot()["gates"] == [{"gate": "tests", "status": "failed", "new_problems": 2,
                                          "seconds": 1.5, "reason": "2 new failures"}]  # fmt: skip


def test_the_phase_follows_the_loop_and_the_model() -> None:
    bus, state = live()
    assert state.snapshot()["phase"] == "starting"
    bus.emit(ReviewPhase(phase="indexing", iteration=0))
    assert state.snapshot()["phase"] == "indexing"
    bus.emit(ModelRequest(phase="propose", messages=2))
    assert state.snapshot()["phase"] == "asking the model (propose)"


def test_findings_queue_usage_and_outcomes_are_kept_as_reported() -> None:
    bus, state = live()
    bus.emit(ReviewFindings(total=7, files={"a.py": 7}, failing_tests=2, notes=[]))
    bus.emit(ReviewCascade(trigger="a.py", queued=["b.py"], ripples=[], queue=["b.py", "c.py"]))
    bus.emit(ReviewUsage(calls=3, attempts=4, prompt_tokens=100, completion_tokens=20,
                         cached_tokens=0, cost=0.5, seconds=2.0))  # fmt: skip
    for i, status in enumerate(("accepted", "rejected"), 1):
        bus.emit(ReviewOutcome(iteration=i, status=status, proposal="bug", target="a.py",
                               rationale="r", files=["a.py"], commit=None, fixed=[], errors="",
                               reason="why", attempts=1))  # fmt: skip
    snap = state.snapshot()
    assert snap["findings"] == {"total": 7, "failing_tests": 2}
    assert snap["queue"] == ["b.py", "c.py"]
    assert snap["usage"]["calls"] == 3 and snap["usage"]["cost"] == 0.5
    assert [o["status"] for o in snap["outcomes"]] == ["accepted", "rejected"]


def test_memory_and_history_are_reread_when_they_change_and_kept_to_their_newest_part() -> None:
    files = {"MEMORY.md": "old"}
    bus, state = live(files)
    start(bus)
    assert state.snapshot()["memory"] == "old"
    files["MEMORY.md"] = "m" * MAX_TEXT + "NEWEST"
    files["HISTORY.md"] = "## entry"
    bus.emit(ReviewMemoryEvent(iteration=1, chars=10, compacted=False, by_model=True))
    bus.emit(ReviewHistory(paths=["a.py"], commit=None))
    snap = state.snapshot()
    assert len(snap["memory"]) == MAX_TEXT and snap["memory"].endswith("NEWEST")
    assert snap["history"] == "## entry"


def test_the_log_keeps_the_latest_events_with_their_small_fields_only() -> None:
    bus, state = live()
    for i in range(MAX_LOG + 5):
        bus.emit(ReviewPhase(phase=f"p{i}", iteration=i, files=["a.py"], target="t" * 200))
    log = state.snapshot()["log"]
    assert len(log) == MAX_LOG and log[-1]["phase"] == f"p{MAX_LOG + 4}"
    assert log[0]["iteration"] == 5
    assert "files" not in log[-1] and "target" not in log[-1]  # lists and long text left out
    assert log[-1]["event"] == "review.phase"


def test_a_snapshot_is_a_copy_the_reader_cannot_change_the_state_through() -> None:
    bus, state = live()
    bus.emit(ReviewCascade(trigger="a.py", queued=[], ripples=[], queue=["b.py"]))
    snap = state.snapshot()
    snap["queue"].append("evil.py")
    snap["usage"]["calls"] = 99
    again = state.snapshot()
    assert again["queue"] == ["b.py"] and again["usage"]["calls"] == 0


def test_a_watcher_that_fails_does_not_stop_the_others_and_a_stopped_one_hears_nothing() -> None:
    bus, state = live()
    heard: list[int] = []

    def broken(event: object, version: int) -> None:
        raise RuntimeError("stream closed")

    state.watch(broken)
    stop = state.watch(lambda event, version: heard.append(version))
    bus.emit(ReviewPhase(phase="a", iteration=0))
    stop()
    stop()  # stopping twice is harmless
    bus.emit(ReviewPhase(phase="b", iteration=0))
    assert heard == [1] and state.snapshot()["version"] == 2
