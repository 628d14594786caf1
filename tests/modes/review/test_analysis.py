"""The project map's bootstrap: a file that says what it does is summarised from its own
docstring or leading comment, with no model call; the model summarises the others lazily —
only when the loop is about to show them —, within its caps, and once per content."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import make_repo

from patchwright.events import Event, EventBus, ReviewAnalysis
from patchwright.index import RepoIndex
from patchwright.llm import ScriptedModel
from patchwright.modes.review.analysis import Analysis
from patchwright.modes.review.files import ReviewPaths

FILES = {
    "README.md": "Shapes and their measures.\n",
    "geo/area.py": '"""Areas of shapes. Squares only, for now."""\n\n\ndef square(s):\n'
    "    return s * s\n",
    "geo/perimeter.py": "def edge(s):\n    return 4 * s\n\n\ndef circle(r):\n    return 6.28 * r\n",
    "geo/tag.js": "// Tags a shape with its kind.\nexport const tag = (s) => s.kind;\n",
}
CODE = ["geo/area.py", "geo/perimeter.py", "geo/tag.js"]


def test_a_file_that_says_what_it_does_costs_no_model_call_the_others_are_asked_lazily(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "geo", FILES)
    texts = {p: (repo / p).read_text() for p in FILES}
    bus, seen = EventBus(), list[Event]()
    bus.subscribe(seen.append)
    model = ScriptedModel(["Perimeters of squares and circles."])
    with RepoIndex(repo) as index:
        index.update()
        analysis = Analysis(ReviewPaths.for_repo(repo), model, bus)
        analysis.refresh(index, texts, CODE)

        assert model.remaining == 1  # the bootstrap asked nothing
        assert analysis.summaries == {"geo/area.py": "Areas of shapes.",
                                      "geo/perimeter.py": "Defines `edge`, `circle`.",
                                      "geo/tag.js": "Tags a shape with its kind."}  # fmt: skip
        asked: list[str] = []
        assert analysis.ensure(CODE, texts, index, asked.append) == 1
        assert asked == ["geo/perimeter.py"] and model.remaining == 0
        assert analysis.ensure(CODE, texts, index) == 0  # asked once, not again
        shown = (repo / ".patchwright/review/ANALYSIS.md").read_text()
        assert "**Summary:** Perimeters of squares and circles." in shown
        ledger = json.loads((repo / ".patchwright/review/SYMBOLS.json").read_text())
        assert ledger["definitions"]["circle"] == "geo/perimeter.py"
        assert [e.by_model for e in seen if isinstance(e, ReviewAnalysis)] == [0, 1]

        later = Analysis(ReviewPaths.for_repo(repo), ScriptedModel([]), bus)
        later.refresh(index, texts, CODE)  # a later run: the model's summary is kept
        assert later.summaries == analysis.summaries
        assert later.ensure(CODE, texts, index) == 0


def test_the_model_summarises_at_most_per_target_files_at_a_time_and_budget_in_a_run(
    tmp_path: Path,
) -> None:
    files = {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(5)}
    texts = {"README.md": "Numbers.\n", **files}  # the project summary is the README's
    repo = make_repo(tmp_path / "bare", texts)
    model = ScriptedModel(["One.", "Two.", "Three.", "Four."])
    with RepoIndex(repo) as index:
        index.update()
        analysis = Analysis(ReviewPaths.for_repo(repo), model, EventBus(), model_budget=3,
                            per_target=2)  # fmt: skip
        analysis.refresh(index, texts, sorted(files))

        assert analysis.ensure(["m3.py", "m1.py", "m0.py"], texts, index) == 2
        assert analysis.summaries["m3.py"] == "One." and analysis.summaries["m1.py"] == "Two."
        assert analysis.ensure(sorted(files), texts, index) == 1  # the run's budget is spent
        assert analysis.ensure(sorted(files), texts, index) == 0
        assert model.remaining == 1
