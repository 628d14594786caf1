"""Definitions and references per language, from real source files."""

from __future__ import annotations

import pytest

from patchwright import grammars
from patchwright.index import pysymbols
from patchwright.index.model import FileSymbols
from patchwright.index.update import parse_file

# path -> (source, expected (qualname, kind) definitions, names that must be referenced)
CASES: dict[str, tuple[str, set[tuple[str, str]], set[str]]] = {
    "a.js": (
        "class Shape {\n  area(k) { return helper(k); }\n}\n"
        "function helper(n) { return n; }\nconst arrow = (x) => helper(x);\n",
        {
            ("Shape", "class"),
            ("Shape.area", "method"),
            ("helper", "function"),
            ("arrow", "function"),
        },
        {"helper"},
    ),
    "a.ts": (
        "interface Sized { size: number }\nclass Shape implements Sized {\n"
        "  area(k: number): number { return helper(k); }\n}\n"
        "function helper(n: number): number { return n; }\ntype Alias = string;\n",
        {
            ("Sized", "interface"),
            ("Shape", "class"),
            ("Shape.area", "method"),
            ("helper", "function"),
            ("Alias", "type"),
        },
        {"helper", "Sized"},
    ),
    "a.tsx": (
        "function App(props: {name: string}) { return <div>{helper(props.name)}</div>; }\n",
        {("App", "function")},
        {"helper"},
    ),
    "a.go": (
        "package main\ntype Shape struct{}\nfunc (s *Shape) Area(k int) int { return helper(k) }\n"
        "func helper(n int) int { return n }\n",
        {("Shape", "type"), ("Area", "method"), ("helper", "function")},
        {"helper", "Shape"},
    ),
    "a.rs": (
        "struct Shape {}\nimpl Shape {\n    fn area(&self, k: i32) -> i32 { helper(k) }\n}\n"
        "fn helper(n: i32) -> i32 { n }\ntrait T { fn t(&self); }\n",
        {("Shape", "struct"), ("Shape.area", "method"), ("helper", "function"), ("T", "trait")},
        {"helper"},
    ),
    "A.java": (
        "class Shape {\n  int area(int k) { return helper(k); }\n"
        "  static int helper(int n) { return n; }\n}\n",
        {("Shape", "class"), ("Shape.area", "method"), ("Shape.helper", "method")},
        {"helper"},
    ),
    "a.c": (
        "struct shape { int w; };\nstatic int helper(int n) { return n; }\n"
        "int area(struct shape *s) { return helper(s->w); }\ntypedef int myint;\n",
        {("shape", "struct"), ("helper", "function"), ("area", "function"), ("myint", "type")},
        {"helper"},
    ),
    "a.cpp": (
        "namespace geo {\nclass Shape {\n public:\n  int area(int k) { return helper(k); }\n};\n"
        "int helper(int n) { return n; }\n}\n",
        {
            ("geo", "namespace"),
            ("geo.Shape", "class"),
            ("geo.Shape.area", "method"),
            ("geo.helper", "function"),
        },
        {"helper"},
    ),
    "a.cs": (
        "namespace Geo {\n class Shape {\n  public int Area(int k) { return Helper(k); }\n"
        "  static int Helper(int n) { return n; }\n }\n}\n",
        {
            ("Geo", "namespace"),
            ("Geo.Shape", "class"),
            ("Geo.Shape.Area", "method"),
            ("Geo.Shape.Helper", "method"),
        },
        {"Helper"},
    ),
    "a.rb": (
        "module Geo\n  class Shape\n    def area(k)\n      helper(k)\n    end\n  end\nend\n"
        "def helper(n)\n  n\nend\n",
        {
            ("Geo", "module"),
            ("Geo.Shape", "class"),
            ("Geo.Shape.area", "method"),
            ("helper", "method"),
        },
        {"helper"},
    ),
    "a.php": (
        "<?php\nclass Shape {\n  public function area($k) { return helper($k); }\n}\n"
        "function helper($n) { return $n; }\n",
        {("Shape", "class"), ("Shape.area", "method"), ("helper", "function")},
        {"helper"},
    ),
    "a.sh": (
        'helper() {\n  echo "$1"\n}\nfunction area {\n  helper 3\n}\narea\n',
        {("helper", "function"), ("area", "function")},
        {"helper", "area"},
    ),
}


def _require_grammar(path: str) -> str:
    language = grammars.language_for_path(path)
    assert language is not None
    grammar, status = grammars.load(language)
    if grammar is None:
        pytest.skip(f"{language}: {status.source}")
    return language


@pytest.mark.parametrize("path", sorted(CASES))
def test_definitions_and_references_per_language(path: str) -> None:
    _require_grammar(path)
    source, expected_defs, expected_refs = CASES[path]
    fs = parse_file(path, source.encode())
    assert fs.error is None
    found = {(d.qualname, d.kind) for d in fs.definitions}
    assert expected_defs <= found, f"missing {expected_defs - found}"
    assert expected_refs <= set(fs.references)
    assert all(d.path == path and 1 <= d.line <= d.end_line for d in fs.definitions)


def test_definitions_carry_line_spans_and_signatures_without_bodies() -> None:
    _require_grammar("a.go")
    source = "package m\n\nfunc Sum(xs []int) int {\n\ttotal := 0\n\treturn total\n}\n"
    (d,) = parse_file("m.go", source.encode()).definitions
    assert (d.name, d.line, d.end_line) == ("Sum", 3, 6)
    assert d.signature == "func Sum(xs []int) int"


PY = '''import os
from pkg.util import slugify as slug

class Store:
    """Keeps things."""

    @property
    def size(self) -> int:
        return len(os.listdir("."))

    async def fetch(self, key: str, *, default=None) -> bytes:
        def inner():
            return slug(key)
        return inner()

def build() -> Store:
    return Store()
'''


def test_python_gets_module_qualified_names_kinds_and_imports() -> None:
    fs = parse_file("src/pkg/store.py", PY.encode())
    by_qual = {d.qualname: d for d in fs.definitions}
    assert set(by_qual) == {
        "pkg.store.Store",
        "pkg.store.Store.size",
        "pkg.store.Store.fetch",
        "pkg.store.Store.fetch.inner",
        "pkg.store.build",
    }
    assert by_qual["pkg.store.Store"].kind == "class"
    assert by_qual["pkg.store.Store.size"].kind == "method"
    assert by_qual["pkg.store.Store.fetch.inner"].kind == "function"
    assert by_qual["pkg.store.Store.size"].line == 8  # the def line, not the decorator
    assert by_qual["pkg.store.Store.fetch"].signature.startswith("async def fetch(self, key")
    assert fs.imports == ["os", "pkg.util.slugify"]
    assert {"Store", "slug", "listdir"} <= set(fs.references)


def test_python_falls_back_to_ast_when_tree_sitter_has_nothing() -> None:
    failed = FileSymbols("pkg/__init__.py", "python", error="grammar package missing")
    fs = pysymbols.enrich(failed, PY.encode())
    assert fs.error is None
    assert "pkg.build" in {d.qualname for d in fs.definitions}
    assert "Store" in fs.references


def test_python2_source_keeps_tree_sitter_symbols() -> None:
    _require_grammar("a.py")
    fs = parse_file("old.py", b"def legacy(x):\n    print 'hi', x\n    return helper(x)\n")
    assert [d.name for d in fs.definitions] == ["legacy"]
    assert "helper" in fs.references


def test_text_and_binary_files_have_no_symbols() -> None:
    assert parse_file("README.md", b"# Title\n").language == "text"
    assert parse_file("logo.py", b"\x89PNG\0\0\0").language == "binary"


def test_module_name_strips_source_roots_and_init() -> None:
    assert pysymbols.module_name("src/pkg/sub/__init__.py") == "pkg.sub"
    assert pysymbols.module_name("pkg/mod.py") == "pkg.mod"
    assert pysymbols.module_name("setup.py") == "setup"
