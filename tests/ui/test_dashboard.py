"""The dashboard's web application over HTTP: read-only state, the token-guarded checkpoint,
the Host check, and the event stream's framing."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from starlette.testclient import TestClient

from patchwright.events import EventBus, ReviewIteration
from patchwright.modes.review.checkpoint import CheckpointDesk
from patchwright.modes.review.state import ReviewState
from patchwright.ui.dashboard.app import allowed_hosts, build_app
from patchwright.ui.dashboard.hub import Hub

TOKEN = "s3cret-token"


@pytest.fixture
def parts() -> tuple[EventBus, ReviewState, CheckpointDesk]:
    bus = EventBus()
    state = ReviewState()
    bus.subscribe(state.on_event)
    return bus, state, CheckpointDesk(bus)


def client(state: ReviewState, desk: CheckpointDesk) -> TestClient:
    app = build_app(Hub(state), desk, TOKEN, "127.0.0.1")
    return TestClient(app, base_url="http://127.0.0.1:8765")


def test_the_page_and_its_state_are_served_read_only(
    parts: tuple[EventBus, ReviewState, CheckpointDesk],
) -> None:
    bus, state, desk = parts
    bus.emit(ReviewIteration(iteration=3, limit=5))
    web = client(state, desk)
    page = web.get("/")
    assert page.status_code == 200 and 'id="approve"' in page.text
    assert "script-src" not in page.headers["content-security-policy"]  # self only
    assert web.get("/app.js").headers["content-type"].startswith("text/javascript")
    assert web.get("/api/state").json()["iteration"] == 3
    assert web.post("/api/state").status_code == 405


def test_a_checkpoint_answer_needs_the_runs_token(
    parts: tuple[EventBus, ReviewState, CheckpointDesk],
) -> None:
    _, state, desk = parts
    pending = desk.open(target="a.py", kind="bug", rationale="r", diff="+x", problems="",
                        deadline=None)  # fmt: skip
    web = client(state, desk)
    refused = web.post("/api/checkpoint", json={"decision": "apply", "id": pending.id})
    assert refused.status_code == 403 and "token" in refused.json()["error"]
    wrong = web.post("/api/checkpoint", json={"decision": "apply"},
                     headers={"X-Patchwright-Token": "guess"})  # fmt: skip
    assert wrong.status_code == 403 and not pending.done.is_set()
    ok = web.post("/api/checkpoint", json={"decision": "apply", "id": pending.id},
                  headers={"X-Patchwright-Token": TOKEN})  # fmt: skip
    assert ok.json() == {"ok": True, "decision": "apply"}
    assert (pending.decision, pending.by) == ("apply", "dashboard")
    again = web.post("/api/checkpoint", json={"decision": "skip", "token": TOKEN})
    assert again.status_code == 409 and "no checkpoint" in again.json()["error"]


def test_requests_naming_another_host_are_refused(
    parts: tuple[EventBus, ReviewState, CheckpointDesk],
) -> None:
    _, state, desk = parts
    web = client(state, desk)
    assert web.get("/api/state", headers={"Host": "attacker.example"}).status_code == 400
    assert web.get("/api/state", headers={"Host": "localhost:8765"}).status_code == 200
    assert allowed_hosts("0.0.0.0") == ["*"] and "10.0.0.5" in allowed_hosts("10.0.0.5")


def test_the_event_stream_sends_the_state_then_each_event_with_the_state_after_it() -> None:
    bus, state = EventBus(), ReviewState()
    bus.subscribe(state.on_event)
    hub = Hub(state)

    async def read() -> list[str]:
        stream = hub.stream()
        chunks = [await anext(stream)]
        threading.Thread(target=bus.emit, args=(ReviewIteration(iteration=7, limit=0),)).start()
        chunks += [await anext(stream), await anext(stream)]
        hub.close()
        chunks += [c async for c in stream]
        return chunks

    first, event, after = asyncio.run(asyncio.wait_for(read(), 10))
    assert (
        first.startswith("event: state\ndata: ")
        and json.loads(first.split("data: ", 1)[1])["iteration"] == 0
    )
    assert event.startswith("event: event\n") and '"kind": "review.iteration"' in event
    assert json.loads(after.split("data: ", 1)[1])["iteration"] == 7
