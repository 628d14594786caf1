"""The dashboard in a real headless browser (Debian's chromium, driven by Playwright) while a
real review loop runs: the page follows the loop live, and its approve button answers the
pending checkpoint only with the run's token."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.conftest import Shop, make_repo
from tests.modes.review.test_review import COMMIT, MEMORY, SHOP_FILES, sr

from patchwright.agent.session import Session
from patchwright.config import load_settings
from patchwright.events import EventBus
from patchwright.modes.review.checkpoint import CheckpointDesk, CheckpointOptions
from patchwright.modes.review.files import ReviewPaths
from patchwright.modes.review.loop import ReviewOptions, ReviewSummary, run_review
from patchwright.modes.review.propose import Tuning
from patchwright.modes.review.state import ReviewState
from patchwright.ui.dashboard import serve

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]  # fmt: skip
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (scripts/setup.sh installs it with apt-get)",
)
WAIT = 60_000  # ms: the loop runs real test suites between steps

RESIGN = sr(
    "shop/pricing.py",
    "def apply_discount(price, percent):",
    "def apply_discount(price, percent, digits=2):",
    "Let callers choose the rounding.",
) + sr("shop/pricing.py", "    return price * percent / 100",
       "    return round(price * (1 - percent / 100), digits)", "")  # fmt: skip
CALLER = sr("shop/cart.py", "apply_discount(p, percent)", "apply_discount(p, percent, 2)",
            "Pass the rounding explicitly.")  # fmt: skip


def test_the_dashboard_follows_the_loop_and_approves_only_with_the_token(tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    repo = make_repo(tmp_path / "shop", SHOP_FILES)
    replies = tmp_path / "replies.jsonl"
    script = [RESIGN, COMMIT, MEMORY, CALLER, "refactor(cart): pass digits", MEMORY]
    replies.write_text("".join(json.dumps({"content": r}) + "\n" for r in script))
    bus = EventBus()
    session = Session(load_settings(repo), repo, model=f"scripted:{replies}", bus=bus)
    state = ReviewState(ReviewPaths.for_repo(repo).read)
    bus.subscribe(state.on_event)
    desk = CheckpointDesk(bus)
    board = serve(state, desk, port=0)
    opts = ReviewOptions(repo, iterations=2, tuning=Tuning(smoke_seconds=None),
                         checkpoint=CheckpointOptions(timeout=120, on_timeout="skip"))  # fmt: skip
    done: dict[str, ReviewSummary] = {}

    def loop() -> None:
        done["summary"] = run_review(opts, session=session, console=Console(quiet=True),
                                     desk=desk, interactive=False)  # fmt: skip

    worker = threading.Thread(target=loop, daemon=True)
    worker.start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(board.base + "/")  # no token in the link
            expect(page.locator("#checkpoint")).to_be_visible(timeout=WAIT)
            expect(page.locator("#iteration")).to_have_text("1")
            expect(page.locator("#target")).to_have_text("shop/pricing.py")
            expect(page.locator("#diff")).to_contain_text("digits=2")
            page.click("#approve")
            expect(page.locator("#checkpoint-result")).to_contain_text("refused")
            assert desk.pending is not None and not desk.pending.done.is_set()

            page.goto(board.url)  # the link printed in the terminal carries the token
            _record_queue(page)
            expect(page.locator("#checkpoint")).to_be_visible(timeout=WAIT)
            page.click("#approve")
            expect(page.locator("#iteration")).to_have_text("2", timeout=WAIT)
            expect(page.locator("#target")).to_have_text("shop/cart.py", timeout=WAIT)
            expect(page.locator("#reasons")).to_contain_text("cascade: shop/pricing.py")
            assert "shop/cart.py" in " ".join(page.evaluate("window.queueSeen"))
            expect(page.locator("#checkpoint")).to_be_visible(timeout=WAIT)
            page.click("#approve")
            expect(page.locator("#status")).to_have_text("ended: finished", timeout=WAIT)
            expect(page.locator("#outcomes li.accepted")).to_have_count(2)
            expect(page.locator("#history")).to_contain_text("shop/cart.py")
            browser.close()
    finally:
        desk.resolve("skip", by="test")  # never leave the loop waiting
        worker.join(timeout=120)
        board.close()
    summary = done["summary"]
    assert [a.target for a in summary.proposals if a.status == "accepted"] == [
        "shop/pricing.py", "shop/cart.py"]  # fmt: skip
    assert Shop.git(repo, "log", "-1", "--format=%s").strip() == "refactor(cart): pass digits"


def _record_queue(page: Any) -> None:
    """Keep every text the cascade-queue list shows, however briefly it shows it."""
    page.evaluate(
        """() => {
          window.queueSeen = [];
          const queue = document.getElementById("queue");
          new MutationObserver(() => window.queueSeen.push(queue.textContent))
            .observe(queue, {childList: true, subtree: true, characterData: true});
        }"""
    )
