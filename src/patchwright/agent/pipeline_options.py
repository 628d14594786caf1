"""What the pipeline's solver is asked to do (:class:`SolveOptions`) and its second way in
(:class:`Refocus`): plain values, set by the strategies that wire it (``agent/task``, the
review)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from patchwright.llm import Message

# The most tokens a reply may use: a whole file and a new one, bounded so that a small model
# repeating itself does not generate for minutes (agent/task/pipeline_strategy.py, runaway.py).
REPLY_TOKENS = 2048
Way = Literal["fix", "rewrite"]  # how a refocused conversation asks for the function


@dataclass(frozen=True)
class Refocus:
    """Another way in, for the iterations after the first fails: a fresh conversation that
    asks for one definition (``path``'s ``definition``) corrected."""

    messages: tuple[Message, ...]
    definition: str
    path: str
    reply_tokens: int = 1024
    way: Way = "fix"  # or "rewrite": the function written anew, its body not shown
    then: Refocus | None = None  # the way in after this one fails too


@dataclass
class SolveOptions:
    task: str
    fmt: str
    max_iter: int
    reply_tokens: int = 2048
    candidates: int = 1
    free_retries: int = 3  # replies answered without spending an iteration, per run
    sample_temperature: float = 0.7
    done: str = ""  # what "done" means, repeated in every repair prompt
    failures: str = ""  # how the criterion fails before any change
    required: tuple[str, ...] = ()  # the failing tests the change must make pass, by id
    definition: str = ""  # fmt "function": the definition the model rewrites
    definition_lang: str = "python"  # ... and its code fence's language
    refocus: Refocus | None = None  # how to start over once an iteration failed
    # replies in a row that repeat a change already turned down, before the run stops: the
    # third sampled copy of the same failed change says the model has nothing else to offer
    max_repeats: int = 3
