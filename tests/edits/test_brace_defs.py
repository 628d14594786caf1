"""The definitions of Go, Rust and JavaScript files by name and line span, read past what
would fool a search for braces: strings, comments, raw strings, runes and lifetimes, template
literals, regular expressions, and signatures that span lines."""

from __future__ import annotations

from patchwright.edits.brace_defs import Span, definitions, family_of, span_text


def names(path: str, text: str) -> list[tuple[str, int, int, int]]:
    return [(s.name, s.start, s.stop, s.depth) for s in definitions(path, text)]


GO = """package calc

import "strings"

// Upper shouts.
// It never whispers.
func Upper(s string) string {
\tif s == "}" { return `{` }
\treturn strings.ToUpper(s) // }
}

func (c *Calc) Add(
\ta, b int,
) int {
\t/* } */ return a + b + int('}')
}

type Calc struct {
\ttotal int
}
"""


def test_go_functions_methods_and_types_span_their_bodies_and_doc_comments() -> None:
    assert names("calc.go", GO) == [
        ("Upper", 4, 10, 0), ("Add", 11, 16, 0), ("Calc", 17, 20, 0),
    ]  # fmt: skip
    upper = definitions("calc.go", GO)[0]
    assert span_text(GO, upper, leading=False).startswith("func Upper")
    assert span_text(GO, upper).startswith("// Upper shouts.")


RUST = """use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point { x: i32 }

impl<'a> Point {
    /// Its label.
    pub fn label(&self) -> &'static str { "}" }
    fn brace(&self) -> char { '}' }
    fn raw(&self) -> &str { r#"}"# }
}

fn main() {}
"""


def test_rust_methods_of_an_impl_block_are_read_past_lifetimes_chars_and_raw_strings() -> None:
    assert names("src/lib.rs", RUST) == [
        ("Point", 2, 5, 0), ("label", 7, 9, 1), ("brace", 9, 10, 1), ("raw", 10, 11, 1),
        ("main", 13, 14, 0),
    ]  # fmt: skip
    label = definitions("src/lib.rs", RUST)[1]
    assert label == Span("label", 7, 8, 9, 1, "    ")


JS = """const re = /[}]/g;

class Shop {
  constructor(x) { this.x = x; }
  static total(a, b) {
    const s = `sum ${a} }`;
    return a / b;
  }
}

export const half = (n) => {
  return n / 2;
};

function add(a, b) { return a + b; }

module.exports = { add };
"""


def test_javascript_classes_methods_arrow_functions_and_functions() -> None:
    assert names("src/shop.js", JS) == [
        ("Shop", 2, 9, 0), ("constructor", 3, 4, 1), ("total", 4, 8, 1), ("half", 10, 13, 0),
        ("add", 14, 15, 0),
    ]  # fmt: skip


def test_a_block_comment_with_a_blank_line_stays_whole_above_its_function() -> None:
    text = (
        "const x = 1;\n\n"
        "/* Return the longest one.\n  >>> longest([])\n\n  >>> longest(['a'])\n  'a'\n  */\n"
        "const longest = (strings) => {\n  return strings[0];\n}\n"
    )
    [span] = definitions("main.js", text)

    assert (span.name, span.start, span.head) == ("longest", 2, 8)
    assert span_text(text, span).startswith("/* Return the longest one.")


def test_other_languages_have_no_brace_definitions() -> None:
    assert family_of("a.py") is None and definitions("a.py", "def f():\n    pass\n") == []
    assert family_of("web/app.tsx") == "javascript"
