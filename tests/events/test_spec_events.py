"""The events and their bus, specified.

Every kind: a frozen, keyword-only dataclass registered once under a dotted name, whose JSON
line is ``{"kind", "ts", <fields>}`` with each required field present (even when None) and
an optional detail (declared ``X | None = None``) written only when it has a value. The bus:
listeners are called in the order they subscribed, each emit goes to the listeners there when
it began, a listener that raises is passed over, and leaving is safe to repeat. The JSONL
writer: one whole line per event, appended, from any thread."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import types
import typing
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import pytest

import patchwright.events as events
from patchwright.events import (
    KINDS,
    AgentPlan,
    ContextBuilt,
    Event,
    EventBus,
    GateResult,
    IndexStart,
    JsonlWriter,
    LocaliseDone,
    ModelReply,
    RunStart,
    TxnCommit,
    TxnRollback,
    declared_fields,
)


def sample(annotation: Any) -> Any:
    """A value of the annotated type (None for an optional one)."""
    origin = typing.get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        return None
    base = origin or annotation
    values: dict[Any, Any] = {str: "x", int: 1, float: 1.5, bool: True, list: [], dict: {}}
    return values[base]


def example(cls: type[Event]) -> Event:
    """An event of ``cls`` with every field given a value of its type."""
    hints = typing.get_type_hints(cls)
    given = {f.name: sample(hints[f.name]) for f in dataclasses.fields(cls) if f.name != "ts"}
    return cls(ts=1.0, **given)


# -- the kinds ------------------------------------------------------------------------------


def test_every_exported_event_class_is_registered_under_its_kind() -> None:
    exported = [getattr(events, n) for n in events.__all__]
    classes = {
        c for c in exported if isinstance(c, type) and issubclass(c, Event) and c is not Event
    }
    assert classes == set(KINDS.values())
    assert all(KINDS[c.kind] is c for c in classes)


def test_kinds_are_dotted_lower_case_names() -> None:
    for kind in KINDS:
        assert re.fullmatch(r"[a-z_]+(\.[a-z_]+)+", kind), kind


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kinds_line_holds_its_required_fields_and_only_declared_ones(kind: str) -> None:
    event = example(KINDS[kind])
    line = json.loads(event.to_json())
    required, optional = declared_fields(kind)
    assert line["kind"] == kind and line["ts"] == 1.0
    assert set(line) - {"kind", "ts"} == required  # optional ones are None here: left out
    assert not required & optional


def test_an_optional_detail_is_written_only_with_a_value() -> None:
    required, optional = declared_fields("run.start")
    assert required == {"run_id", "task", "model"} and "ignored_settings" in optional
    plain = RunStart(run_id="r1", task="fix", model="m", ts=2.0)
    assert json.loads(plain.to_json()) == {"kind": "run.start", "ts": 2.0, "run_id": "r1",
                                           "task": "fix", "model": "m"}  # fmt: skip
    noted = RunStart(run_id="r1", task="fix", model="m", ignored_settings=["candidates"])
    assert noted.payload()["ignored_settings"] == ["candidates"]


def test_a_required_field_that_may_be_none_is_written_as_null() -> None:
    """``file_rank: int | None`` with no default: the line says "not found" explicitly."""
    assert "file_rank" in declared_fields("localise.done")[0]
    line = json.loads(LocaliseDone(suspects=["a.f"], file_rank=None, function_rank=2).to_json())
    assert line["file_rank"] is None and line["function_rank"] == 2


def test_an_optional_detail_that_is_falsy_but_not_none_is_still_written() -> None:
    assert TxnCommit(undo="u1", paths=[], iteration=0).payload() == {
        "undo": "u1", "paths": [], "iteration": 0}  # fmt: skip
    assert AgentPlan(steps=[]).payload() == {"steps": []}
    assert ContextBuilt(files=["a.py"], omitted=[], fmt="whole").payload() == {
        "files": ["a.py"], "omitted": [], "fmt": "whole"}  # fmt: skip


def test_a_kind_without_fields_is_just_its_kind_and_time() -> None:
    assert json.loads(IndexStart(ts=3.0).to_json()) == {"kind": "index.start", "ts": 3.0}


def test_the_time_is_written_to_the_millisecond_and_defaults_to_now() -> None:
    assert json.loads(TxnRollback(reason="r", ts=1700000000.123456).to_json())["ts"] == (
        1700000000.123
    )
    import time

    before = time.time()
    event = TxnRollback(reason="r")
    assert before <= event.ts <= time.time()


def test_events_are_equal_whatever_their_times() -> None:
    assert TxnRollback(reason="r", ts=1.0) == TxnRollback(reason="r", ts=2.0)
    assert TxnRollback(reason="r") != TxnRollback(reason="r", iteration=1)


def test_an_event_is_frozen_and_its_fields_are_named() -> None:
    event = TxnRollback(reason="r")
    with pytest.raises(FrozenInstanceError):
        event.reason = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        TxnRollback("r")  # type: ignore[misc]
    with pytest.raises(TypeError):
        GateResult(gate="lint", status="passed")  # type: ignore[call-arg]


def test_a_value_json_cannot_write_is_written_as_its_text() -> None:
    event = TxnCommit(undo=Path("/u/1"), paths=[Path("a.py")])  # type: ignore[arg-type]
    line = json.loads(event.to_json())
    assert line["undo"] == "/u/1" and line["paths"] == ["a.py"]


def test_a_model_reply_carries_its_usage_and_tools_as_declared() -> None:
    reply = ModelReply(phase="edit", model="m", prompt_tokens=10, completion_tokens=2,
                       cost=0.001, seconds=0.5, tool_calls=["read_file"], ts=1.0)  # fmt: skip
    assert json.loads(reply.to_json()) == {
        "kind": "model.reply", "ts": 1.0, "phase": "edit", "model": "m", "prompt_tokens": 10,
        "completion_tokens": 2, "cost": 0.001, "seconds": 0.5, "tool_calls": ["read_file"],
        "estimated": False,
    }  # fmt: skip


def test_declared_fields_of_an_unknown_kind_is_an_error() -> None:
    with pytest.raises(KeyError):
        declared_fields("no.such_kind")


# -- the bus --------------------------------------------------------------------------------


def test_listeners_are_called_in_the_order_they_subscribed() -> None:
    bus, calls = EventBus(), list[str]()
    for name in ("record", "terminal", "dashboard"):
        bus.subscribe(lambda e, name=name: calls.append(name))
    bus.emit(IndexStart())
    assert calls == ["record", "terminal", "dashboard"]


def test_emit_hands_back_the_very_event_it_sent_even_with_no_listener() -> None:
    event = TxnRollback(reason="r")
    assert EventBus().emit(event) is event


def test_every_listener_after_a_broken_one_still_hears_every_event() -> None:
    bus, seen = EventBus(), list[str]()

    def broken(event: Event) -> None:
        raise ValueError("a closed pipe")

    bus.subscribe(lambda e: seen.append("first"))
    bus.subscribe(broken)
    bus.subscribe(lambda e: seen.append("last"))
    bus.emit(IndexStart())
    bus.emit(IndexStart())
    assert seen == ["first", "last", "first", "last"]


def test_an_interrupt_in_a_listener_is_not_swallowed() -> None:
    bus = EventBus()

    def interrupted(event: Event) -> None:
        raise KeyboardInterrupt

    bus.subscribe(interrupted)
    with pytest.raises(KeyboardInterrupt):
        bus.emit(IndexStart())


def test_a_listener_that_joins_during_an_emit_hears_only_the_next_event() -> None:
    bus, late = EventBus(), list[str]()

    def recruiter(event: Event) -> None:
        if isinstance(event, TxnRollback) and event.reason == "one":
            bus.subscribe(lambda e: late.append(getattr(e, "reason", "")))

    bus.subscribe(recruiter)
    bus.emit(TxnRollback(reason="one"))
    bus.emit(TxnRollback(reason="two"))
    assert late == ["two"]


def test_a_listener_that_leaves_during_an_emit_still_hears_that_event_and_no_more() -> None:
    bus, heard = EventBus(), list[str]()
    leave_b = None

    def a(event: Event) -> None:
        heard.append("a")
        assert leave_b is not None
        leave_b()

    bus.subscribe(a)
    leave_b = bus.subscribe(lambda e: heard.append("b"))
    bus.emit(IndexStart())
    bus.emit(IndexStart())
    assert heard == ["a", "b", "a"]


def test_leaving_twice_is_harmless_and_a_listener_subscribed_twice_leaves_once_per_call() -> None:
    bus, heard = EventBus(), list[int]()

    def listener(event: Event) -> None:
        heard.append(1)

    first = bus.subscribe(listener)
    bus.subscribe(listener)
    bus.emit(IndexStart())
    assert len(heard) == 2
    first()
    first()  # the second call finds one copy left and removes it: both are gone
    bus.emit(IndexStart())
    assert len(heard) == 2


def test_events_emitted_from_several_threads_all_reach_the_listener() -> None:
    bus, seen = EventBus(), list[int]()
    lock = threading.Lock()

    def listener(event: Event) -> None:
        with lock:
            seen.append(getattr(event, "iteration", -1))

    bus.subscribe(listener)
    workers = [threading.Thread(target=lambda k=k: [bus.emit(TxnRollback(reason="r",
               iteration=k * 100 + i)) for i in range(50)]) for k in range(4)]  # fmt: skip
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert sorted(seen) == sorted(k * 100 + i for k in range(4) for i in range(50))


# -- the JSONL writer -----------------------------------------------------------------------


def test_the_writer_makes_its_folder_and_appends_to_what_is_there(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "r1" / "events.jsonl"
    JsonlWriter(path)(TxnRollback(reason="one", ts=1.0))
    JsonlWriter(path)(TxnRollback(reason="two", ts=2.0))  # a resumed run's second writer
    lines = path.read_text().splitlines()
    assert [json.loads(x)["reason"] for x in lines] == ["one", "two"]
    assert path.read_text().endswith("\n")


def test_lines_written_from_several_threads_are_never_interleaved(tmp_path: Path) -> None:
    writer = JsonlWriter(tmp_path / "events.jsonl")
    long = "x" * 5000  # longer than one buffered write
    workers = [threading.Thread(target=lambda k=k: [writer(TxnRollback(reason=f"{k}{long}"))
               for _ in range(25)]) for k in range(4)]  # fmt: skip
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    lines = writer.path.read_text().splitlines()
    assert len(lines) == 100
    reasons = [json.loads(x)["reason"] for x in lines]
    assert sorted(r[0] for r in reasons) == sorted("0123" * 25)
    assert all(r[1:] == long for r in reasons)


def test_a_writer_on_the_bus_records_what_every_listener_heard(tmp_path: Path) -> None:
    bus = EventBus()
    writer = JsonlWriter(tmp_path / "events.jsonl")
    bus.subscribe(writer)
    sent = [IndexStart(ts=1.0), TxnRollback(reason="gate failed", iteration=1, ts=2.0)]
    for event in sent:
        bus.emit(event)
    assert writer.path.read_text().splitlines() == [e.to_json() for e in sent]
