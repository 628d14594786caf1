"""The review on the benchmark's second repository, with scripted replies: the tools remove
the unused import with no model; the model's prompt shows the type error with its code and
the failing test with its assertion and the code it runs, in the edit format chosen for what
the proposal is about; the accepted fix re-signs ``booked_hours`` and the cascade takes the
entry point that uses it next."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import make_repo
from tests.modes.review.test_bench_fixtures import bench_module
from tests.modes.review.test_review import events, review, sr, user_prompts

Script = Callable[[list[str]], Path]


def test_the_type_error_is_shown_with_its_code_and_its_fix_sets_off_the_cascade(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    agenda = bench_module("agenda").FIXTURE
    repo = make_repo(tmp_path / "agenda", agenda.files)
    fix = sr("agenda/export.py", "def booked_hours(calendar: Calendar) -> int:",
             "def booked_hours(calendar: Calendar) -> float:",
             "booked_hours divides by 60, so it returns a float.")  # fmt: skip
    replies = script(
        [fix, "fix(export): booked_hours returns a float", "- ok", "NO_ISSUES", "- ok"]
    )

    code, out = review(repo, replies, "--iterations", "3", "--yes", "--focus", "bugs",
                       "--edit-format-for", "tests=diff")  # fmt: skip

    assert code == 0, out
    assert [(a["kind"], a["target"]) for a in out["accepted"]] == [
        ("lint", "agenda/calendar.py"), ("bug", "agenda/export.py")]  # fmt: skip
    bug = out["accepted"][1]
    assert (bug["about"], bug["edit_format"]) == ("tests", "diff")
    assert out["clean"] == ["agenda/__main__.py"]
    assert out["edit_formats"] == {"tests/diff": {"accepted": 1}, "cascade/whole": {"clean": 1}}
    prompt = user_prompts(repo)[0]
    assert "> 26 |     return calendar.busy_minutes() / 60" in prompt  # the type error's code
    assert "24 | def booked_hours(calendar: Calendar) -> int:" in prompt
    assert "The test (tests/test_export.py):" in prompt and "assert to_text(day())" in prompt
    assert "key=lambda event: event.title" in prompt.split("it runs:")[1]
    found = prompt.split("Problems the tools found in agenda/export.py:")[1].split("Failing")[0]
    assert "[types return-value]" in found and "[lint F841]" in found
    assert "F401" not in prompt.split("You are reviewing")[1]  # the tools' fix, not the model's
    log = events(repo)
    cascade = next(e for e in log if e["kind"] == "review.cascade")
    assert cascade["queued"] == ["agenda/__main__.py"]
    third = [e for e in log if e["kind"] == "review.target"][2]
    assert third["path"] == "agenda/__main__.py" and third["cascade"]
