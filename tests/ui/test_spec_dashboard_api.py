"""The dashboard's checkpoint answer and its server (``ui/dashboard/``): what a malformed or
unknown answer gets, the answer's words, the headers every response carries, the hosts it
accepts, and a port already in use told at once with what to do."""

from __future__ import annotations

import socket

import pytest
from starlette.testclient import TestClient

from patchwright.agent.request import RunError
from patchwright.events import EventBus
from patchwright.modes.review.checkpoint import CheckpointDesk, Pending
from patchwright.modes.review.state import ReviewState
from patchwright.ui.dashboard import serve
from patchwright.ui.dashboard.app import LOCAL_HOSTS, allowed_hosts, build_app
from patchwright.ui.dashboard.hub import Hub

TOKEN = "t0ken-for-tests"
AUTH = {"X-Patchwright-Token": TOKEN}


@pytest.fixture
def desk() -> CheckpointDesk:
    return CheckpointDesk(EventBus())


@pytest.fixture
def web(desk: CheckpointDesk) -> TestClient:
    app = build_app(Hub(ReviewState()), desk, TOKEN, "127.0.0.1")
    return TestClient(app, base_url="http://127.0.0.1:8765")


def waiting(desk: CheckpointDesk, problems: str = "") -> Pending:
    return desk.open(target="a.py", kind="bug", rationale="why", diff="+x", problems=problems,
                     deadline=None)  # fmt: skip


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'"apply"'])
def test_an_answer_that_is_not_a_json_object_is_a_bad_request(
    web: TestClient, desk: CheckpointDesk, body: bytes
) -> None:
    pending = waiting(desk)
    reply = web.post("/api/checkpoint", content=body, headers=AUTH)
    assert reply.status_code == 400 and "send a JSON object" in reply.json()["error"]
    assert not pending.done.is_set()


def test_an_unknown_decision_is_refused_and_the_checkpoint_still_waits(
    web: TestClient, desk: CheckpointDesk
) -> None:
    pending = waiting(desk)
    reply = web.post("/api/checkpoint", json={"decision": "maybe"}, headers=AUTH)
    assert reply.status_code == 400 and reply.json() == {
        "ok": False, "error": 'decision must be "apply" or "skip"'}  # fmt: skip
    assert not pending.done.is_set()


def test_approve_means_apply(web: TestClient, desk: CheckpointDesk) -> None:
    pending = waiting(desk)
    reply = web.post("/api/checkpoint", json={"decision": "approve"}, headers=AUTH)
    assert reply.json() == {"ok": True, "decision": "apply"}
    assert (pending.decision, pending.by) == ("apply", "dashboard")


def test_a_change_that_fails_the_gates_can_be_skipped_but_not_applied(
    web: TestClient, desk: CheckpointDesk
) -> None:
    pending = waiting(desk, problems="tests: 1 new failure")
    refused = web.post("/api/checkpoint", json={"decision": "apply"}, headers=AUTH)
    assert refused.status_code == 409 and "fails the gates" in refused.json()["error"]
    skipped = web.post("/api/checkpoint", json={"decision": "skip", "token": TOKEN})
    assert skipped.json() == {"ok": True, "decision": "skip"} and pending.decision == "skip"


def test_an_answer_to_an_older_checkpoint_is_refused(web: TestClient, desk: CheckpointDesk) -> None:
    waiting(desk)
    newer = waiting(desk)
    reply = web.post("/api/checkpoint", json={"decision": "skip", "id": "0ld1d"}, headers=AUTH)
    assert reply.status_code == 409 and "a newer one is waiting" in reply.json()["error"]
    assert not newer.done.is_set()


def test_every_response_forbids_caching_framing_and_sniffing(web: TestClient) -> None:
    for path in ("/", "/style.css", "/api/state"):
        headers = web.get(path).headers
        assert headers["cache-control"] == "no-store", path
        assert headers["x-content-type-options"] == "nosniff", path
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
    assert web.get("/style.css").headers["content-type"].startswith("text/css")
    refused = web.post("/api/checkpoint", json={})
    assert refused.headers["cache-control"] == "no-store"


def test_the_accepted_hosts_are_this_machine_and_the_address_bound() -> None:
    assert allowed_hosts("127.0.0.1") == sorted(LOCAL_HOSTS)
    assert allowed_hosts("Dev.Example") == sorted({*LOCAL_HOSTS, "dev.example"})
    assert allowed_hosts("::") == ["*"] and allowed_hosts("") == ["*"]


def test_a_port_in_use_is_told_at_once_with_what_to_do(desk: CheckpointDesk) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(RunError, match=rf"cannot listen on 127\.0\.0\.1:{port}.*--port 0"):
            serve(ReviewState(), desk, port=port)
    finally:
        taken.close()
    assert desk.remote is False
