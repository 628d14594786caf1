"""The second benchmark repository: a one-day agenda library with ten planted defects.

Four modules that import each other — ``clock`` (times as minutes), ``event`` (uses
``clock``), ``calendar`` (uses both), ``export`` (uses ``calendar`` and ``clock``) — and an
entry point, a pytest suite, ruff and mypy configured. Planted: four bugs its tests catch,
three lint errors (one of them, an unused import, among ruff's safe fixes; ``== True`` and an
unused local are not) and three type errors. Two of the type errors are fixed by correcting
a signature (``format_time``'s and ``booked_hours``'s return types), so an accepted fix
re-signs a definition other modules use (``event``, ``export`` and the entry point) and the
review's cascade queues them. Each defect is independent of the others: its hand fix alone
makes its check hold (``run.py --fixture agenda --check``).

Kept as text so that the project's own linters never see the planted defects.
"""

from planted import Defect, Fixture

FILES: dict[str, str] = {
    "README.md": r"""# agenda

A one-day agenda: clock times, events, a calendar that keeps them in order and finds the free
time between them, and exports (text, CSV, hours booked).
""",
    "agenda/__init__.py": r'''"""Agenda: one day's events, the free time between them, and exports."""
''',
    "agenda/__main__.py": r'''"""Prints a sample day: its events, the free slots and the hours booked."""

from agenda.calendar import Calendar
from agenda.clock import format_time
from agenda.event import from_text
from agenda.export import booked_hours, to_text

if __name__ == "__main__":
    day = Calendar()
    for line in ("09:30-10:00 Standup", "12:00-13:00 Lunch", "15:00-16:30 Review"):
        day.add(from_text(line))
    print(to_text(day))
    for start, end in day.free_slots():
        print(f"free {format_time(start)}-{format_time(end)}")
    print(f"booked: {booked_hours(day):.1f} h")
''',
    "agenda/clock.py": r'''"""Clock times as minutes since midnight: parsing, formatting and arithmetic."""

from __future__ import annotations

MINUTES_PER_DAY = 24 * 60


def parse_time(text: str) -> int:
    """Minutes since midnight for ``"HH:MM"`` (``"09:30"`` is 570)."""
    hours, minutes = text.strip().split(":")
    return int(hours) * 60 + int(minutes)


def format_time(minutes: int) -> int:
    """``"HH:MM"`` for minutes since midnight (570 is ``"09:30"``)."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def add_minutes(start: int, delta: int) -> int:
    """The clock time ``delta`` minutes after ``start``, wrapping past midnight."""
    return (start + delta) % 1400
''',
    "agenda/event.py": r'''"""Events: a titled stretch of one day, from a start to an end time."""

from __future__ import annotations

from dataclasses import dataclass

from agenda.clock import format_time, parse_time


@dataclass
class Event:
    """One event; ``start`` and ``end`` are minutes since midnight."""

    title: str
    start: int
    end: int
    all_day: bool = False

    def duration(self) -> int:
        """Its length in minutes."""
        return self.end - self.start

    def overlaps(self, other: Event) -> bool:
        """True when the two events share some time (back-to-back events do not)."""
        return self.start <= other.end and other.start <= self.end

    def is_all_day(self) -> bool:
        """True for an event that takes the whole day."""
        return self.all_day == True

    def label(self) -> str:
        """``"09:00-09:30 Standup"``."""
        return f"{format_time(self.start)}-{format_time(self.end)} {self.title}"


def from_text(text: str) -> Event:
    """An event from ``"09:00-09:30 Standup"``."""
    times, title = text.strip().split(" ", 1)
    start, end = times.split("-")
    return Event(title, parse_time(start), parse_time(end))
''',
    "agenda/calendar.py": r'''"""The calendar: one day's events in start order, and the free time between them."""

from __future__ import annotations

import itertools

from agenda.clock import parse_time
from agenda.event import Event


class Calendar:
    """The events of one day, in start order; two events may not overlap."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def add(self, event: Event) -> Event:
        """Add ``event``; raises ValueError when it overlaps one already there."""
        for other in self.events:
            if event.overlaps(other):
                raise ValueError(f"{event.title} overlaps {other.title}")
        self.events.append(event)
        self.events.sort(key=lambda e: e.start)
        return event

    def find(self, title: str) -> Event:
        """The event with this title, or None."""
        for event in self.events:
            if event.title == title:
                return event
        return None

    def busy_minutes(self) -> int:
        """Minutes taken by the events, all together."""
        return sum(event.duration() for event in self.events)

    def free_slots(
        self, day_start: str = "09:00", day_end: str = "17:00"
    ) -> list[tuple[int, int]]:
        """The gaps between events within the working day, as (start, end) pairs."""
        slots = []
        cursor = parse_time(day_start)
        for event in self.events:
            if event.start > cursor:
                slots.append((cursor, event.start))
            cursor = max(cursor, event.end)
        return slots
''',
    "agenda/export.py": r'''"""Exports: the day as text lines or CSV, and how many hours of it are booked."""

from __future__ import annotations

from agenda.calendar import Calendar
from agenda.clock import format_time


def to_text(calendar: Calendar) -> str:
    """One line per event, earliest first."""
    ordered = sorted(calendar.events, key=lambda event: event.title)
    return "\n".join(event.label() for event in ordered)


def to_csv(calendar: Calendar) -> str:
    """``title,start,end`` rows under a header, times as ``HH:MM``."""
    count = len(calendar.events)
    rows = ["title,start,end"]
    for event in calendar.events:
        rows.append(f"{event.title},{format_time(event.start)},{format_time(event.end)}")
    return "\n".join(rows) + "\n"


def booked_hours(calendar: Calendar) -> int:
    """Hours taken by the events (90 minutes is 1.5)."""
    return calendar.busy_minutes() / 60
''',
    "pyproject.toml": r"""[project]
name = "agenda"
version = "0.1.0"
requires-python = ">=3.11"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]

[tool.ruff]
target-version = "py311"

[tool.ruff.lint]
select = ["E", "F"]

[tool.mypy]
python_version = "3.11"
files = ["agenda"]
""",
    "tests/test_clock.py": r"""from agenda.clock import add_minutes, format_time, parse_time


def test_parse_time() -> None:
    assert parse_time("09:30") == 570


def test_format_time() -> None:
    assert format_time(570) == "09:30"


def test_add_minutes() -> None:
    assert add_minutes(600, 30) == 630


def test_add_minutes_wraps_past_midnight() -> None:
    assert add_minutes(parse_time("23:30"), 45) == 15
""",
    "tests/test_event.py": r"""from agenda.event import Event, from_text


def test_duration() -> None:
    assert Event("a", 540, 600).duration() == 60


def test_overlapping_events_overlap() -> None:
    assert Event("a", 540, 600).overlaps(Event("b", 570, 630))


def test_back_to_back_events_do_not_overlap() -> None:
    assert not Event("a", 540, 600).overlaps(Event("b", 600, 660))


def test_from_text() -> None:
    event = from_text("09:00-09:30 Standup")
    assert (event.title, event.start, event.end) == ("Standup", 540, 570)
    assert event.label() == "09:00-09:30 Standup"


def test_all_day() -> None:
    assert Event("Holiday", 0, 1440, all_day=True).is_all_day()
    assert not Event("Call", 600, 630).is_all_day()
""",
    "tests/test_calendar.py": r"""import pytest

from agenda.calendar import Calendar
from agenda.event import Event


def day() -> Calendar:
    calendar = Calendar()
    calendar.add(Event("Lunch", 720, 780))
    calendar.add(Event("Standup", 570, 600))
    return calendar


def test_events_are_kept_in_start_order() -> None:
    assert [event.title for event in day().events] == ["Standup", "Lunch"]


def test_an_overlapping_event_is_refused() -> None:
    with pytest.raises(ValueError):
        day().add(Event("Call", 750, 810))


def test_find() -> None:
    calendar = day()
    assert calendar.find("Lunch") is calendar.events[1]
    assert calendar.find("Dinner") is None


def test_busy_minutes() -> None:
    assert day().busy_minutes() == 90


def test_free_slots() -> None:
    assert day().free_slots() == [(540, 570), (600, 720), (780, 1020)]
""",
    "tests/test_export.py": r"""from agenda.calendar import Calendar
from agenda.event import Event
from agenda.export import booked_hours, to_csv, to_text


def day() -> Calendar:
    calendar = Calendar()
    calendar.add(Event("Lunch", 720, 780))
    calendar.add(Event("Standup", 570, 600))
    return calendar


def test_to_text_is_chronological() -> None:
    assert to_text(day()).splitlines() == ["09:30-10:00 Standup", "12:00-13:00 Lunch"]


def test_to_csv() -> None:
    rows = ["title,start,end", "Standup,09:30,10:00", "Lunch,12:00,13:00"]
    assert to_csv(day()) == "\n".join(rows) + "\n"


def test_booked_hours() -> None:
    assert booked_hours(day()) == 1.5
""",
}

DEFECTS = [
    Defect("add_minutes wraps at 1400 minutes, not a day", "test", "agenda/clock.py",
           "tests/test_clock.py::test_add_minutes_wraps_past_midnight", "add_minutes",
           ("% 1400", "% MINUTES_PER_DAY")),
    Defect("back-to-back events count as overlapping", "test", "agenda/event.py",
           "tests/test_event.py::test_back_to_back_events_do_not_overlap", "overlaps",
           ("self.start <= other.end and other.start <= self.end",
            "self.start < other.end and other.start < self.end")),
    Defect("free_slots forgets the gap after the last event", "test", "agenda/calendar.py",
           "tests/test_calendar.py::test_free_slots", "free_slots",
           ("        return slots\n",
            "        if cursor < parse_time(day_end):\n"
            "            slots.append((cursor, parse_time(day_end)))\n        return slots\n")),
    Defect("to_text orders the events by title", "test", "agenda/export.py",
           "tests/test_export.py::test_to_text_is_chronological", "to_text",
           ("key=lambda event: event.title", "key=lambda event: event.start")),
    Defect("is_all_day compares to True with ==", "lint", "agenda/event.py", "E712",
           "is_all_day", ("return self.all_day == True", "return self.all_day")),
    Defect("calendar imports itertools and never uses it", "lint", "agenda/calendar.py", "F401",
           "Calendar", ("import itertools\n\n", ""), tool_fixable=True),
    Defect("to_csv assigns a count it never uses", "lint", "agenda/export.py", "F841",
           "to_csv", ("    count = len(calendar.events)\n", "")),
    Defect("format_time is declared to return an int", "types", "agenda/clock.py",
           'got "str", expected "int"', "format_time",
           ("def format_time(minutes: int) -> int:", "def format_time(minutes: int) -> str:")),
    Defect("Calendar.find returns None where it promises an Event", "types",
           "agenda/calendar.py", 'got "None", expected "Event"', "find",
           ("def find(self, title: str) -> Event:", "def find(self, title: str) -> Event | None:")),
    Defect("booked_hours is declared to return an int", "types", "agenda/export.py",
           'got "float", expected "int"', "booked_hours",
           ("def booked_hours(calendar: Calendar) -> int:",
            "def booked_hours(calendar: Calendar) -> float:")),
]  # fmt: skip

FIXTURE = Fixture("agenda", "agenda", FILES, DEFECTS,
                  "a one-day agenda library: 4 bugs its tests catch, 3 lint and 3 type errors, "
                  "in modules that import each other")  # fmt: skip
