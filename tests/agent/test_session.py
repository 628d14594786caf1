"""The Session turns every section of the settings into the parts modes use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from patchwright.agent.request import RunError
from patchwright.agent.session import Session, open_session
from patchwright.config import Settings
from patchwright.events import Event, EventBus, ModelReply, ModelRequest, TxnRecovered


def settings(tmp_path: Path, **sections: dict[str, object]) -> Settings:
    script = tmp_path / "replies.jsonl"
    script.write_text('{"content": "hi"}\n{"content": "again"}\n')
    model: dict[str, object] = {"name": f"scripted:{script}"}
    model.update(sections.pop("model", {}))
    return Settings.model_validate({"model": model, **sections})


def test_the_model_carries_the_configured_caps_and_relays_events(tmp_path: Path) -> None:
    bus, seen = EventBus(), list[Event]()
    bus.subscribe(seen.append)
    s = Session(settings(tmp_path, model={"max_cost": 1.5, "max_calls": 1}), tmp_path, bus=bus)
    assert (s.model.caps.max_cost, s.model.caps.max_calls) == (1.5, 1)
    s.model.complete([{"role": "user", "content": "x"}])
    assert s.usage.calls == 1
    s.start_task()  # caps are per task in a long-lived session
    assert s.usage.calls == 0
    s.model.complete([{"role": "user", "content": "y"}], phase="coder")
    assert [e.kind for e in seen] == ["model.request", "model.reply"] * 2
    request, reply = seen[2], seen[3]
    assert isinstance(request, ModelRequest) and (request.phase, request.messages) == ("coder", 1)
    assert isinstance(reply, ModelReply) and reply.model == s.model.name


def test_sandbox_and_file_settings_apply(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "small.py").write_text("x = 1\n")
    (repo / "big.py").write_text("y = 2\n" * 400)
    s = Session(
        settings(
            tmp_path,
            sandbox={"allow_net": True, "timeout": 12, "disk_budget_mb": 64},
            files={"max_file_bytes": 1000},
        ),
        repo,
    )
    assert s.sandbox.allow_net is True
    assert s.sandbox.limits.disk_bytes == 64 * 1024 * 1024
    assert s.command_timeout == 12
    assert sorted(s.read_texts()) == ["small.py"]


def test_a_session_opens_after_finishing_an_interrupted_transaction(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text("x = 1\n")
    crash = (
        "import os, sys\nfrom pathlib import Path\n"
        "from patchwright.workspace.transaction import Transaction\n"
        "txn = Transaction(Path(sys.argv[1]))\ntxn.stage({'calc.py': b'x = 2\\n'})\n"
        "txn.write()\nos._exit(9)  # dies: written, neither committed nor rolled back\n"
    )
    subprocess.run([sys.executable, "-c", crash, str(repo)], check=False)
    assert (repo / "calc.py").read_text() == "x = 2\n"
    bus, seen = EventBus(), list[Event]()
    bus.subscribe(seen.append)
    open_session(settings(tmp_path), repo, bus=bus)
    assert (repo / "calc.py").read_text() == "x = 1\n"
    assert [type(e) for e in seen] == [TxnRecovered]


def test_a_session_that_cannot_open_says_why(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="not a directory"):
        open_session(settings(tmp_path), tmp_path / "missing")
    with pytest.raises(RunError, match="no-such-provider"):
        open_session(settings(tmp_path), tmp_path, model="no-such-provider:x")
