"""Specification of the index's outline of a repository: which definitions the symbol
extractor reports per language (and which look-alikes it does not), how the reference graph
weighs names, and how the repo map orders, nests and cuts definitions to a token budget.

The repo map functions are tested on hand-made definitions, so each rule is seen on its own.
"""

from __future__ import annotations

import pytest

from patchwright import grammars
from patchwright.index.graph import Ranking, edges, rank
from patchwright.index.model import MAX_REF_LINES, Definition, FileSymbols
from patchwright.index.repomap import (
    approx_tokens,
    fit,
    ordered_definitions,
    render,
    with_parents,
)
from patchwright.index.symbols import extract
from patchwright.index.update import parse_file


def need(path: str) -> str:
    language = grammars.language_for_path(path)
    assert language is not None
    if grammars.load(language)[0] is None:
        pytest.skip(f"no grammar for {language}")
    return language


def d(name: str, path: str, line: int, end: int | None = None, sig: str = "") -> Definition:
    return Definition(name, "function", path, line, end if end is not None else line, sig)


def names(fs: FileSymbols) -> set[str]:
    return {x.qualname or x.name for x in fs.definitions}


# --- symbol extraction ---------------------------------------------------------------------


def test_a_javascript_constant_is_not_a_definition_but_a_function_value_is() -> None:
    need("a.js")
    source = (
        "const LIMIT = 10;\nconst add = function (a, b) { return a + b; };\n"
        "let gen = function* () { yield LIMIT; };\nconst obj = { x: 1 };\n"
    )
    fs = parse_file("a.js", source.encode())
    assert names(fs) == {"add", "gen"}
    assert "LIMIT" in fs.references  # used, though not a definition


def test_a_c_struct_only_declared_is_not_a_definition_and_a_prototype_is_not_either() -> None:
    need("a.c")
    source = "struct node;\nint count(struct node *n);\nstruct node { int v; };\n"
    fs = parse_file("a.c", source.encode())
    assert [(x.name, x.kind, x.line) for x in fs.definitions] == [("node", "struct", 3)]


def test_a_python_signature_stops_at_its_body_and_drops_a_trailing_comment() -> None:
    need("a.py")
    source = "def area(w: int,\n         h: int) -> int:  # the area\n    return w * h\n"
    (definition,) = parse_file("geo.py", source.encode()).definitions
    assert definition.signature == "def area(w: int, h: int) -> int"
    assert (definition.line, definition.end_line) == (1, 3)


def test_a_go_method_is_named_without_its_receiver() -> None:
    need("a.go")
    source = "package m\n\ntype T struct{}\n\nfunc (t *T) Run() error { return nil }\n"
    run = next(x for x in parse_file("m.go", source.encode()).definitions if x.name == "Run")
    assert run.kind == "method" and run.signature == "func (t *T) Run() error"


def test_a_name_used_on_many_lines_keeps_only_a_few_of_them() -> None:
    need("a.py")
    source = "def f(x):\n    return x\n\n" + "".join(f"y{i} = f({i})\n" for i in range(20))
    fs = parse_file("m.py", source.encode())
    kept = fs.references["f"]
    assert len(kept) == MAX_REF_LINES and len(set(kept)) == MAX_REF_LINES
    assert set(kept) <= set(range(4, 24))  # lines that really use it (not the def line)


def test_a_definitions_own_name_is_not_a_reference_to_it() -> None:
    need("a.py")
    fs = parse_file("m.py", b"def lonely():\n    return 1\n")
    assert "lonely" not in fs.references


def test_code_with_a_syntax_error_keeps_the_definitions_that_parsed() -> None:
    need("a.rs")
    source = "fn good() -> i32 { 1 }\n\nfn broken( -> {\n\nfn also_good() {}\n"
    fs = parse_file("lib.rs", source.encode())
    assert fs.error is None
    assert {"good", "also_good"} <= names(fs)


def test_a_language_without_a_grammar_is_an_error_not_an_empty_success() -> None:
    fs = extract("x.cob", "cobol", b"IDENTIFICATION DIVISION.\n")
    assert fs.definitions == [] and fs.error


def test_file_symbols_survive_their_storage_form_unchanged() -> None:
    fs = FileSymbols(
        "src/m.py",
        "python",
        [Definition("f", "function", "src/m.py", 2, 5, "def f()", "m.f")],
        {"g": [3, 4]},
        ["os"],
        None,
    )
    assert FileSymbols.from_json(fs.to_json()) == fs
    assert FileSymbols.from_json({"path": "a", "language": "text"}) == FileSymbols("a", "text")


# --- the reference graph -------------------------------------------------------------------


def uses(path: str, defines: list[str] = (), refs: dict[str, int] | None = None) -> FileSymbols:  # type: ignore[assignment]
    defs = [d(n, path, i + 1) for i, n in enumerate(defines)]
    return FileSymbols(path, "python", defs, {k: list(range(n)) for k, n in (refs or {}).items()})


def test_a_file_using_its_own_definitions_makes_no_edge() -> None:
    symbols = {"a.py": uses("a.py", ["parse_config"], {"parse_config": 3})}
    assert edges(symbols, set()) == []


def test_a_name_defined_in_two_files_links_its_user_to_both() -> None:
    symbols = {
        "a.py": uses("a.py", ["render_page"]),
        "b.py": uses("b.py", ["render_page"]),
        "c.py": uses("c.py", [], {"render_page": 1}),
    }
    assert sorted((src, dst) for src, dst, _, _ in edges(symbols, set())) == [
        ("c.py", "a.py"),
        ("c.py", "b.py"),
    ]


def test_edges_favour_specific_and_mentioned_names_over_private_and_short_ones() -> None:
    symbols = {
        "lib.py": uses("lib.py", ["parse_config", "_helper", "ok", "compute"]),
        "app.py": uses("app.py", [], {"parse_config": 1, "_helper": 1, "ok": 1, "compute": 1}),
    }
    weight = {ident: w for _, _, ident, w in edges(symbols, set())}
    assert weight["parse_config"] > weight["compute"] > weight["_helper"] > weight["ok"]
    boosted = {ident: w for _, _, ident, w in edges(symbols, {"compute"})}
    assert boosted["compute"] == pytest.approx(10 * weight["compute"])


def test_more_uses_weigh_more_but_less_than_in_proportion() -> None:
    symbols = {
        "lib.py": uses("lib.py", ["parse_config"]),
        "once.py": uses("once.py", [], {"parse_config": 1}),
        "often.py": uses("often.py", [], {"parse_config": 4}),
    }
    weight = {src: w for src, _, _, w in edges(symbols, set())}
    assert weight["often.py"] == pytest.approx(2 * weight["once.py"])


def test_the_most_used_file_ranks_first_and_focus_moves_the_rank_to_a_leaf() -> None:
    symbols = {
        "core.py": uses("core.py", ["load_settings"]),
        "a.py": uses("a.py", ["run_alpha"], {"load_settings": 1}),
        "b.py": uses("b.py", ["run_beta"], {"load_settings": 1}),
        "leaf.py": uses("leaf.py", ["unused_thing"]),
    }
    plain = rank(symbols).files
    assert max(plain, key=plain.__getitem__) == "core.py"
    focused = rank(symbols, focus_files=["leaf.py"]).files
    assert focused["leaf.py"] > plain["leaf.py"]
    assert max(focused, key=focused.__getitem__) == "leaf.py"
    assert sum(focused.values()) == pytest.approx(1.0)


def test_a_definition_nobody_references_still_gets_a_small_rank() -> None:
    symbols = {"a.py": uses("a.py", ["orphan_func"]), "b.py": uses("b.py", ["other_func"])}
    ranking = rank(symbols)
    assert 0 < ranking.definitions[("a.py", "orphan_func")] < ranking.files["a.py"]


# --- the repo map ----------------------------------------------------------------------------


def test_the_outline_groups_by_file_in_path_order_and_nests_by_span() -> None:
    defs = [
        d("helper", "z.py", 1, 2, "def helper()"),
        Definition("Cart", "class", "a.py", 1, 9, "class Cart"),
        d("add", "a.py", 2, 4, "def add(self, item)"),
        d("inner", "a.py", 3, 4, "def inner()"),
        d("total", "a.py", 6, 6, ""),
    ]
    assert render(defs) == (
        "a.py:\n"
        "  1: class Cart …\n"
        "    2: def add(self, item) …\n"
        "      3: def inner() …\n"
        "    6: function total\n"
        "z.py:\n"
        "  1: def helper() …\n"
    )
    assert render([]) == ""


def test_a_sibling_after_a_nested_definition_returns_to_its_own_depth() -> None:
    defs = [d("f", "m.py", 1, 3, "def f()"), d("g", "m.py", 2, 3, "def g()"),
            d("h", "m.py", 5, 6, "def h()")]  # fmt: skip
    assert render(defs).splitlines()[1:] == ["  1: def f() …", "    2: def g() …", "  5: def h() …"]


def test_definitions_the_focus_names_come_before_focus_files_before_rank() -> None:
    symbols = {
        "hub.py": FileSymbols("hub.py", "python", [d("popular", "hub.py", 1)]),
        "mine.py": FileSymbols("mine.py", "python", [d("local", "mine.py", 1)]),
        "far.py": FileSymbols("far.py", "python", [d("asked_for", "far.py", 1)]),
    }
    ranking = Ranking(
        files={"hub.py": 0.8, "mine.py": 0.1, "far.py": 0.1},
        definitions={("hub.py", "popular"): 0.9, ("mine.py", "local"): 0.01,
                     ("far.py", "asked_for"): 0.01},
    )  # fmt: skip
    plain = ordered_definitions(symbols, ranking)
    assert [x.name for x in plain] == ["popular", "asked_for", "local"]  # ties: by path
    focused = ordered_definitions(symbols, ranking, ["mine.py"], ["asked_for"])
    assert [x.name for x in focused] == ["asked_for", "local", "popular"]


def test_a_chosen_method_brings_its_class_along_and_nothing_else() -> None:
    cls = Definition("Cart", "class", "a.py", 1, 20, "class Cart")
    method = d("add", "a.py", 5, 8, "def add(self)")
    other = d("free", "a.py", 22, 24, "def free()")
    symbols = {"a.py": FileSymbols("a.py", "python", [cls, method, other])}
    assert set(with_parents([method], symbols)) == {cls, method}
    assert with_parents([other], symbols) == [other]


def test_the_map_keeps_the_longest_prefix_that_fits_the_budget() -> None:
    ordered = [d(f"function_number_{i}", "m.py", i, i, f"def function_number_{i}()") for i in
               range(1, 41)]  # fmt: skip
    text = fit(ordered, 100)
    shown = text.count("def function_number_")
    assert approx_tokens(text) <= 100 < approx_tokens(render(ordered[: shown + 1]))
    assert text == render(ordered[:shown])  # a prefix, in rank order: the first ones
    assert fit(ordered, 10_000) == render(ordered)
    assert fit(ordered, 0) == "" and fit([], 100) == ""


def test_a_budget_too_small_for_one_definition_gives_an_empty_map() -> None:
    ordered = [d("x" * 200, "m.py", 1, 1, "def " + "x" * 200 + "()")]
    assert fit(ordered, 10) == ""


def test_with_symbols_the_budget_pays_for_the_parents_too() -> None:
    cls = Definition("Service", "class", "s.py", 1, 50, "class Service")
    methods = [d(f"handler_{i}", "s.py", 2 + 2 * i, 3 + 2 * i, f"def handler_{i}(self)")
               for i in range(10)]  # fmt: skip
    symbols = {"s.py": FileSymbols("s.py", "python", [cls, *methods])}
    text = fit(methods, 40, symbols=symbols)
    assert text.splitlines()[1] == "  1: class Service …"
    assert approx_tokens(text) <= 40
    assert all(line.startswith("    ") for line in text.splitlines()[2:])


def test_a_custom_token_counter_decides_what_fits() -> None:
    ordered = [d(f"f{i}", "m.py", i, i, f"def f{i}()") for i in range(1, 11)]
    lines = fit(ordered, 4, count_tokens=lambda text: len(text.splitlines()))
    assert lines.splitlines() == ["m.py:", "  1: def f1()", "  2: def f2()", "  3: def f3()"]
