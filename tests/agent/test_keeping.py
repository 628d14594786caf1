"""Keeping a verified change, the one path both strategies take: the person applies it,
edits it (re-checked, shown again, never kept unchecked), asks for another or skips it; a
kept change is committed in its transaction, or handed back with the repository as it was.
Real files and a real transaction in a temporary directory; the check reads the file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from patchwright.agent.checker import Check
from patchwright.agent.criterion import Verdict
from patchwright.agent.keeping import Declined, Keeper, Kept, write_change
from patchwright.agent.solve_types import Decision
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import Event, EventBus
from patchwright.verify import GateResult
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, read_text_file
from patchwright.workspace.transaction import Transaction

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
WORSE = "def add(a, b)\n    return a + b\n"


class Person:
    """Answers from a list; ``edits`` are written to disk before the "edited" answers."""

    def __init__(self, root: Path, answers: list[Decision], edits: Sequence[str] = ()) -> None:
        self.root, self.answers, self.edits = root, list(answers), list(edits)
        self.shown: list[tuple[str, str]] = []

    def __call__(self, diff: str, problems: str = "") -> Decision:
        self.shown.append((diff, problems))
        answer = self.answers.pop(0)
        if answer == "edited":
            (self.root / "calc.py").write_text(self.edits.pop(0))
        return answer


def check(touched: Sequence[str], root: Path) -> Check:
    """Gates: the file compiles; criterion: add(2, 3) == 5."""
    text = (root / "calc.py").read_text()
    try:
        scope: dict[str, object] = {}
        exec(compile(text, "calc.py", "exec"), scope)
    except SyntaxError as exc:
        return Check([GateResult("syntax", "failed", output=str(exc))])
    ok = scope["add"](2, 3) == 5  # type: ignore[operator]
    return Check([GateResult("tests", "passed")], Verdict(ok, [] if ok else ["test_add"], ""))


class Setup:
    def __init__(self, root: Path, answers: list[Decision], edits: Sequence[str] = (),
                 hand_back: bool = False) -> None:  # fmt: skip
        (root / "calc.py").write_text(BUGGY)
        self.root = root
        self.person = Person(root, answers, edits)
        self.events: list[Event] = []
        bus = EventBus()
        bus.subscribe(self.events.append)
        self.keeper = Keeper(root, self.person, bus, hand_back)

        def read(path: str) -> TextFile | None:
            target = confine(root, path)
            return read_text_file(target) if target.exists() else None

        self.working = WorkingCopy(["calc.py"], read, lambda p: None)
        self.working.write("calc.py", FIXED)
        self.txn = Transaction(root)
        write_change(self.txn, root, self.working)

    def keep(self) -> Kept:
        return self.keeper.keep(self.txn, self.working, lambda t: check(t, self.root),
                                check(["calc.py"], self.root), label="make add add")  # fmt: skip

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


def test_an_applied_change_is_committed_in_its_transaction(tmp_path: Path) -> None:
    s = Setup(tmp_path, ["apply"])
    kept = s.keep()
    assert kept.undo_id and kept.files == ["calc.py"]
    assert (tmp_path / "calc.py").read_text() == FIXED
    assert s.txn.state == "committed" and s.kinds() == ["txn.commit"]


def test_the_persons_edit_is_checked_again_and_kept_when_it_passes(tmp_path: Path) -> None:
    edited = "def add(a, b):\n    return b + a\n"
    s = Setup(tmp_path, ["edited", "apply"], [edited])
    kept = s.keep()
    assert (tmp_path / "calc.py").read_text() == edited
    assert b"b + a" in (kept.changes["calc.py"] or b"")
    assert s.kinds() == ["approval.edited", "txn.commit"]
    assert s.person.shown[1][1] == ""  # shown again, with no problems


def test_an_edit_that_fails_the_gates_cannot_be_applied(tmp_path: Path) -> None:
    s = Setup(tmp_path, ["edited", "apply"], [WORSE])
    with pytest.raises(Declined) as declined:
        s.keep()
    assert declined.value.decision == "skip" and not declined.value.check.ok
    assert s.person.shown[1][1]  # shown again, with what the gates found wrong
    assert s.txn.state != "committed"


def test_regenerate_and_skip_are_declined_for_the_strategy_to_decide(tmp_path: Path) -> None:
    for answer in ("regenerate", "skip"):
        root = tmp_path / answer
        root.mkdir()
        s = Setup(root, [answer])  # type: ignore[list-item]
        with pytest.raises(Declined) as declined:
            s.keep()
        assert declined.value.decision == answer
        assert s.txn.state not in ("committed", "rolled_back")  # the caller rolls back or not


def test_undoing_the_whole_change_by_hand_skips_it(tmp_path: Path) -> None:
    s = Setup(tmp_path, ["edited"], [BUGGY])
    with pytest.raises(Declined) as declined:
        s.keep()
    assert declined.value.decision == "skip"


def test_a_handed_back_change_comes_back_as_bytes_with_the_files_as_they_were(
    tmp_path: Path,
) -> None:
    s = Setup(tmp_path, ["apply"], hand_back=True)
    kept = s.keep()
    assert kept.undo_id is None
    assert kept.changes == {"calc.py": FIXED.encode()}
    assert (tmp_path / "calc.py").read_text() == BUGGY
    assert s.kinds() == ["txn.handed_back"]
