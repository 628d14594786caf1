"""One short model answer outside the edit loop (summaries, memory), with its usage reported."""

from __future__ import annotations

import re
import time

from patchwright.events import EventBus
from patchwright.llm import CapExceeded, Model, ModelError

_FENCE = re.compile(r"^\s*```[\w-]*\s*$", re.M)


def ask_text(
    model: Model, prompt: str, *, bus: EventBus, phase: str, max_tokens: int = 400
) -> str | None:
    """The model's answer to ``prompt`` with code fences stripped; None when the model fails
    (the caller falls back to a summary of its own). A reached cap is raised: it ends the
    loop, not just this answer."""
    started = time.monotonic()
    bus.emit("model.request", phase=phase, messages=1)
    try:
        reply = model.complete(
            [{"role": "user", "content": prompt}], max_tokens=max_tokens, temperature=0.0
        )
    except CapExceeded:
        raise
    except ModelError as exc:
        bus.emit("review.model_failed", phase=phase, error=str(exc)[:500])
        return None
    bus.emit(
        "model.reply",
        phase=phase,
        prompt_tokens=reply.usage.prompt_tokens,
        completion_tokens=reply.usage.completion_tokens,
        cost=reply.cost,
        seconds=round(time.monotonic() - started, 3),
    )
    text = _FENCE.sub("", reply.text).strip()
    return text or None
