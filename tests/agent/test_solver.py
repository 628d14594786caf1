"""The solve loop as a specification: scripted replies, files in memory, a checker that runs
the code it is given — no CLI, no git, no subprocess."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from patchwright.agent.checker import Check
from patchwright.agent.criterion import Verdict
from patchwright.agent.keeping import Keeper
from patchwright.agent.pipeline_options import SolveOptions
from patchwright.agent.pipeline_solver import PipelineSolver
from patchwright.agent.solve_types import Decision
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import Event, EventBus, ModelReply, ModelRequest
from patchwright.llm import Message, ModelInfo, OnToken, Reply, ToolSpec
from patchwright.llm.router import Candidate, Router
from patchwright.llm.scripted import ScriptedModel
from patchwright.llm.types import rough_token_count
from patchwright.verify import GateResult
from patchwright.workspace.textfile import TextFile, decode_bytes

BUGGY = "def add(a, b):\n    return a - b\n"


def whole(text: str) -> str:
    return f"calc.py\n```python\n{text}```\n"


FIXED = whole("def add(a, b):\n    return a + b\n")
COMMENTED = whole("# adds\ndef add(a, b):\n    return a - b\n")
BROKEN = whole("def add(a, b)\n    return a + b\n")


@dataclass
class Disk:
    """The files as a transaction would leave them, and what was kept."""

    files: dict[str, str] = field(default_factory=lambda: {"calc.py": BUGGY})
    kept: list[dict[str, str]] = field(default_factory=list)


@dataclass
class MemoryTxn:
    disk: Disk
    before: dict[str, str] = field(default_factory=dict)

    def stage(self, changes: dict[str, bytes | None]) -> None:
        self.before = self.before or dict(self.disk.files)
        for path, data in changes.items():
            if data is not None:
                self.disk.files[path] = data.decode()

    def write(self) -> None:
        return None

    def rollback(self) -> None:
        if self.before:
            self.disk.files.clear()
            self.disk.files.update(self.before)

    def commit(self, label: str = "") -> str:
        self.disk.kept.append(dict(self.disk.files))
        return "undo-1"


@dataclass
class RunsTheCode:
    """Gates: the file must compile; criterion: ``add(2, 3) == 5`` (None: no criterion)."""

    disk: Disk
    criterion: bool = True
    checked: int = 0

    def formatted(self, texts: Mapping[str, str | None]) -> dict[str, str]:
        return {}  # no formatter here

    def check(self, touched: Sequence[str]) -> Check:
        self.checked += 1
        scope: dict[str, object] = {}
        try:
            exec(compile(self.disk.files["calc.py"], "calc.py", "exec"), scope)
        except SyntaxError as exc:
            return Check([GateResult("syntax", "failed", output=str(exc))])
        if not self.criterion:
            return Check([GateResult("syntax", "passed")])
        ok = scope["add"](2, 3) == 5  # type: ignore[operator]
        report = "" if ok else "assert add(2, 3) == 5 failed: got -1"
        return Check(
            [GateResult("tests", "passed")], Verdict(ok, [] if ok else ["test_add"], report)
        )


def solver(
    replies: list[str], *, criterion: bool = True, scripted: ScriptedModel | None = None
) -> tuple[PipelineSolver, Disk, list[Event]]:
    disk = Disk()

    def read(path: str) -> TextFile | None:
        return decode_bytes(disk.files[path].encode()) if path in disk.files else None

    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)

    def approve(diff: str, problems: str = "") -> Decision:
        return "apply"

    model_ = scripted or ScriptedModel(replies)
    model = Router([Candidate(ModelInfo("scripted"), [None], lambda _key: model_)],
                   on_event=bus.emit)  # fmt: skip
    s = PipelineSolver(
        model=model,
        working=WorkingCopy(["calc.py"], read, lambda p: None, (), ["calc.py"]),
        checker=RunsTheCode(disk, criterion),
        new_txn=lambda: MemoryTxn(disk),
        bus=bus,
        keeper=Keeper(Path("."), approve, bus),
    )
    s.messages.extend([{"role": "system", "content": "fix"}, {"role": "user", "content": "task"}])
    return s, disk, events


OPTS = SolveOptions("make add add", "whole", max_iter=2, done="add(2, 3) == 5")


def test_a_first_reply_that_meets_the_criterion_is_solved_first_try() -> None:
    s, disk, _ = solver([FIXED])
    result = s.solve(OPTS)
    assert (result.outcome, result.iterations, result.first_try) == ("solved", 1, True)
    assert disk.kept == [{"calc.py": "def add(a, b):\n    return a + b\n"}]


def test_a_change_that_misses_the_criterion_is_repaired_with_its_failure() -> None:
    s, disk, _ = solver([COMMENTED, FIXED])
    result = s.solve(OPTS)
    assert (result.outcome, result.iterations) == ("solved", 2)
    repair = s.messages[3]["content"]
    assert "not done yet" in repair and "got -1" in repair and "add(2, 3) == 5" in repair
    assert len(disk.kept) == 1


def test_a_gate_failure_is_not_a_criterion_failure() -> None:
    s, _, _ = solver([BROKEN, FIXED])
    assert s.solve(OPTS).outcome == "solved"
    assert "did not pass verification" in s.messages[3]["content"]


def test_without_a_criterion_a_passing_change_is_unverified() -> None:
    s, disk, _ = solver([COMMENTED], criterion=False)
    result = s.solve(OPTS)
    assert result.outcome == "unverified" and disk.kept
    assert result.check is not None and result.check.unproved_note()


def test_best_of_k_tries_another_sample_of_the_same_prompt() -> None:
    s, _, events = solver([COMMENTED, FIXED])
    result = s.solve(SolveOptions("make add add", "whole", max_iter=1, candidates=2))
    assert (result.outcome, result.iterations, result.first_try) == ("solved", 1, False)
    phases = [e.phase for e in events if isinstance(e, ModelRequest)]
    assert phases == ["edit", "candidate"]
    assert [m["role"] for m in s.messages] == ["system", "user", "assistant"]  # one branch kept


def test_when_every_candidate_fails_the_closest_one_is_repaired() -> None:
    s, _, _ = solver([BROKEN, COMMENTED, FIXED])
    result = s.solve(SolveOptions("make add add", "whole", max_iter=2, candidates=2))
    assert (result.outcome, result.iterations) == ("solved", 2)
    assert "# adds" in s.messages[2]["content"]  # the commented (gates-passing) one, not BROKEN


def test_retries_share_one_budget_for_the_whole_run() -> None:
    s, _, _ = solver(["no edits here"] * 10)
    result = s.solve(SolveOptions("t", "whole", max_iter=3, free_retries=2))
    assert (result.outcome, result.retries, result.replies) == ("failed", 2, 5)


def test_an_unchanged_reply_is_not_kept_in_the_history_to_be_copied() -> None:
    s, _, _ = solver([whole(BUGGY), FIXED])
    result = s.solve(OPTS)
    assert (result.outcome, result.iterations) == ("solved", 1)
    # neither the echo nor a note in its place (small models copy the note word for word):
    # the feedback joins the request, and the next reply follows it
    assert [m["role"] for m in s.messages] == ["system", "user", "assistant"]
    request = s.messages[1]["content"]
    assert OPTS.task in request
    assert "left every file exactly as it was" in request and "add(2, 3) == 5" in request
    assert s.messages[2]["content"] == FIXED


BASELINE = "- failed: test_calc.py::test_add\n    assert add(2, 3) == 5 failed: got -1"


def test_an_echo_is_told_that_what_fails_is_above_when_the_request_shows_it() -> None:
    s, _, _ = solver([whole(BUGGY), FIXED])
    s.messages[1]["content"] = f"task\n\nCurrently failing:\n{BASELINE}"
    result = s.solve(replace(OPTS, failures=BASELINE))
    assert result.outcome == "solved"
    request = s.messages[1]["content"]
    assert "left every file exactly as it was" in request and "What fails is above." in request
    assert request.count("got -1") == 1  # the failing test once, not again in the feedback


def test_an_echo_is_shown_what_fails_when_no_request_shows_it() -> None:
    s, _, _ = solver([whole(BUGGY), FIXED])
    assert s.solve(replace(OPTS, failures=BASELINE)).outcome == "solved"
    request = s.messages[1]["content"]
    assert f"What fails:\n{BASELINE}" in request and "is above" not in request


def test_a_fresh_start_sends_the_first_request_as_it_was_before_an_echo_joined_it() -> None:
    # an echo, a change that misses, that change again: a new conversation
    s, _, _ = solver([whole(BUGGY), COMMENTED, COMMENTED, FIXED])
    result = s.solve(replace(OPTS, max_iter=3))
    assert (result.outcome, result.iterations) == ("solved", 2)
    assert [m["role"] for m in s.messages] == ["system", "user", "assistant"]
    fresh = s.messages[1]["content"]
    assert fresh.startswith("task\n\nAn earlier answer to this was tried and failed:")
    assert "left every file" not in fresh  # of a reply this conversation does not hold
    assert "left every file" in s.history[1]["content"]  # the first conversation kept it


@dataclass
class SaysWhatIsUndefined(RunsTheCode):
    """A NameError is a failed test run whose output names the name, as pytest's would."""

    def check(self, touched: Sequence[str]) -> Check:
        try:
            return super().check(touched)
        except NameError as exc:
            return Check([GateResult("tests", "failed", output=f"E   NameError: {exc}")])


def test_a_repair_names_the_line_the_change_deleted_that_defined_an_undefined_name() -> None:
    s, disk, _ = solver([whole("def add(a, b):\n    return base + b\n"), FIXED])
    disk.files["calc.py"] = "def add(a, b):\n    base = a\n    return base - b\n"
    s.checker = SaysWhatIsUndefined(disk)
    assert s.solve(OPTS).outcome == "solved"
    repair = s.messages[3]["content"]
    assert "name 'base' is not defined" in repair
    assert "Your change removed `base = a` from calc.py, which defined `base`" in repair


@dataclass
class TypeChecks(RunsTheCode):
    """A type checker that turns down multiplication, naming the line as mypy would."""

    def check(self, touched: Sequence[str]) -> Check:
        if "a * b" in self.disk.files["calc.py"]:
            return Check([GateResult("types", "failed", output="calc.py:2: error: not a sum")])
        return super().check(touched)


def test_the_line_an_error_points_at_is_quoted_in_the_repair_and_in_a_fresh_start() -> None:
    times = whole("def add(a, b):\n    return a * b\n")
    s, disk, _ = solver([times, times, FIXED])
    s.checker = TypeChecks(disk)
    result = s.solve(replace(OPTS, max_iter=3))
    assert (result.outcome, result.iterations) == ("solved", 2)
    quoted = "Where those errors point in the change:\n- calc.py:2: `return a * b`"
    repair = s.history[3]["content"]
    assert "calc.py:2: error: not a sum" in repair and quoted in repair
    fresh = s.messages[1]["content"]  # after the repeat: the change is not shown, its line is
    assert "An earlier answer to this was tried and failed:" in fresh and quoted in fresh


def test_code_left_as_it_was_is_told_the_baselines_failure_not_the_last_rejections() -> None:
    times = whole("def add(a, b):\n    return a * b\n")
    s, disk, _ = solver([times, whole(BUGGY), FIXED])
    s.checker = TypeChecks(disk)
    result = s.solve(replace(OPTS, failures=BASELINE, max_iter=2))
    assert (result.outcome, result.iterations) == ("solved", 2)
    echo = s.messages[-2]["content"]  # the repair request, the echo's feedback joined on
    told = echo.split("left every file exactly as it was")[1]
    assert BASELINE in told and "not a sum" not in told


def test_a_fresh_start_begins_from_the_files_as_they_are_not_from_the_failed_change() -> None:
    with_extra = COMMENTED + "\nextra.py\n```python\nX = 1\n```\n"
    s, disk, _ = solver([with_extra, with_extra, FIXED])
    result = s.solve(replace(OPTS, max_iter=3))
    assert (result.outcome, result.iterations) == ("solved", 2)
    assert s.messages[1]["content"].startswith("task\n\nAn earlier answer")  # a fresh start
    # the file the failed change made is not carried into the kept one
    assert disk.kept == [{"calc.py": "def add(a, b):\n    return a + b\n"}]


def test_each_echo_replaces_the_last_ones_feedback_instead_of_piling_up() -> None:
    s, _, _ = solver([whole(BUGGY), whole(BUGGY), FIXED])
    result = s.solve(OPTS)
    assert (result.outcome, result.iterations) == ("solved", 1)
    assert [m["role"] for m in s.messages] == ["system", "user", "assistant"]
    assert s.messages[1]["content"].count("left every file exactly as it was") == 1


LOOPING = "calc.py\n```python\ndef add(a, b):\n" + "    return a + b if a else b\n" * 60


def test_a_reply_that_loops_is_stopped_as_it_begins_and_told_what_it_repeated() -> None:
    s, _, events = solver([LOOPING + "```\n", FIXED])
    result = s.solve(OPTS)
    assert (result.outcome, result.iterations, result.replies) == ("solved", 1, 2)
    first = next(e for e in events if isinstance(e, ModelReply))
    assert first.completion_tokens < rough_token_count(LOOPING) // 2  # stopped a few repeats in
    assert [m["role"] for m in s.messages] == ["system", "user", "assistant"]  # loop dropped
    told = s.messages[1]["content"]  # its feedback joined the request
    assert "began repeating `return a + b if a else b` over and over" in told
    assert "Write each line once" in told and "cut off after" not in told
    assert s.messages[2]["content"] == FIXED


class Limited(ScriptedModel):
    """Scripted replies under a server's token limit: a longer one is cut there, finish
    reason ``length``; each request's limit is recorded."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies)
        self.limits: list[int | None] = []

    def complete(
        self, messages: Sequence[Message], *, tools: Sequence[ToolSpec | Mapping[str, Any]] | None = None,
        on_token: OnToken | None = None, max_tokens: int | None = None,
        temperature: float | None = None, phase: str = "", seed: int | None = None,
    ) -> Reply:  # fmt: skip
        self.limits.append(max_tokens)
        reply = super().complete(messages, tools=tools, on_token=on_token, max_tokens=max_tokens,
                                 temperature=temperature, phase=phase, seed=seed)  # fmt: skip
        words = reply.text.split(" ")
        if max_tokens is None or self.count_tokens(reply.text) <= max_tokens:
            return reply
        cut = " ".join(words[: len(words) * max_tokens // self.count_tokens(reply.text)])
        return replace(reply, text=cut, finish_reason="length")


def test_a_reply_cut_off_while_still_writing_its_file_gets_twice_the_room_next() -> None:
    body = "".join(f"    total{i} = a * {i} + b  # step {i} of the sum\n" for i in range(60))
    long_fix = whole(f"def add(a, b):\n{body}    return a + b\n")
    model = Limited([long_fix, long_fix])
    s, disk, _ = solver([], scripted=model)
    result = s.solve(replace(OPTS, reply_tokens=500))
    assert (result.outcome, result.replies) == ("solved", 2)
    assert model.limits == [500, 1000]
    assert [m["role"] for m in s.messages] == ["system", "user", "assistant"]  # not copied
    assert "cut off after 500 tokens" in s.messages[1]["content"]
    assert "total59" in disk.files["calc.py"]
