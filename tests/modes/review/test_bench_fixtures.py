"""The review benchmark's repositories plant what they say: at the start exactly the planted
tests fail and exactly the planted lint errors are reported, every planted type error is
there, and with every hand fix applied nothing is left. (Each hand fix alone, a full check
per defect, is ``python benchmarks/review/run.py --fixture NAME --check``.)"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "review"


def bench_module(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCH))


@pytest.mark.parametrize("name", ["fixture", "agenda"])
def test_a_benchmark_repository_fails_exactly_where_planted_and_its_fixes_clear_it(
    tmp_path: Path, name: str
) -> None:
    fixture = bench_module(name).FIXTURE
    judge = bench_module("judge")

    assert judge.sanity(fixture, tmp_path, each=False) == []
    kinds = [d.kind for d in fixture.defects]
    assert len(kinds) >= 7 and {"test", "lint", "types"} <= set(kinds)


def test_the_second_repository_has_defects_in_modules_that_import_each_other() -> None:
    agenda = bench_module("agenda").FIXTURE

    assert len(agenda.defects) >= 8
    planted_in = {d.path for d in agenda.defects}
    imports = {path: text for path, text in agenda.files.items() if path in planted_in}
    assert "from agenda.clock import" in imports["agenda/event.py"]
    assert "from agenda.event import" in imports["agenda/calendar.py"]
    assert "from agenda.calendar import" in imports["agenda/export.py"]
    assert [d.name for d in agenda.defects if d.tool_fixable] == [
        "calendar imports itertools and never uses it"
    ]
