"""Specification of how the review loop picks its next file and what it tells about it:
finding weights and their words, the history that turns attention away, the cascade queue,
which files are candidates at all, and the edit format each kind of proposal is asked in."""

from __future__ import annotations

import math

import pytest

from patchwright.index.model import Definition, FileSymbols
from patchwright.modes.review.findings import WEIGHTS, Finding, Findings, lazy_patterns
from patchwright.modes.review.formats import (
    KINDS,
    SMALL_MODEL_FORMATS,
    edit_format,
    finding_kind,
    parse_overrides,
)
from patchwright.modes.review.targeting import (
    LAZY_CAP,
    CascadeItem,
    History,
    Target,
    candidates,
    choose,
    dependents,
)


def fs(path: str, defines: tuple[str, ...] = (), uses: tuple[str, ...] = (),
       language: str = "python") -> FileSymbols:  # fmt: skip
    defs = [Definition(n, "function", path, i + 1, i + 1, f"def {n}()") for i, n in
            enumerate(defines)]  # fmt: skip
    return FileSymbols(path, language, defs, {n: [1] for n in uses})


def lazy(path: str, n: int) -> list[Finding]:
    return [Finding(path, i + 1, "lazy", "todo", "TODO later") for i in range(n)]


def ranked(files: dict[str, FileSymbols], findings: Findings | None = None,
           history: History | None = None, iteration: int = 10,
           queue: list[CascadeItem] | None = None) -> tuple[Target | None, list[Target]]:  # fmt: skip
    return choose(sorted(files), symbols=files, findings=findings or Findings(),
                  history=history or History(), shas={p: "sha-" + p for p in files},
                  iteration=iteration, queue=queue if queue is not None else [])  # fmt: skip


ISLANDS = {p: fs(p, (f"only_in_{p[0]}",)) for p in ("a.py", "b.py", "c.py")}  # no references


# --- findings: weights and words -----------------------------------------------------------


def test_a_crash_outweighs_a_failing_test_which_outweighs_tool_findings_and_lazy_patterns() -> None:
    weight = {s: Finding("m.py", 1, s, "x", "m").weight for s in WEIGHTS}
    assert weight["smoke"] > weight["tests"] > weight["lint"] == weight["types"] > weight["lazy"]


@pytest.mark.parametrize("code", ["E999", "F821", "F632", "F701", "node-check"])
def test_lint_that_means_the_code_cannot_run_weighs_more_than_style(code: str) -> None:
    serious = Finding("m.py", 1, "lint", code, "m")
    style = Finding("m.py", 1, "lint", "E501", "line too long")
    assert serious.weight == style.weight + 2.0


def test_a_serious_code_weighs_more_only_as_lint() -> None:
    assert Finding("m.py", 1, "types", "E999", "m").weight == WEIGHTS["types"]


def test_a_finding_renders_with_its_place_and_source() -> None:
    assert Finding("m.py", 7, "lint", "F401", "unused").render() == "m.py:7: [lint F401] unused"
    assert Finding("m.py", None, "tests", "failed", "t fails").render() == (
        "m.py: [tests failed] t fails"
    )


def test_findings_of_a_file_without_any_are_empty_and_the_total_counts_every_file() -> None:
    found = Findings({"a.py": lazy("a.py", 2), "b.py": lazy("b.py", 1)})
    assert found.of("c.py") == [] and found.total == 3


def test_outside_python_the_lazy_patterns_are_the_comment_notes_alone() -> None:
    js = "// FIXME: handle null\nconst x = 1; // XXX\ntry { f(); } catch (e) {}\nlet y: any;\n"
    found = lazy_patterns("app.ts", js)
    assert [(f.line, f.code) for f in found] == [(1, "fixme"), (2, "xxx")]
    assert found[0].message == "FIXME handle null"


def test_python_that_does_not_parse_still_gets_its_notes_and_nothing_else() -> None:
    found = lazy_patterns("m.py", "def f(:\n    pass  # HACK around it\n")
    assert [(f.line, f.code) for f in found] == [(2, "hack")]


def test_an_except_that_does_something_is_not_lazy_and_typing_any_counts() -> None:
    code = (
        "import typing\n\n\ndef f(x: typing.Any) -> None:\n    try:\n        g()\n"
        "    except ValueError:\n        log()\n"
    )
    assert [(f.line, f.code) for f in lazy_patterns("m.py", code)] == [(4, "any")]


# --- scoring and ordering ------------------------------------------------------------------


def test_any_number_of_lazy_patterns_counts_at_most_the_cap() -> None:
    findings = Findings({"a.py": lazy("a.py", 10),
                         "b.py": [Finding("b.py", 1, "lint", "E501", "long"), *lazy("b.py", 1)]})  # fmt: skip
    best, rest = ranked(ISLANDS, findings)
    assert best is not None and best.path == "b.py"
    scores = {t.path: t.score for t in [best, *rest]}
    assert scores["a.py"] - scores["c.py"] == pytest.approx(LAZY_CAP)


def test_the_reasons_say_how_many_findings_of_each_source_with_their_codes() -> None:
    found = [Finding("a.py", i, "lint", code, "m") for i, code in
             enumerate(["E501", "F401", "E501", "W291", "E711", "E712"], 1)]  # fmt: skip
    found.append(Finding("a.py", None, "tests", "failed", "t fails", "tests/t.py::t"))
    best, _ = ranked(ISLANDS, Findings({"a.py": found}))
    assert best is not None
    assert best.reasons[:2] == (
        "1 failing test(s) run through it (failed)",
        "6 lint finding(s) (E501, F401, W291)",  # the first four, each code once
    )
    assert "never reviewed" in best.reasons


def test_a_file_others_use_says_how_many_and_outranks_an_unused_one() -> None:
    files = {
        "core.py": fs("core.py", ("load_settings",)),
        "a.py": fs("a.py", ("run_a",), ("load_settings",)),
        "b.py": fs("b.py", ("run_b",), ("load_settings",)),
    }
    best, rest = ranked(files)
    assert best is not None and best.path == "core.py"
    assert "used by 2 file(s)" in best.reasons
    assert all(not any(r.startswith("used by") for r in t.reasons) for t in rest)


def test_equal_scores_are_ordered_by_path_folder_by_folder() -> None:
    files = {p: fs(p, (f"name_{i}_here",)) for i, p in enumerate(["b/x.py", "a-b/y.py", "a/z.py"])}
    best, rest = ranked(files)
    assert [t.path for t in [best, *rest] if t] == ["a/z.py", "a-b/y.py", "b/x.py"]


def test_at_most_five_runners_up_are_named() -> None:
    files = {f"m{i}.py": fs(f"m{i}.py", (f"name_{i}_here",)) for i in range(9)}
    best, rest = ranked(files)
    assert best is not None and len(rest) == 5


def test_no_candidates_means_no_target() -> None:
    assert choose([], symbols={}, findings=Findings(), history=History(), shas={}, iteration=1,
                  queue=[]) == (None, [])  # fmt: skip


def test_a_cascade_item_for_a_file_gone_from_the_index_is_dropped_for_the_next_one() -> None:
    gone = CascadeItem("deleted.py", "core.py", ("`f` removed",), "")
    live = CascadeItem("b.py", "core.py", ("`g` changed", "`h` changed", "`i`", "`j`"), "")
    queue = [gone, live]
    best, rest = ranked(ISLANDS, queue=queue)
    assert best is not None and best.cascade is live and queue == [] and rest == []
    assert best.reasons == ("cascade: core.py: `g` changed; `h` changed; `i`",)  # three named


def test_a_target_reads_as_json_with_a_cascade_having_no_score() -> None:
    assert Target("a.py", 3.14159, ("why",)).to_json() == {
        "path": "a.py", "score": 3.14, "reasons": ["why"], "cascade": False}  # fmt: skip
    item = CascadeItem("a.py", "b.py", (), "")
    as_json = Target("a.py", math.inf, (), item).to_json()
    assert as_json["score"] is None and as_json["cascade"] is True


# --- history ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcome", "sha", "iteration", "penalty", "reason"),
    [
        ("rejected", "s1", 9, 8.0, "its last proposal failed at this content"),
        ("failed", "s1", 3, 8.0, "its last proposal failed at this content"),
        ("clean", "s1", 9, 6.0, "reviewed at this content (clean)"),
        ("skipped", "s1", 3, 6.0, "reviewed at this content (skipped)"),
        ("accepted", "s2", 9, 4.0, "reviewed 1 iteration(s) ago"),
        ("rejected", "s2", 10, 4.0, "reviewed 2 iteration(s) ago"),
        ("accepted", "s2", 11, 0.0, None),
    ],
)
def test_the_history_penalty_by_outcome_content_and_age(
    outcome: str, sha: str, iteration: int, penalty: float, reason: str | None
) -> None:
    history = History()
    history.note("a.py", 8, outcome, "s1")
    assert history.penalty("a.py", iteration, sha) == (penalty, reason)


def test_a_file_never_reviewed_gets_a_small_bonus() -> None:
    assert History().penalty("new.py", 1, "s") == (-1.0, "never reviewed")


def test_reviews_of_one_content_are_counted_and_a_new_content_starts_again() -> None:
    history = History()
    for iteration in (1, 2, 3):
        history.note("a.py", iteration, "clean", "s1")
    assert history.files["a.py"]["tries"] == 3
    history.note("a.py", 4, "clean", "s2")
    assert history.files["a.py"] == {"iteration": 4, "outcome": "clean", "sha": "s2", "tries": 1}


def test_an_accepted_change_never_settles_a_file() -> None:
    history = History()
    history.note("a.py", 1, "accepted", "s1")
    history.note("a.py", 2, "accepted", "s1")
    assert not history.settled("a.py", "s1")
    assert not History().settled("a.py", "s1")


def test_a_file_just_failed_at_its_content_sinks_below_one_reviewed_long_ago() -> None:
    history = History()
    history.note("a.py", 9, "rejected", "sha-a.py")
    history.note("b.py", 1, "accepted", "old")
    best, rest = ranked(ISLANDS, history=history)
    order = [t.path for t in [best, *rest] if t]
    assert order == ["c.py", "b.py", "a.py"]  # never reviewed, long ago, just failed


# --- candidates and dependents --------------------------------------------------------------


SYMBOLS = {
    "app/core.py": fs("app/core.py", ("parse_it",)),
    "app/cli.py": fs("app/cli.py", ("main",), ("parse_it",)),
    "README.md": fs("README.md", language="text"),
    "logo.png": fs("logo.png", language="binary"),
    ".patchwright/review/notes.py": fs(".patchwright/review/notes.py"),
    "tests/test_core.py": fs("tests/test_core.py", ("test_parse",), ("parse_it",)),
    "tests/unit/test_cli.py": fs("tests/unit/test_cli.py", ("test_main",), ("main",)),
    "docs/conf.py": fs("docs/conf.py", ("setup",)),
}


def test_text_binary_and_the_reviews_own_files_are_never_candidates() -> None:
    assert candidates(SYMBOLS, [], []) == ["app/cli.py", "app/core.py", "docs/conf.py"]


def test_a_restriction_may_be_written_with_dot_slash_and_a_trailing_slash() -> None:
    assert candidates(SYMBOLS, ["./app/"], []) == ["app/cli.py", "app/core.py"]
    assert candidates(SYMBOLS, ["."], []) == candidates(SYMBOLS, [], [])


def test_a_restriction_is_a_folder_not_a_name_prefix() -> None:
    assert candidates(SYMBOLS, ["app/c"], []) == []


def test_naming_a_test_folder_makes_the_tests_inside_it_candidates() -> None:
    assert candidates(SYMBOLS, ["tests/unit"], []) == ["tests/unit/test_cli.py"]
    assert candidates(SYMBOLS, ["tests/test_core.py"], []) == ["tests/test_core.py"]


def test_dependents_are_the_other_files_using_a_name_the_given_files_define() -> None:
    assert dependents(SYMBOLS, ["app/core.py"]) == ["app/cli.py", "tests/test_core.py"]
    assert dependents(SYMBOLS, ["app/core.py", "app/cli.py"]) == [
        "tests/test_core.py",
        "tests/unit/test_cli.py",
    ]


def test_short_and_dunder_names_make_no_dependents() -> None:
    symbols = {
        "a.py": fs("a.py", ("go", "__init__")),
        "b.py": fs("b.py", (), ("go", "__init__")),
    }
    assert dependents(symbols, ["a.py"]) == []


# --- the edit format by kind ----------------------------------------------------------------


def test_a_proposal_is_about_its_most_serious_finding() -> None:
    found = [Finding("m.py", 1, s, "x", "m") for s in ("lazy", "lint", "types", "tests", "smoke")]
    assert finding_kind("bug", found) == "smoke"
    assert finding_kind("bug", found[:4]) == "tests"
    assert finding_kind("bug", found[:2]) == "lint"
    assert finding_kind("bug", []) == "clean"
    assert finding_kind("feature", found) == "feature"


def test_a_small_model_is_asked_for_one_function_only_for_tool_and_test_findings() -> None:
    assert {k for k, v in SMALL_MODEL_FORMATS.items() if v == "function"} == {
        "tests", "types", "lint"}  # fmt: skip
    assert set(SMALL_MODEL_FORMATS) == set(KINDS)
    for kind in ("smoke", "cascade", "clean", "feature"):
        assert (
            edit_format("auto", kind, small=True, lines=40, overrides={}, suspect=True) == "whole"
        )


def test_a_small_models_whole_file_becomes_blocks_past_the_line_limit() -> None:
    assert edit_format("auto", "smoke", small=True, lines=250, overrides={}) == "whole"
    assert edit_format("auto", "smoke", small=True, lines=251, overrides={}) == "diff"
    # a function is asked for however long its file is
    assert edit_format("auto", "lint", small=True, lines=5000, overrides={}, suspect=True) == (
        "function"
    )


def test_a_run_wide_format_decides_for_every_kind_and_an_override_for_its_kind() -> None:
    for kind in KINDS:
        assert edit_format("udiff", kind, small=True, lines=10, overrides={"tests": "whole"}) == (
            "udiff"
        )
    assert edit_format("auto", "feature", small=False, lines=10_000,
                       overrides={"feature": "whole"}) == "whole"  # fmt: skip


def test_an_unknown_run_wide_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown edit format"):
        edit_format("patch", "tests", small=False, lines=10, overrides={})


def test_overrides_are_trimmed_and_the_last_for_a_kind_wins() -> None:
    assert parse_overrides([" lint = whole ", "lint=udiff", "smoke=diff"]) == {
        "lint": "udiff", "smoke": "diff"}  # fmt: skip
    assert parse_overrides([]) == {}
    with pytest.raises(ValueError, match="the format is one of"):
        parse_overrides(["lint"])  # no format at all
