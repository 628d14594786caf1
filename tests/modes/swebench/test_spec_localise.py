"""Specification of localisation from given evidence: functions as line spans
(:mod:`.code`), Ochiai SBFL over given per-test line hits (:mod:`.sbfl`), traceback frames
mapped onto the checkout, the weighted reciprocal-rank fusion of the signals, and the
measured ranks of the dataset's own fix (:mod:`.localise`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from patchwright.modes.swebench.code import Span, changed_lines, function_spans, innermost
from patchwright.modes.swebench.localise import (
    RRF_K,
    WEIGHTS,
    Signals,
    Suspect,
    describe,
    fuse,
    gold,
    issue_frames,
    rank_of,
    traceback_functions,
)
from patchwright.modes.swebench.sbfl import (
    Scored,
    context_key,
    contexts_of,
    ochiai,
    rank_functions,
)

SOURCE = '''"""A module."""
X = 1


def good(a):
    return a + 1


def bad(a):
    if a > 1:
        return a // 2
    return a


class Shape:
    @property
    def area(self):
        def inner():
            return 0
        return inner()

    async def _load(self, path, *, fast=False):
        return path
'''


def reader(files: dict[str, str]) -> Callable[[str], str | None]:
    """A reader over in-memory files (None: no such file)."""
    return files.get


# -- code: functions as spans ---------------------------------------------------------------


def test_every_function_and_method_is_a_span_with_its_qualified_name() -> None:
    spans = {s.name: s for s in function_spans(SOURCE)}
    assert list(spans) == ["good", "bad", "Shape.area", "Shape.area.inner", "Shape._load"]
    assert (spans["good"].start, spans["good"].end) == (5, 6)
    assert (spans["bad"].start, spans["bad"].end) == (9, 12)
    assert spans["Shape._load"].signature == "Shape._load(self, path, *, fast=False)"


def test_a_decorated_function_starts_at_its_first_decorator() -> None:
    area = next(s for s in function_spans(SOURCE) if s.name == "Shape.area")
    assert (area.start, area.end) == (16, 20)


def test_a_file_that_does_not_parse_has_no_spans() -> None:
    assert function_spans("def broken(:\n    pass\n") == []
    assert function_spans("") == []


@pytest.mark.parametrize(
    ("name", "public"),
    [("run", True), ("Cls.__init__", True), ("_helper", False), ("Cls._hidden", False),
     ("_Private.method", False), ("outer.__call__", True)],
)  # fmt: skip
def test_a_span_is_public_unless_a_part_of_its_name_is_underscored(name: str, public: bool) -> None:
    assert Span(name, 1, 2, f"{name}()").public is public


def test_a_line_belongs_to_the_innermost_function_holding_it() -> None:
    spans = function_spans(SOURCE)
    assert innermost(spans, 19).name == "Shape.area.inner"  # type: ignore[union-attr]
    assert innermost(spans, 20).name == "Shape.area"  # type: ignore[union-attr]
    assert innermost(spans, 2) is None  # module level
    assert innermost(spans, 14) is None  # between functions


def test_changed_lines_are_old_file_lines_and_an_insertion_counts_the_line_before() -> None:
    patch = (
        "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n"
        "@@ -1,3 +1,4 @@\n def f():\n-    return 1\n+    return 2\n x = 1\n+y = 2\n"
        "diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n"
        "@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n"
    )
    assert changed_lines(patch) == {"m.py": {2, 3}, "new.py": {1}}


def test_changed_lines_follow_each_hunk_s_own_start() -> None:
    patch = (
        "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n"
        "@@ -10,2 +10,2 @@\n ctx\n-old\n+new\n"
        "@@ -40 +40 @@\n-gone\n+here\n"
    )
    assert changed_lines(patch) == {"m.py": {11, 40}}


# -- sbfl: Ochiai over given hits -------------------------------------------------------


def test_ochiai_is_ef_over_the_root_of_failing_times_executed() -> None:
    assert ochiai(2, 2, 4) == pytest.approx(2 / math.sqrt(4 * 4))
    assert ochiai(0, 3, 2) == 0.0
    assert ochiai(1, 0, 0) == 0.0  # no failing test: nothing is suspicious


@pytest.mark.parametrize(
    ("test_id", "key"),
    [
        ("tests/test_a.py::test_y", "test_a.test_y"),
        ("tests/test_a.py::TestX::test_y[1-2]", "test_a.TestX.test_y"),
        ("pkg/tests/test_b.py::TestX::Inner::test_z", "test_b.TestX.Inner.test_z"),
    ],
)
def test_a_test_id_maps_to_the_tail_of_its_coverage_context(test_id: str, key: str) -> None:
    assert context_key(test_id) == key


def test_contexts_match_a_test_only_on_a_whole_dotted_tail() -> None:
    contexts = {"tests.test_a.test_y", "tests.other_test_a.test_y", "test_a.test_y", "x.test_z"}
    assert contexts_of(["tests/test_a.py::test_y[3]"], contexts) == {
        "tests.test_a.test_y",
        "test_a.test_y",
    }
    assert contexts_of([], contexts) == set()


BAD_HITS = {
    "pkg/m.py": {
        2: {"tests.test_m.test_fail", "tests.test_m.test_p1", "tests.test_m.test_p2"},  # import
        6: {"tests.test_m.test_p1"},
        10: {"tests.test_m.test_fail", "tests.test_m.test_p1", "tests.test_m.test_p2"},
        11: {"tests.test_m.test_fail"},
        12: {"tests.test_m.test_p1"},
    },
    "tests/test_m.py": {3: {"tests.test_m.test_fail"}},
    "pkg/data.txt": {1: {"tests.test_m.test_fail"}},
}
FAIL = ["tests/test_m.py::test_fail"]
PASS = ["tests/test_m.py::test_p1", "tests/test_m.py::test_p2"]


def test_a_function_scores_its_most_suspicious_line() -> None:
    ranked = rank_functions(BAD_HITS, FAIL, PASS, reader({"pkg/m.py": SOURCE}))
    assert ranked == [Scored("pkg/m.py", "bad", 9, 1.0)]  # line 11 runs only when failing


def test_module_level_lines_test_files_and_non_python_files_are_never_suspects() -> None:
    ranked = rank_functions(BAD_HITS, FAIL, PASS, reader({"pkg/m.py": SOURCE}))
    assert {s.path for s in ranked} == {"pkg/m.py"}
    assert all(s.name != "good" for s in ranked)  # run by passing tests only


def test_a_test_listed_as_failing_and_passing_counts_as_failing() -> None:
    hits = {"pkg/m.py": {6: {"t.test_m.test_a"}}}
    ranked = rank_functions(hits, ["t/test_m.py::test_a"], ["t/test_m.py::test_a"],
                            reader({"pkg/m.py": SOURCE}))  # fmt: skip
    assert ranked == [Scored("pkg/m.py", "good", 5, 1.0)]


def test_functions_rank_by_score_then_path() -> None:
    hits = {
        "b.py": {6: {"test_c.test_f", "test_c.test_p"}},
        "a.py": {6: {"test_c.test_f", "test_c.test_p"}, 11: {"test_c.test_f"}},
    }
    ranked = rank_functions(hits, ["test_c.py::test_f"], ["test_c.py::test_p"],
                            reader({"a.py": SOURCE, "b.py": SOURCE}))  # fmt: skip
    assert [(s.path, s.name) for s in ranked] == [("a.py", "bad"), ("a.py", "good"),
                                                  ("b.py", "good")]  # fmt: skip
    assert ranked[0].score == 1.0
    assert ranked[1].score == ranked[2].score == pytest.approx(1 / math.sqrt(2))


def test_without_a_failing_test_sbfl_finds_nothing() -> None:
    assert rank_functions(BAD_HITS, [], PASS, reader({"pkg/m.py": SOURCE})) == []


# -- traceback frames ---------------------------------------------------------------------


def test_frames_in_test_helpers_and_module_level_code_name_no_function(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(SOURCE)
    (tmp_path / "conftest.py").write_text("def fixture():\n    return 1\n")
    log = ("conftest.py:2: in fixture\n"
           "pkg/m.py:2: in <module>\n"
           "pkg/m.py:11: in bad\n"
           "pkg/m.py:10: in bad\n")  # fmt: skip
    assert traceback_functions(log, tmp_path, reader({"pkg/m.py": SOURCE})) == [
        ("pkg/m.py", "bad", 9)  # each function once, at its first line
    ]


def test_an_issue_frame_needs_one_checkout_file_sharing_two_path_parts() -> None:
    text = 'Traceback:\n  File "/opt/venv/site-packages/pkg/m.py", line 11, in bad\n'
    one = reader({"src/pkg/m.py": SOURCE})
    assert issue_frames(text, ["src/pkg/m.py", "docs/m.py"], one) == [("src/pkg/m.py", "bad", 9)]
    two = reader({"src/pkg/m.py": SOURCE, "lib/pkg/m.py": SOURCE})
    assert issue_frames(text, ["src/pkg/m.py", "lib/pkg/m.py"], two) == []  # ambiguous
    assert issue_frames(text, ["other/m.py"], reader({"other/m.py": SOURCE})) == []


def test_an_issue_frame_given_as_a_bare_file_name_matches_that_file() -> None:
    text = 'File "m.py", line 6, in good\n'
    assert issue_frames(text, ["pkg/m.py"], reader({"pkg/m.py": SOURCE})) == [
        ("pkg/m.py", "good", 5)
    ]


def test_issue_frames_skip_test_files_and_list_the_innermost_first() -> None:
    text = ('File "/x/tests/test_m.py", line 3, in test_it\n'
            'File "/x/pkg/m.py", line 6, in good\n'
            'File "/x/pkg/m.py", line 11, in bad\n')  # fmt: skip
    paths = ["tests/test_m.py", "pkg/m.py"]
    found = issue_frames(text, paths, reader({"pkg/m.py": SOURCE, "tests/test_m.py": SOURCE}))
    assert [name for _, name, _ in found] == ["bad", "good"]


# -- fusion -------------------------------------------------------------------------------


def test_each_signal_weighs_by_its_weight_over_rrf_k_plus_rank() -> None:
    signals = Signals(
        sbfl=[Scored("m.py", "bad", 9, 0.9)],
        traceback=[("m.py", "good", 5), ("m.py", "bad", 9)],
        index=[("m.py", "good", 5)],
    )
    suspects = fuse(signals, reader({"m.py": SOURCE}))
    scores = {s.name: s.score for s in suspects}
    assert scores["bad"] == pytest.approx(
        WEIGHTS["sbfl"] / (RRF_K + 1) + WEIGHTS["traceback"] / (RRF_K + 2)
    )
    assert scores["good"] == pytest.approx(
        WEIGHTS["traceback"] / (RRF_K + 1) + WEIGHTS["index"] / (RRF_K + 1)
    )
    assert [s.name for s in suspects] == ["bad", "good"]
    assert suspects[0].evidence == ("sbfl", "traceback")


def test_sbfl_alone_outranks_the_traceback_alone_which_outranks_the_index_alone() -> None:
    signals = Signals(sbfl=[Scored("a.py", "s", 1, 1.0)], traceback=[("b.py", "t", 1)],
                      index=[("c.py", "i", 1)])  # fmt: skip
    assert [s.name for s in fuse(signals, reader({}))] == ["s", "t", "i"]


def test_only_the_first_twenty_of_a_ranking_count_and_the_limit_cuts_the_rest() -> None:
    many = Signals(index=[(f"m{i:02}.py", "f", 1) for i in range(30)])
    assert len(fuse(many, reader({}), limit=25)) == 20
    assert [s.path for s in fuse(many, reader({}), limit=3)] == ["m00.py", "m01.py", "m02.py"]
    assert fuse(Signals(), reader({})) == []


def test_a_suspect_spans_its_function_in_the_file_or_just_its_line_without_it() -> None:
    signals = Signals(index=[("m.py", "bad", 10), ("gone.py", "f", 7)])
    known, unknown = fuse(signals, reader({"m.py": SOURCE}))
    assert (known.line, known.end) == (10, 12)  # the signal's line, the span's end
    assert (unknown.line, unknown.end) == (7, 7)


def test_a_suspect_record_rounds_its_score() -> None:
    suspect = Suspect("m.py", "bad", 9, 12, 1 / 3, ("index",))
    assert suspect.to_json() == {"path": "m.py", "name": "bad", "line": 9, "end": 12,
                                 "score": 0.33333, "evidence": ["index"]}  # fmt: skip


# -- measuring against the dataset's fix ----------------------------------------------------


def test_rank_of_is_the_one_based_rank_of_the_first_wanted_item() -> None:
    assert rank_of(["a", "b", "c"], ["c", "b"]) == 2
    assert rank_of(["a"], ["z"]) is None
    assert rank_of([], ["a"]) is None


GOLD_PATCH = (
    "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n"
    "@@ -10,3 +10,3 @@\n     if a > 1:\n-        return a // 2\n+        return a / 2\n     return a\n"
)


def test_gold_names_the_files_and_functions_the_dataset_s_patch_changes() -> None:
    assert gold(GOLD_PATCH, reader({"m.py": SOURCE})) == (["m.py"], ["m.py::bad"])


def test_describe_measures_where_the_fix_ranks_among_the_suspects() -> None:
    read = reader({"m.py": SOURCE})
    suspects = [Suspect("m.py", "good", 5, 6, 0.3, ("index",)),
                Suspect("m.py", "bad", 9, 12, 0.2, ("index",))]  # fmt: skip
    signals = Signals(index=[("m.py", "good", 5), ("m.py", "bad", 9)])
    record = describe(suspects, signals, GOLD_PATCH, read)
    assert record["file_rank"] == 1 and record["function_rank"] == 2
    assert record["gold_functions"] == ["m.py::bad"]
    assert record["signals"] == {"sbfl": 0, "traceback": 0, "index": 2}
    assert [s["name"] for s in record["suspects"]] == ["good", "bad"]
    missing = describe([], Signals(), GOLD_PATCH, read)
    assert missing["file_rank"] is None and missing["function_rank"] is None
