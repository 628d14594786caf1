"""The retry that changes strategy for a small model: once a whole-file attempt has failed,
ask for the one function the task's failing tests convict (``relations.suspects``).

Measured with the embedded 1.5B model: asked for whole files, it solves some bugs and copies
others back unchanged however often it is asked (greedy, the same prompt gives the same
reply); asked for the one function, with the failing test and what it said, it solves some of
those others — and misses some the whole-file prompt solved, which is why this is the
second way in, not the first (``benchmarks/tasks/README.md``). Go, Rust, JavaScript and
TypeScript functions are found by name (``relations.brace_suspects``): HumanEvalFix Go-16's
seven whole-file replies each returned the file unchanged.

A stub (``pass``, ``...``, ``raise NotImplementedError``) is no bug to find: an exercise is
repaired in the whole-file conversation, where the model sees its own attempt and what it
failed, as Aider does. Asked to "find the wrong line" of ``pass`` with one test shown, the
1.5B model wrote worse code than its first attempt (Exercism's acronym: 4 tests failing after
the first attempt, 9 after the refocused one, the same reply repeated after that).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from patchwright.agent.context import fence_lang
from patchwright.agent.pipeline_options import Refocus
from patchwright.agent.pointed_lines import brief
from patchwright.agent.prompts import render
from patchwright.agent.relations.brace_suspects import find_brace_suspects, is_brace_stub
from patchwright.agent.relations.helper_suspect import helper_suspect
from patchwright.agent.relations.pycode import FUNCTIONS, functions, is_stub, source
from patchwright.agent.relations.suspects import MAX_LINES, Suspect, find_suspects
from patchwright.agent.task.prepare import Groundwork, required_tests
from patchwright.agent.task.rewrite import rewrite_for
from patchwright.agent.value_origin import where_written
from patchwright.edits.brace_defs import family_of
from patchwright.llm import Message, ModelInfo
from patchwright.verify.tools import said

SAYS_LINES = 8  # of the baseline's failure report, for a function the task names
_NAMED = re.compile(r"`([A-Za-z_]\w*)(?:\(\))?`")


def refocus_for(
    info: ModelInfo, edit_format: str, task: str, ground: Groundwork, editable: Sequence[str]
) -> Refocus | None:
    """The one-function conversation for ``task`` — for a small model whose edit format
    patchwright chooses, when a failing test convicts one function of an ``editable`` file
    of Python, Go, Rust, JavaScript or TypeScript (or, with no test case to read, the task
    names one) — else None."""
    if not info.small or edit_format != "auto":
        return None
    found = _suspects(task, ground, [p for p in editable if p.endswith(".py")])
    if not found:
        found = _brace_suspects(task, ground, [p for p in editable if family_of(p)])
    if not found or _stub(found[0]):
        return None
    suspect = found[0]
    python = suspect.path.endswith(".py")
    text = ground.texts[suspect.path].rstrip("\n")
    origin = where_written(suspect.says or ground.failures, {suspect.path: text},
                           {p: ground.texts.get(p) for p in ground.protected})  # fmt: skip
    suspect = helper_suspect(suspect, origin, text) or suspect
    args = {"path": suspect.path, "lang": fence_lang(suspect.path), "task": task,
            "runner": "pytest" if python else "the test run",
            "doc": "docstring" if python else "comment", "origin": origin}  # fmt: skip
    system = render("system", fmt="function")
    messages: tuple[Message, ...] = (
        {"role": "system", "content": system},
        {"role": "user", "content": render("fix_function", text=text, suspect=suspect, **args)},
    )
    return Refocus(messages, suspect.name, suspect.path,
                   then=rewrite_for(suspect, text, system, args))  # fmt: skip


def _brace_suspects(task: str, ground: Groundwork, paths: Sequence[str]) -> list[Suspect]:
    """The Go, Rust or JavaScript function the task names, else those the failing tests
    call (``brace_suspects``)."""
    names = set(_NAMED.findall(task))
    run = ground.baseline.tests
    failing = required_tests(ground.baseline, ground.criterion)
    return [s for p in paths for s in find_brace_suspects(names, run, failing, p, ground.texts,
                                                          ground.failures)]  # fmt: skip


def _suspects(task: str, ground: Groundwork, paths: Sequence[str]) -> list[Suspect]:
    """The functions the failing tests convict; else (no test case to read: the run timed
    out, say) the one function of ``paths`` the task names in backquotes."""
    run = ground.baseline.tests
    failing = required_tests(ground.baseline, ground.criterion)
    convicted = (
        [s for p in paths for s in find_suspects(run, failing, p, ground.texts)] if run else []
    )
    if convicted or not ground.failures:
        return convicted
    names = set(_NAMED.findall(task))
    named = [(p, f) for p in paths for f in functions(ground.texts[p]) if f.name in names]
    if len(named) != 1:
        return []
    path, node = named[0]
    code = source(ground.texts[path], node)
    says = "\n".join(brief(_brief(ground.failures), SAYS_LINES))
    return [Suspect(node.name, code, says=says, path=path)] if code.count("\n") < MAX_LINES else []


def _stub(suspect: Suspect) -> bool:
    if not suspect.path.endswith(".py"):
        return is_brace_stub(suspect.code)
    try:
        node = ast.parse(suspect.code).body[0]
    except (SyntaxError, ValueError, IndexError):
        return False
    return isinstance(node, FUNCTIONS) and is_stub(node)


def _brief(report: str) -> list[str]:
    """The lines of a failure report that say something (not a runner's session header)."""
    return [x for x in said(report).strip().splitlines() if x.strip() and not x.startswith("===")]
