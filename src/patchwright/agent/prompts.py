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


def render(name: str, **values: Any) -> str:
    """Render template ``name`` (without ``.j2``) with ``values``; missing values are errors."""
    return _env().get_template(f"{name}.j2").render(**values).strip() + "\n"
