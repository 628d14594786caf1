"""One short model answer outside the edit loop (summaries, memory); its usage is in the
router's ``model.reply``."""

from __future__ import annotations

import re

from patchwright.events import EventBus, ReviewModelFailed
from patchwright.llm import CapExceeded, Model, ModelError

_FENCE = re.compile(r"^\s*```[\w-]*\s*$", re.M)


def ask_text(
    model: Model, prompt: str, *, bus: EventBus, phase: str, max_tokens: int = 400
) -> str | None:
    """The model's answer to ``prompt`` with code fences stripped; None when the model fails
    (the caller falls back to a summary of its own). A reached cap is raised: it ends the
    loop, not just this answer."""
    try:
        reply = model.complete(
            [{"role": "user", "content": prompt}],
            max_tokens=max_tokens,
            temperature=0.0,
            phase=phase,
        )
    except CapExceeded:
        raise
    except ModelError as exc:
        bus.emit(ReviewModelFailed(phase=phase, error=str(exc)[:500]))
        return None
    text = _FENCE.sub("", reply.text).strip()
    return text or None
