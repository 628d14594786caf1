"""Prompt rendering from the Jinja templates shipped in ``patchwright/agent/templates``."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from patchwright.agent.lang_examples import EXAMPLES


@cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("patchwright.agent", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )
    env.globals["examples"] = EXAMPLES  # the edit prompt's worked example, by language
    return env


RESTATED_CHARS = 600


def restated(task: str) -> str:
    """The task as a repair prompt repeats it: whole when short; a long one (an issue or an
    exercise's instructions pasted in) by its first paragraph, pointing back to the first
    request, which is always sent — repeating ~2,000 tokens of instructions on every repair
    buried the failures a small model had to read, and cost as much to prefill."""
    text = task.strip()
    if len(text) <= RESTATED_CHARS:
        return text
    first = text.split("\n\n", 1)[0].strip()
    if len(first) > RESTATED_CHARS:
        first = first[:RESTATED_CHARS].rsplit(" ", 1)[0] + " …"
    return f"{first}\n(the whole task is in the first request above)"


def render(name: str, **values: Any) -> str:
    """Render template ``name`` (without ``.j2``) with ``values``; missing values are errors."""
    return _env().get_template(f"{name}.j2").render(**values).strip() + "\n"
