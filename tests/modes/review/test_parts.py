"""The review loop's parts, each on its own: memory files, findings, targeting, the
checkpoint, reading proposals, the live state."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from patchwright.config import Settings
from patchwright.events import (
    EventBus,
    ReviewCheckpoint,
    ReviewCheckpointResolved,
    ReviewEnd,
    ReviewIteration,
    ReviewStart,
    ReviewTarget,
)
from patchwright.index.model import Definition, FileSymbols
from patchwright.modes.review.checkpoint import CheckpointDesk
from patchwright.modes.review.files import ReviewPaths, cut_diff, recent_entries
from patchwright.modes.review.findings import Finding, Findings, lazy_patterns
from patchwright.modes.review.options import ReviewOptions, review_request
from patchwright.modes.review.propose import Tuning
from patchwright.modes.review.solver import rationale_of, says_nothing
from patchwright.modes.review.state import ReviewState
from patchwright.modes.review.targeting import CascadeItem, History, candidates, choose


def fs(path: str, defines: list[str] = (), uses: list[str] = ()) -> FileSymbols:  # type: ignore[assignment]
    defs = [Definition(n, "function", path, 1, 2, f"def {n}()") for n in defines]
    return FileSymbols(path, "python", defs, {n: [1] for n in uses})


SYMBOLS = {
    "app/core.py": fs("app/core.py", ["parse", "render"]),
    "app/cli.py": fs("app/cli.py", ["main"], ["parse", "render"]),
    "app/web.py": fs("app/web.py", ["serve"], ["render"]),
    "app/util.py": fs("app/util.py", ["slugify"]),
    "tests/test_core.py": fs("tests/test_core.py", ["test_parse"], ["parse"]),
}
FILES = ["app/cli.py", "app/core.py", "app/util.py", "app/web.py"]


def pick(findings: Findings | None = None, history: History | None = None,
         queue: list[CascadeItem] | None = None) -> list[str]:  # fmt: skip
    best, rest = choose(FILES, symbols=SYMBOLS, findings=findings or Findings(),
                        history=history or History(), shas={p: p for p in FILES}, iteration=5,
                        queue=queue if queue is not None else [])  # fmt: skip
    assert best is not None
    return [best.path] + [t.path for t in rest]


def test_a_long_diff_keeps_its_head_and_tail_with_a_marker() -> None:
    diff = "\n".join(f"line {i}" for i in range(100))
    cut = cut_diff(diff, head=3, tail=2).splitlines()
    assert cut == ["line 0", "line 1", "line 2", "... [95 lines cut for memory] ...",
                   "line 98", "line 99"]  # fmt: skip
    assert cut_diff("a\nb", head=3, tail=2) == "a\nb"


def test_recent_entries_keep_the_newest_within_the_cap() -> None:
    text = "# History\n\n## one\nx\n\n## two\ny\n\n## three\nz\n"
    assert recent_entries(text, 2, 1000) == "## two\ny\n\n## three\nz"
    assert recent_entries(text, 3, 20) == "## two\ny\n\n## three\nz"  # "one" dropped whole
    assert recent_entries(text, 3, 6) == "## th…"


def test_memory_files_live_under_patchwright_unless_asked_into_the_repository(
    tmp_path: Path,
) -> None:
    inside = ReviewPaths.for_repo(tmp_path)
    assert inside.file("MEMORY.md") == tmp_path / ".patchwright/review/MEMORY.md"
    assert ".patchwright/review/ANALYSIS.md" in inside.relative_names
    root = ReviewPaths.for_repo(tmp_path, in_repo=True)
    assert root.file("HISTORY.md") == tmp_path / "HISTORY.md"
    assert "SYMBOLS.json" in root.relative_names and root.cache == inside.cache


def test_lazy_patterns_name_silent_and_bare_excepts_any_and_todo_notes() -> None:
    code = (
        "from typing import Any\n\n\ndef f(x: Any) -> None:\n    try:\n        g()\n"
        "    except:\n        pass\n    try:\n        g()\n    except ValueError:\n"
        "        pass  # TODO: log it\n"
    )
    found = {(f.code, f.line) for f in lazy_patterns("m.py", code)}
    assert found == {("any", 4), ("bare-except", 7), ("silent-except", 11), ("todo", 12)}


def test_the_cascade_queue_comes_before_any_score() -> None:
    item = CascadeItem("app/web.py", "app/core.py", ("`render` changed",), "diff")
    queue = [item]
    best, _ = choose(FILES, symbols=SYMBOLS, findings=Findings(), history=History(),
                     shas={}, iteration=1, queue=queue)  # fmt: skip
    assert best is not None and best.cascade is item and queue == []
    assert best.reasons[0].startswith("cascade: app/core.py: `render` changed")


def test_findings_outrank_centrality_and_centrality_breaks_ties() -> None:
    assert pick()[0] == "app/core.py"  # used by two files
    failing = Findings({"app/util.py": [Finding("app/util.py", 3, "tests", "failed", "t fails")]})
    assert pick(failing)[0] == "app/util.py"


def test_history_turns_attention_away_from_files_just_reviewed_or_failed() -> None:
    history = History()
    history.note("app/core.py", 4, "rejected", "app/core.py")  # same content: failed there
    order = pick(history=history)
    assert order[-1] == "app/core.py"
    assert history.settled("app/core.py", "app/core.py")
    assert not history.settled("app/core.py", "changed since")


def test_a_file_the_tools_still_fault_rests_only_after_a_second_look_at_the_same_content() -> None:
    history = History()
    history.note("app/core.py", 1, "failed", "sha1")
    assert not history.settled("app/core.py", "sha1", problems=True)
    history.note("app/core.py", 2, "clean", "sha1")
    assert history.settled("app/core.py", "sha1", problems=True)
    history.note("app/core.py", 3, "failed", "sha2")  # new content: counting starts again
    assert not history.settled("app/core.py", "sha2", problems=True)
    assert history.settled("app/core.py", "sha2", problems=False)


def test_tests_are_candidates_only_when_named() -> None:
    assert candidates(SYMBOLS, [], []) == FILES
    assert candidates(SYMBOLS, ["app/cli.py", "tests"], []) == ["app/cli.py", "tests/test_core.py"]
    assert candidates(SYMBOLS, [], ["app/util.py"]) == ["app/cli.py", "app/core.py", "app/web.py"]


def test_a_proposals_rationale_is_its_prose_before_the_edits() -> None:
    reply = (
        "The loop skips the last item.\nHere is the fixed file:\n\napp/core.py\n"
        "```python\nx = 1\n```\nDone."
    )
    assert rationale_of(reply) == "The loop skips the last item."
    assert rationale_of("```python\nx = 1\n```") == ""
    assert says_nothing("NO_ISSUES") and says_nothing("No issues.")
    assert not says_nothing("NO_ISSUES?\n```python\nx = 1\n```")


def test_the_first_answer_at_a_checkpoint_wins_and_a_failing_edit_cannot_be_applied() -> None:
    desk = CheckpointDesk(EventBus())
    pending = desk.open(target="a.py", kind="bug", rationale="", diff="", problems="",
                        deadline=None)  # fmt: skip
    assert desk.resolve("skip", by="dashboard", pending_id="stale") is not None
    assert desk.resolve("apply", by="dashboard", pending_id=pending.id) is None
    assert desk.resolve("skip", by="terminal") == "no checkpoint is waiting for an answer"
    assert (pending.decision, pending.by) == ("apply", "dashboard")
    broken = desk.open(target="a.py", kind="bug", rationale="", diff="", problems="E999",
                       deadline=None)  # fmt: skip
    assert "cannot be applied" in (desk.resolve("apply", by="dashboard") or "")
    assert desk.resolve("skip", by="dashboard") is None and broken.decision == "skip"


def test_a_dashboard_answer_wakes_a_checkpoint_waiting_in_another_thread() -> None:
    desk = CheckpointDesk(EventBus())
    pending = desk.open(target="a.py", kind="bug", rationale="", diff="", problems="",
                        deadline=None)  # fmt: skip
    threading.Timer(0.05, lambda: desk.resolve("skip", by="dashboard")).start()
    assert pending.done.wait(5) and pending.decision == "skip"


def test_the_live_state_follows_the_loops_events() -> None:
    bus = EventBus()
    state = ReviewState(lambda name: f"text of {name}")
    bus.subscribe(state.on_event)
    seen: list[tuple[str, int]] = []
    state.watch(lambda event, version: seen.append((event.kind, version)))
    bus.emit(ReviewStart(run_id="r1", model="m", focus="both", iterations=3, targets=[],
                         memory_dir="memory"))  # fmt: skip
    bus.emit(ReviewIteration(iteration=2, limit=3))
    bus.emit(ReviewTarget(path="a.py", score=3.0, reasons=["why"], cascade=False, iteration=2,
                          runners_up=[], queue=["b.py"]))  # fmt: skip
    bus.emit(ReviewCheckpoint(id="c1", target="a.py", proposal="bug", rationale="", diff="+x",
                              problems="", deadline=None, can_apply=True))  # fmt: skip
    snap = state.snapshot()
    assert (snap["iteration"], snap["target"]["path"], snap["queue"]) == (2, "a.py", ["b.py"])
    assert snap["checkpoint"]["id"] == "c1" and snap["memory"] == "text of MEMORY.md"
    bus.emit(ReviewCheckpointResolved(id="c1", decision="apply", by="dashboard"))
    bus.emit(ReviewEnd(outcome="finished", iterations=2, accepted=[], rejected=[], skipped=[],
                       failed=[], clean=[], cascade_left=[], usage={}, seconds=1.0,
                       reason="done", notes=[], memory_dir="memory", run_id="r1"))  # fmt: skip
    snap = state.snapshot()
    assert snap["checkpoint"] is None and not snap["running"]
    assert [k for k, _ in seen][-1] == "review.end" and seen[-1][1] == snap["version"]


@pytest.mark.parametrize("text", ["", "# just a title\n"])
def test_recent_entries_of_an_empty_record_are_empty(text: str) -> None:
    assert recent_entries(text, 3, 100) == ""


def test_the_review_asks_with_a_real_request_from_the_settings_and_its_flags() -> None:
    settings = Settings.model_validate(
        {"run": {"edit_format": "whole", "commit": False, "test_cmd": "pytest -x",
                 "test_timeout": 60}}
    )  # fmt: skip
    request = review_request(ReviewOptions(Path("."), targets=["app"], focus="bugs"), settings)
    assert "Review app" in request.task and "bugs" in request.task
    assert (request.edit_format, request.git.commit, request.test_cmd) == (
        "whole",
        False,
        "pytest -x",
    )
    assert (request.limits.test_timeout, request.limits.max_iter) == (60, 3)  # 1 + heal 2
    flags = ReviewOptions(Path("."), test_cmd="make test", no_git=True,
                          tuning=Tuning(heal=0, edit_format="diff", test_timeout=5))  # fmt: skip
    request = review_request(flags, settings)
    assert (request.edit_format, request.test_cmd, request.git.use_git) == (
        "diff",
        "make test",
        False,
    )
    assert (request.limits.test_timeout, request.limits.max_iter) == (5, 1)
