"""The file as the rewrite prompt shows it: the convicted function's body left out, its
comment (docstring) and signature kept (``agent/task/rewrite.py``)."""

from __future__ import annotations

import pytest

from patchwright.agent.task.rewrite import without_body

GO = """package main

// Sum adds.
func Sum(
\txs []int,
) int {
\ttotal := 0
\tfor _, x := range xs { total += x }
\treturn total
}

func One() int { return 1 }
"""

JS = """/** Sum of a and b. */
function sum({ a, b }) {
  if (a) {
    return a + b;
  }
  return b;
}
"""

RUST = """/// The largest.
fn largest<T>(xs: &[T]) -> T
where
    T: Copy + PartialOrd,
{
    xs[0]
}
"""

PY = '''def total(xs):
    """Sum of xs."""
    n = 0
    for x in xs:
        n += x
    return n


def bare(x):
    return x


def one(): return 1
'''


@pytest.mark.parametrize(
    ("path", "text", "name", "shown"),
    [
        ("main.go", GO, "Sum", "// Sum adds.\nfunc Sum(\n\txs []int,\n) int {\n\t// the body: to write\n}"),
        ("sum.js", JS, "sum", "function sum({ a, b }) {\n  // the body: to write\n}"),
        ("src/lib.rs", RUST, "largest", "    T: Copy + PartialOrd,\n{\n    // the body: to write\n}"),
        ("m.py", PY, "total", '    """Sum of xs."""\n    ...  # the body: to write\n\n\ndef bare'),
        ("m.py", PY, "bare", "def bare(x):\n    ...  # the body: to write\n"),
    ],
)  # fmt: skip
def test_the_body_is_left_out_and_the_rest_of_the_file_kept(
    path: str, text: str, name: str, shown: str
) -> None:
    out = without_body(path, text, name)
    assert out is not None and shown in out
    assert out.count("the body: to write") == 1
    assert text.splitlines()[-1] in out  # what follows the function stays


@pytest.mark.parametrize(
    ("path", "text", "name"),
    [("main.go", GO, "One"), ("m.py", PY, "one"), ("m.py", PY, "missing"),
     ("m.py", PY + PY, "total"), ("notes.txt", "text", "total")],
)  # fmt: skip
def test_a_function_without_a_body_of_its_own_lines_or_not_one_of_a_kind_is_not_rewritten(
    path: str, text: str, name: str
) -> None:
    assert without_body(path, text, name) is None
