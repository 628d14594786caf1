"""What a failed Rust ``assert!(a == b)`` compared.

``assert!(intersperse(vec![5, 6, 3, 2], 8) == vec![5, 8, 6, 8, 3, 8, 2])`` fails with the
expression alone: "assertion failed: intersperse(…) == vec![…]", no value. pytest would show
``[5, 8, 6, 8, 3, 8, 2, 8]``, and with it a small model sees the trailing delimiter at once;
without it, it guesses (HumanEvalFix Rust-5: four guesses, none right). 74 of HumanEvalFix's
123 Rust tasks assert this way.

So for a few such failures the test runs once more in a scratch copy of the crate
(``copy_tree``, once per run; the repository is never touched), that one assertion rewritten
as ``assert_eq!(a, b)``, in its own target folder kept for the run; the ``left``/``right`` it
prints join the case's detail. An assertion that goes on over several lines, as rustfmt lays
out a long one, is rewritten on its first line, the lines below left blank to keep their
numbers. One that does not split cleanly at one top-level ``==``, or a copy that does not
build, adds nothing.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

from patchwright.sandbox import Sandbox
from patchwright.verify.runners.common import joined_detail
from patchwright.verify.runners.value_diff import (
    char_end,
    sides,
    sides_line,
    statement,
    string_end,
)
from patchwright.verify.testmodel import TestRun
from patchwright.verify.tools import TooLarge, copy_tree, scratch_dir

MAX_TESTS = 3
MAX_FILES = 2000
STATEMENT = 12  # lines at most of an assertion that goes on past its line
_ASSERT = "assertion failed: "
_PANICKED = re.compile(r"panicked at (\S+?):(\d+)")


def as_assert_eq(line: str) -> str | None:
    """``assert!(A == B)`` on ``line`` as ``assert_eq!(A, B)``; None when the line holds no
    such assertion (a message argument, ``!=``, no ``==`` at the top level)."""
    found = re.search(r"\bassert!\(", line)
    if found is None:
        return None
    start = i = found.end()
    depth, eq = 0, -1
    while i < len(line):
        c = line[i]
        if c == '"':
            i = string_end(line, i)
            continue
        if c == "'" and (end := char_end(line, i)) > i:
            i = end
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and (c == "," or line.startswith("!=", i)):
            return None
        elif depth == 0 and line.startswith("==", i):
            if eq >= 0:
                return None
            eq = i
            i += 1
        i += 1
    if eq < 0 or i >= len(line):
        return None
    left, right = line[start:eq].strip(), line[eq + 2 : i].strip()
    return f"{line[: found.start()]}assert_eq!({left}, {right}){line[i + 1 :]}"


def add_values(run: TestRun, root: Path, sandbox: Sandbox, cmd: str, timeout: float) -> None:
    """Add what each of the first few plain ``assert!(a == b)`` failures compared to its
    detail (see the module docstring)."""
    cases = [
        c
        for c in run.cases.values()
        if c.outcome == "failed"
        and c.message.startswith(_ASSERT)
        and "left:" not in c.detail
        and not c.id.endswith("(doc test)")  # its line is in a comment; its name no filter
    ][:MAX_TESTS]
    if not cases:
        return
    base = scratch_dir(sandbox, "cargo-values")
    copy = base / "crate"
    try:
        copy_tree(root, copy, max_files=MAX_FILES)
    except TooLarge:
        return
    for case in cases:
        where = _PANICKED.search(case.detail)
        if where is None:
            continue
        path, number = where.group(1), int(where.group(2))
        try:
            text = (root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        lines = text.splitlines(keepends=True)
        taken, said = (
            statement(lines, number - 1, STATEMENT, '"') if 0 < number <= len(lines) else (0, "")
        )
        rewritten = as_assert_eq(said)
        if rewritten is None:
            continue
        lines[number - 1 : number - 1 + taken] = [rewritten + "\n", *["\n"] * (taken - 1)]
        (copy / path).write_text("".join(lines), encoding="utf-8")
        name = case.id.split("::", 1)[1] if "::" in case.id else case.id
        argv = ["cargo", "test", *(["--offline"] if "--offline" in cmd else []), "--", name]
        env = {"CARGO_TARGET_DIR": str(base / "target")}
        result = sandbox.run(argv, cwd=copy, timeout=min(timeout, 180), extra_env=env)
        (copy / path).write_text(text, encoding="utf-8")  # the next case's line, alone
        printed = result.stdout + "\n" + result.stderr
        found = sides(printed)
        if "left" in found and "right" in found:
            seen = f"left: {found['left'][:400]}\nright: {found['right'][:400]}"
            if part := sides_line(printed):
                seen += f"\n{part}"
            run.cases[case.id] = replace(case, detail=joined_detail(case.detail, seen))
    shutil.rmtree(copy, ignore_errors=True)
