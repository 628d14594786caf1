"""The edit prompt in the language of the code: its worked example (the path, the fence's
language tag, the code) in Python, JavaScript, TypeScript, Go or Rust — whichever the files
the model may edit are mostly written in — so that a small model answering about ``calc.go``
copies a ```` ```go ```` block of Go, not a Python one. The templates reach them as
``examples[lang]`` (a Jinja global; ``lang`` defaults to Python where a caller gives none)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from patchwright.index.locate import is_test_path

__all__ = ["EXAMPLES", "Example", "edit_language"]


@dataclass(frozen=True)
class Example:
    """Fixing ``sub`` (it adds) in one language: the file's ``head`` (what precedes the
    function), the function ``before`` and ``after`` the fix."""

    path: str
    fence: str  # the fence's language tag
    before: str
    after: str
    head: str = ""

    @property
    def whole(self) -> str:
        """The whole file after the fix."""
        return self.head + self.after

    @property
    def udiff(self) -> str:
        """The fix as one unified-diff hunk (no file header)."""
        old, new = self.before.splitlines(), self.after.splitlines()
        start = self.head.count("\n") + 1
        lines = [f"@@ -{start},{len(old)} +{start},{len(new)} @@"]
        for a, b in zip(old, new, strict=True):  # the examples change lines, one for one
            lines += [f" {a}"] if a == b else [f"-{a}", f"+{b}"]
        return "\n".join(lines)


EXAMPLES: dict[str, Example] = {
    "python": Example(
        "calc/ops.py",
        "python",
        "def sub(a, b):\n    return a + b",
        "def sub(a, b):\n    return a - b",
    ),
    "javascript": Example(
        "src/ops.js",
        "javascript",
        "function sub(a, b) {\n  return a + b;\n}",
        "function sub(a, b) {\n  return a - b;\n}",
    ),
    "typescript": Example(
        "src/ops.ts",
        "typescript",
        "export function sub(a: number, b: number): number {\n  return a + b;\n}",
        "export function sub(a: number, b: number): number {\n  return a - b;\n}",
    ),
    "go": Example(
        "calc/ops.go",
        "go",
        "func Sub(a, b int) int {\n\treturn a + b\n}",
        "func Sub(a, b int) int {\n\treturn a - b\n}",
        head="package calc\n\n",
    ),
    "rust": Example(
        "src/ops.rs",
        "rust",
        "pub fn sub(a: i32, b: i32) -> i32 {\n    a + b\n}",
        "pub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}",
    ),
}
_BY_SUFFIX = {".py": "python", ".go": "go", ".rs": "rust"}
_BY_SUFFIX.update(dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), "javascript"))
_BY_SUFFIX.update(dict.fromkeys((".ts", ".tsx", ".mts", ".cts"), "typescript"))


def edit_language(paths: Iterable[str]) -> str:
    """The language of the example: the one most of ``paths`` (the files the model may edit,
    tests counting only when nothing else does) are written in; Python when none is known."""
    known = [
        (p, _BY_SUFFIX[s]) for p in paths if (s := PurePosixPath(p).suffix.lower()) in _BY_SUFFIX
    ]
    code = [lang for p, lang in known if not is_test_path(p)] or [lang for _, lang in known]
    if not code:
        return "python"
    counts = Counter(code)
    return max(counts, key=lambda lang: (counts[lang], -code.index(lang)))
