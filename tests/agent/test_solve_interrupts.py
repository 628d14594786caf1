"""A stop whose KeyboardInterrupt Python swallowed (inside a finaliser or an at-fork hook)
still stops ``solve`` and leaves the repository as it was."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from patchwright import interrupts
from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.agent.solve_types import SolveResult
from patchwright.config import Settings
from patchwright.events import Event, EventBus

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)


class SigtermWhenCollected:
    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # its KeyboardInterrupt is reported and dropped


@pytest.fixture
def restore_handlers() -> Iterator[None]:
    before = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, before)


def run_with_lost_sigterm(repo: Path, replies: Path, on: str) -> SolveResult:
    """Runs the task; when the event ``on`` fires, SIGTERM arrives and its exception is lost."""

    def listener(event: Event) -> None:
        if event.kind == on:
            SigtermWhenCollected()

    bus = EventBus()
    bus.subscribe(listener)
    settings = Settings.model_validate({"model": {"name": f"scripted:{replies}"}})
    request = build_request(TASK, settings, Overrides(yes=True))
    with interrupts.stop_on_signals():
        return solve(Session(settings, repo, bus=bus), request)


@pytest.mark.parametrize(
    "moment",
    ["model.request", "txn.write", "txn.commit"],
    ids=["while the model replies", "while the gates run", "after the change is kept"],
)
def test_a_lost_sigterm_stops_the_run_and_restores_the_repo(
    moment: str,
    shop_repo: Path,
    script: Callable[[list[str]], Path],
    shop: Any,
    restore_handlers: None,
) -> None:
    before, head = shop.fingerprint(shop_repo), shop.git(shop_repo, "rev-parse", "HEAD")
    summary = run_with_lost_sigterm(shop_repo, script([FIX, "fix(pricing): x"]), on=moment)
    assert summary.outcome == "interrupted"
    assert summary.reason == "stopped by signal SIGTERM; repository restored"
    assert summary.commit is None and summary.files_changed == []
    assert shop.fingerprint(shop_repo) == before
    assert shop.git(shop_repo, "rev-parse", "HEAD") == head
    assert shop.git(shop_repo, "status", "--porcelain").strip() == ""
