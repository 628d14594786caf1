"""The retry that changes strategy for a small model: once a whole-file attempt has failed,
ask for the one function the task's failing tests convict (``relations.suspects``).

Measured with the embedded 1.5B model: asked for whole files, it solves some bugs and copies
others back unchanged however often it is asked (greedy, the same prompt gives the same
reply); asked for the one function, with the failing test and what it said, it solves some of
those others — and misses some the whole-file prompt solved, which is why this is the
second way in, not the first (``benchmarks/tasks/README.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

from patchwright.agent.pipeline_solver import Refocus
from patchwright.agent.prompts import render
from patchwright.agent.relations.suspects import find_suspects
from patchwright.agent.task.prepare import Groundwork, required_tests
from patchwright.llm import Message, ModelInfo


def refocus_for(
    info: ModelInfo, edit_format: str, task: str, ground: Groundwork, editable: Sequence[str]
) -> Refocus | None:
    """The one-function conversation for ``task`` — for a small model whose edit format
    patchwright chooses, when a failing test convicts one function of an ``editable`` Python
    file — else None."""
    run = ground.baseline.tests
    if not info.small or edit_format != "auto" or run is None:
        return None
    failing = required_tests(ground.baseline, ground.criterion)
    for path in (p for p in editable if p.endswith(".py")):
        suspects = find_suspects(run, failing, path, ground.texts)
        if not suspects:
            continue
        suspect = suspects[0]
        prompt = render("fix_function", path=path, lang="python", task=task,
                        text=ground.texts[path].rstrip("\n"), suspect=suspect)  # fmt: skip
        messages: tuple[Message, ...] = ({"role": "system", "content": render("system", fmt="function")},
                    {"role": "user", "content": prompt})  # fmt: skip
        return Refocus(messages, suspect.name, path)
    return None
