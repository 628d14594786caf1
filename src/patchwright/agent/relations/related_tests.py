"""Which baseline-failing tests a task is about: the targets its definition of done requires.

A failing test is related to the task when the task names it (its file, or its name), when
it tests a function or class the task names (``test_add`` for "add() is wrong", or an
assertion that calls ``add``), or when it reaches the code the task points at: its traceback
runs through a file the task names or that defines a symbol the task names (in Python, Go,
JavaScript, TypeScript or Rust source), or its file exercises that file — imports it, sits in
its Go package, loads it by a relative path, uses its Rust items, or is that file's own
``#[cfg(test)]`` module (:mod:`.test_links`). Everything else failing at baseline is
unrelated: reported, never silently required.

Names compare as a person reads them (``word_forms``): "Checkout totals" names ``checkout``,
``checkout_total`` and ``test_checkout_totals``. A test is also named when every meaningful
word of its name is in the task; the words in ``_NOISE`` never count, so that common words do
not make every failing test a target.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from patchwright.agent.relations.code_defs import definitions
from patchwright.agent.relations.test_links import CodeLinks
from patchwright.agent.relations.traceback_refs import referenced_files
from patchwright.agent.relations.word_forms import contains, parts, stem
from patchwright.agent.relevance import mentioned_files
from patchwright.index.locate import is_test_path
from patchwright.verify.testrun import TestCase, TestRun

__all__ = ["is_test_path", "related_tests", "task_pointers", "traced_files"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CODE_MARKED = re.compile(r"`([A-Za-z_][\w.]*)`|\b([A-Za-z_]\w*)\s*\(")
_FILE_TOKEN = re.compile(r"[\w./-]+\.[A-Za-z]{1,5}\b")
_COMMON = frozenset(
    """a an and as at be by do for if in is it no not of on or so the to up we test tests
    fix bug main self cls none true false return function class method file""".split()
)
_PROSE = frozenset(  # words of a sentence that name nothing in code (code may still mark them)
    """all any are but can could did does from has have its more must now off one only out
    should some than that then this too very was were what when which while who why will with
    would wrong right work works broken error errors issue case cases thing""".split()
)
_NOISE = _COMMON | _PROSE
_NOISE_STEMS = frozenset(stem(w) for w in _NOISE)


@dataclass(frozen=True)
class TaskPointers:
    """What the task points at: identifiers of code and the source files behind them."""

    identifiers: frozenset[str]
    files: frozenset[str]  # non-test source files named in the task or defining a named symbol
    words: frozenset[str] = frozenset()  # the task's meaningful words, stemmed (``stem``)


def task_pointers(task: str, texts: Mapping[str, str]) -> TaskPointers:
    """Identifiers the task names as code (marked with backticks or a call, or defined in the
    repository's source, in any case or form) and the non-test files that the task names or
    that define them."""
    named_files = [p for p in mentioned_files(task, sorted(texts)) if not is_test_path(p)]
    prose = _FILE_TOKEN.sub(" ", task)  # "main.py" names a file, not a symbol "main"
    marked = {a or b for a, b in _CODE_MARKED.findall(prose)}
    marked = {m.rsplit(".", 1)[-1] for m in marked}
    tokens = _IDENT.findall(prose)
    words = {w for w in tokens if len(w) > 1 and w.lower() not in _NOISE}
    defined = definitions(texts)
    idents = {w for w in words if w in defined} | {m for m in marked if m.lower() not in _COMMON}
    idents |= _loosely_named(tokens, defined)
    files = set(named_files)
    for ident in idents:
        files.update(defined.get(ident, ()))
    stems = {p for w in words for p in parts(w)} - _NOISE_STEMS
    return TaskPointers(frozenset(idents), frozenset(files), frozenset(stems))


def _loosely_named(tokens: Sequence[str], defined: Mapping[str, set[str]]) -> set[str]:
    """Defined names that one to three consecutive task words spell in another case or form:
    "Checkout" → ``checkout``, "checkout totals" → ``checkout_total``, ``CheckoutTotal``."""
    by_words: dict[tuple[str, ...], set[str]] = {}
    for name in defined:
        if len(name) > 1 and name.lower() not in _NOISE:
            by_words.setdefault(parts(name), set()).add(name)
    found: set[str] = set()
    for size in (1, 2, 3):
        for i in range(len(tokens) - size + 1):
            window = tokens[i : i + size]
            if any(len(w) < 2 or w.lower() in _NOISE for w in window):
                continue
            found |= by_words.get(parts("_".join(window)), set())
    return found


def _name_words(test_id: str) -> list[tuple[str, ...]]:
    """The stemmed words of each part of a test's name, less ``test``: ``tests/t.py::
    TestCalc::test_add_two`` → [("calc",), ("add", "two")]."""
    out: list[tuple[str, ...]] = []
    for part in test_id.split("::")[1:]:
        base = re.sub(r"^(?:test_?|Test)", "", part.split("[")[0])
        if words := parts(base):
            out.append(words)
    return out


def _named_by(test_id: str, ptr: TaskPointers) -> bool:
    """The test's name holds an identifier the task names (``test_add_two`` for ``add``), or
    every meaningful word of it is in the task (``test_checkout_totals`` for "Checkout totals
    are too low")."""
    idents = [parts(i) for i in ptr.identifiers]
    for words in _name_words(test_id):
        if any(contains(words, ident) for ident in idents):
            return True
        meaningful = {w for w in words if len(w) > 2 and w not in _NOISE_STEMS}
        if meaningful and meaningful <= ptr.words:
            return True
    return False


def _mentions_word(text: str, words: Iterable[str]) -> bool:
    return any(re.search(rf"\b{re.escape(w)}\b", text) for w in words)


def _related(
    test_id: str, case: TestCase | None, task: str, ptr: TaskPointers, links: CodeLinks
) -> bool:
    path = case.path if case else test_id.split("::")[0]
    name = test_id.split("::")[-1].split("[")[0]
    if path and (
        path in task or re.search(rf"(?<![\w/.-]){re.escape(PurePosixPath(path).name)}\b", task)
    ):
        return True
    if name and re.search(rf"\b{re.escape(name)}\b", task):
        return True
    if _named_by(test_id, ptr):
        return True
    detail = "\n".join(x for x in (case.message, case.detail) if x) if case else ""
    if detail and _mentions_word(detail, ptr.identifiers):
        return True
    if detail and {p for p, _ in referenced_files(detail, sorted(ptr.files))}:
        return True
    return bool(path and ptr.files & set(links.code_under_test(path)))


def related_tests(run: TestRun, task: str, texts: Mapping[str, str]) -> set[str]:
    """The baseline-failing tests of ``run`` that the task is about (see the module doc)."""
    ptr = task_pointers(task, texts)
    links = CodeLinks(texts)
    return {t for t in run.failing if _related(t, run.cases.get(t), task, ptr, links)}


def traced_files(run: TestRun, paths: Iterable[str]) -> dict[str, frozenset[str]]:
    """For each failing test, the repository files its traceback runs through."""
    known = sorted(paths)
    out: dict[str, frozenset[str]] = {}
    for test_id in run.failing:
        case = run.cases.get(test_id)
        detail = case.detail if case else ""
        files = frozenset(p for p, _ in referenced_files(detail, known)) if detail else frozenset()
        if files:
            out[test_id] = files
    return out
