"""How a task ends when it does not simply succeed — a cap reached, a gate that could not run,
the person saying "another one" or "skip" — and that each ending leaves the repository as it
was, with the reason in the result and the run record."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.agent.solve_types import Approver, Decision, SolveResult
from patchwright.agent.tools.bench import CommandApprover, refuse_commands
from patchwright.config import Settings

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)
OTHER_FIX = FIX.replace("(1 - percent / 100)", "(100 - percent) / 100")


class Answers:
    def __init__(self, *answers: Decision) -> None:
        self.answers, self.shown = list(answers), list[str]()

    def change_approver(self, root: Path, paths: Callable[[], Sequence[str]]) -> Approver:
        def approve(diff: str, problems: str = "") -> Decision:
            self.shown.append(diff)
            return self.answers.pop(0)

        return approve

    def command_approver(self) -> CommandApprover:
        return refuse_commands


def run(
    repo: Path, tmp_path: Path, replies: list[str], *, person: Answers | None = None,
    model: dict[str, Any] | None = None, **overrides: Any,
) -> SolveResult:  # fmt: skip
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps({"content": r}) + "\n" for r in replies))
    settings = Settings.model_validate({"model": {"name": f"scripted:{script}", **(model or {})}})
    request = build_request(TASK, settings, Overrides(yes=True, **overrides))
    return solve(Session(settings, repo), request, person=person)


def summary(repo: Path, result: SolveResult) -> dict[str, Any]:
    path = repo / ".patchwright" / "runs" / result.run_id / "summary.json"
    return dict(json.loads(path.read_text()))


def test_a_call_cap_ends_the_task_before_the_call_that_would_break_it(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    before = shop.fingerprint(shop_repo)
    broken = FIX.replace("(1 - percent / 100)", "(1 - percent / 10)")
    result = run(shop_repo, tmp_path, [broken, FIX], model={"max_calls": 1})
    assert result.outcome == "failed" and result.calls == 1
    assert result.reason.startswith("calls cap reached: call cap reached: 1 of 1 model calls")
    assert shop.fingerprint(shop_repo) == before
    assert summary(shop_repo, result)["reason"] == result.reason


def test_a_test_command_that_stops_working_ends_the_task_as_an_error_not_a_repair(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    (shop_repo / "check.sh").write_text(
        'if grep -q "1 - percent" shop/pricing.py; then no-such-runner; '
        "else python -m pytest -q; fi\n"
    )
    shop.git(shop_repo, "add", "check.sh")
    shop.git(shop_repo, "commit", "-q", "-m", "a check script")
    before = shop.fingerprint(shop_repo)
    result = run(shop_repo, tmp_path, [FIX, FIX], test_cmd="sh check.sh")
    assert result.outcome == "error" and result.calls == 1  # no repair was asked for
    assert result.reason.startswith("the tests gate could not run")
    assert "not the change's fault" in result.reason
    assert result.gates["tests"] == "could_not_run"
    assert shop.fingerprint(shop_repo) == before


def test_another_change_when_the_person_asks_for_one(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    person = Answers("regenerate", "apply")
    result = run(shop_repo, tmp_path, [FIX, OTHER_FIX, "fix(pricing): d"], person=person)
    assert (result.outcome, result.iterations) == ("solved", 2)
    assert "(1 - percent / 100)" in person.shown[0] and "(100 - percent)" in person.shown[1]
    assert "(100 - percent) / 100" in (shop_repo / "shop" / "pricing.py").read_text()
    assert shop.git(shop_repo, "log", "-1", "--format=%s").strip() == "fix(pricing): d"


def test_a_skip_keeps_nothing_and_asks_the_model_nothing_more(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    before = shop.fingerprint(shop_repo)
    result = run(shop_repo, tmp_path, [FIX, FIX], person=Answers("skip"))
    assert (result.outcome, result.reason, result.calls) == ("failed", "skipped at approval", 1)
    assert shop.fingerprint(shop_repo) == before
    assert summary(shop_repo, result)["outcome"] == "failed"
