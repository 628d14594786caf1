"""Helpers the runners share: reading a command line, making report paths relative, and
keeping ids unique."""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path

from patchwright.verify.testmodel import TestCase, TestRun

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_OPERATORS = frozenset(";&|()<>")
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def simple_words(cmd: str) -> list[str] | None:
    """The words of ``cmd`` when it is one simple command (no ``;``, ``&&``, ``|``,
    redirection or subshell), less what only wraps it: leading ``NAME=value`` words,
    ``env``, ``nice`` and ``timeout [options] DURATION``; None otherwise."""
    try:
        lexer = shlex.shlex(cmd, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    if any(w and set(w) <= _OPERATORS for w in words):
        return None
    return _unwrapped(words) or None


def _unwrapped(words: list[str]) -> list[str]:
    while words:
        head = os.path.basename(words[0])
        if _ASSIGNMENT.match(words[0]) or head in ("env", "nice", "time"):
            words = words[1:]
        elif head == "timeout":
            rest = words[1:]
            while rest and rest[0].startswith("-"):
                takes_value = rest[0] in ("-s", "-k", "--signal", "--kill-after")
                rest = rest[2:] if takes_value else rest[1:]
            words = rest[1:]  # the duration
        else:
            break
    return words


def relative(raw: str, root: Path) -> str | None:
    """``raw`` (an absolute path, a ``file://`` URL, or a path relative to ``root``) as a path
    relative to ``root``; None when it lies outside."""
    raw = raw.removeprefix("file://")
    path = Path(raw) if os.path.isabs(raw) else root / raw
    for base in dict.fromkeys((root, root.resolve())):
        for candidate in dict.fromkeys((path, Path(os.path.realpath(path)))):
            try:
                rel = candidate.relative_to(base)
            except ValueError:
                continue
            text = rel.as_posix()
            return "" if text == "." else text
    return None


def add_case(run: TestRun, case: TestCase) -> None:
    """Add ``case``; a second test of the same id becomes ``id #2`` (and so on)."""
    test_id, n = case.id, 1
    while test_id in run.cases:
        n += 1
        test_id = f"{case.id} #{n}"
    if test_id != case.id:
        case = dataclasses.replace(case, id=test_id)
    run.cases[test_id] = case


def clip(lines: Iterable[str], count: int = 12, chars: int = 1500) -> str:
    """The first ``count`` non-empty lines, at most ``chars`` characters."""
    kept = [line.rstrip() for line in lines if line.strip()][:count]
    return "\n".join(kept)[:chars]


PRINTED_SHOWN = 3
PRINTED_HEAD = "the test printed before it failed"


def printed_apart(lines: list[str], begins: Callable[[str], bool]) -> tuple[list[str], list[str]]:
    """(report, printed): a failing test's section split where its failure report
    ``begins`` (a panic, a ``file.go:N:`` line). What the test printed before that comes
    first in the raw output — twenty ``println!`` lines pushed the panic of HumanEvalFix
    Rust-50 out of the detail's first lines; the report leads, the prints follow it."""
    start = next((i for i, line in enumerate(lines) if begins(line)), 0)
    return lines[start:], [x for x in lines[:start] if x.strip()]


def printed_note(printed: list[str]) -> list[str]:
    """The last lines the test printed before it failed, under a line that says so."""
    if not printed:
        return []
    shown = printed[-PRINTED_SHOWN:]
    some = f"the last {len(shown)} of {len(printed)} lines" if len(printed) > len(shown) else ""
    return [f"{PRINTED_HEAD}{f' ({some})' if some else ''}:", *shown]


def joined_detail(detail: str, more: str) -> str:
    """``more`` (values a rerun found) added to a failure's detail, ahead of the prints."""
    at = detail.find(f"\n{PRINTED_HEAD}")
    return f"{detail}\n{more}" if at < 0 else f"{detail[:at]}\n{more}{detail[at:]}"
