"""A long-lived mode runs several tasks on one Session: one model, one record per task."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.config import Settings

FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)
DOC = (
    'shop/pricing.py\n```python\n<<<<<<< SEARCH\n"""Prices and discounts."""\n=======\n'
    '"""Prices and discounts, in one place."""\n>>>>>>> REPLACE\n```\n'
)


def test_two_tasks_share_the_model_and_keep_separate_records(
    shop_repo: Path, script: Callable[[list[str]], Path]
) -> None:
    replies = script([FIX, "fix(pricing): discount", DOC, "docs(pricing): say more"])
    settings = Settings.model_validate({"model": {"name": f"scripted:{replies}"}})
    session = Session(settings, shop_repo)
    model = session.model
    yes = Overrides(yes=True)
    first = solve(session, build_request("tests/test_pricing.py fails; fix it", settings, yes))
    doc = "Say more in the module docstring of shop/pricing.py"
    second = solve(session, build_request(doc, settings, yes))
    assert session.model is model
    assert (first.outcome, second.outcome) == ("solved", "unverified")  # no test for prose
    assert first.calls == 2 and second.calls == 2  # the ledger restarts per task
    for summary in (first, second):
        run_dir = shop_repo / ".patchwright" / "runs" / summary.run_id
        events: list[dict[str, Any]] = [
            json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()
        ]
        starts = [e for e in events if e["kind"] == "run.start"]
        assert [s["run_id"] for s in starts] == [summary.run_id]
