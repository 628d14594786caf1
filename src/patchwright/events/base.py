"""What every event is: a frozen dataclass with a ``kind`` and a time, written as one JSON line.

A kind is declared once, as a subclass::

    @dataclass(frozen=True, kw_only=True)
    class GateResult(Event):
        kind: ClassVar[str] = "gate.result"
        gate: str
        status: str

and is emitted as ``bus.emit(GateResult(gate="lint", status="passed"))``. A listener matches
on the class (``match event: case GateResult(): ...`` or ``isinstance``), so reading a field
the kind does not have is a type error, not a silent ``None``.

The JSON form is ``{"kind": ..., "ts": ..., <fields>}``; a field declared ``X | None = None``
is an optional detail, written only when it has a value.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

KINDS: dict[str, type[Event]] = {}
"""Every declared kind → its class (filled as the kinds' modules are imported, all of them
by ``patchwright.events``)."""


@dataclass(frozen=True, kw_only=True)
class Event:
    """Something that happened. Subclasses name their ``kind`` and declare their fields."""

    kind: ClassVar[str] = ""
    ts: float = field(default_factory=time.time, compare=False)

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.kind:
            raise TypeError(f"{cls.__name__} declares no kind")
        if cls.kind in KINDS:
            raise TypeError(f"event kind {cls.kind!r} is declared twice")
        KINDS[cls.kind] = cls

    def payload(self) -> dict[str, object]:
        """The event's fields (not ``kind`` or ``ts``), as written: optional details that are
        None left out."""
        out: dict[str, object] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "ts" or (value is None and f.default is None):
                continue
            out[f.name] = value
        return out

    def to_json(self) -> str:
        return json.dumps(
            {"kind": self.kind, "ts": round(self.ts, 3), **self.payload()}, default=str
        )


Listener = Callable[[Event], None]


def declared_fields(kind: str) -> tuple[frozenset[str], frozenset[str]]:
    """The fields of ``kind`` as (required, optional) names — what a line of that kind in
    ``events.jsonl`` must and may hold besides ``kind`` and ``ts``."""
    required: set[str] = set()
    optional: set[str] = set()
    for f in dataclasses.fields(KINDS[kind]):
        if f.name == "ts":
            continue
        (optional if f.default is None else required).add(f.name)
    return frozenset(required), frozenset(optional)
