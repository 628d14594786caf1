"""MEMORY.md and HISTORY.md: what the review loop remembers between iterations (and runs).

HISTORY.md is append-only: every accepted change with its reason, commit and (cut) diff.
MEMORY.md is re-synthesised by the model after each iteration from the iteration's notes and
compacted every third iteration; when the model cannot answer, the notes are merged in by
rule instead, so the memory never loses an iteration. Both are read back into the next
prompt, capped, newest history first to go when over the cap.
"""

from __future__ import annotations

from dataclasses import dataclass

from patchwright import events as ev
from patchwright.agent.prompts import render
from patchwright.events import EventBus, ReviewHistory
from patchwright.llm import Model
from patchwright.modes.review.ask import ask_text
from patchwright.modes.review.files import ReviewPaths, history_entry, recent_entries

MEMORY_CHARS = 1500  # memory read back into a prompt
HISTORY_ENTRIES, HISTORY_CHARS = 3, 1500  # recent HISTORY.md entries read back
COMPACT_EVERY = 3
_KEEP_CHARS = 3000  # a model answer longer than this is cut


@dataclass(frozen=True)
class Recall:
    """Memory and recent history, capped for a prompt."""

    memory: str
    history: str


@dataclass
class ReviewMemory:
    paths: ReviewPaths
    model: Model
    bus: EventBus

    def recall(self) -> Recall:
        memory = _body(self.paths.read("MEMORY.md"))
        if len(memory) > MEMORY_CHARS:
            memory = memory[:MEMORY_CHARS].rsplit("\n", 1)[0] + "\n- … (memory cut)"
        history = recent_entries(self.paths.read("HISTORY.md"), HISTORY_ENTRIES, HISTORY_CHARS)
        return Recall(memory, history)

    def record_change(
        self, *, paths: list[str], kind: str, rationale: str, diff: str, commit: str | None
    ) -> None:
        """Append an accepted change to HISTORY.md."""
        entry = history_entry(paths=paths, kind=kind, rationale=rationale, diff=diff,
                              commit=commit)  # fmt: skip
        self.paths.append("HISTORY.md", entry, title="Review history")
        self.bus.emit(ReviewHistory(paths=paths, commit=commit))

    def update(self, iteration: int, notes: list[str]) -> str:
        """Re-synthesise MEMORY.md with this iteration's notes; compact it every third
        iteration. Returns the new memory."""
        current = self.paths.read("MEMORY.md").strip()
        listed = "\n".join(f"- {n}" for n in notes)
        prompt = render("review_memory", memory=current, notes=listed, iteration=iteration,
                        limit=MEMORY_CHARS)  # fmt: skip
        answer = ask_text(self.model, prompt, bus=self.bus, phase="memory", max_tokens=500)
        memory = _clean(answer) if answer else _merge(current, notes)
        compacted = iteration % COMPACT_EVERY == 0
        if compacted:
            prompt = render("review_compact", memory=memory, bullets=8, limit=MEMORY_CHARS)
            short = ask_text(self.model, prompt, bus=self.bus, phase="memory-compact",
                             max_tokens=400)  # fmt: skip
            memory = _clean(short) if short else _merge("", memory.splitlines()[-8:])
        self.paths.write("MEMORY.md", "# Review memory\n\n" + memory.strip() + "\n")
        self.bus.emit(ev.ReviewMemory(iteration=iteration, chars=len(memory),
                                   compacted=compacted, by_model=answer is not None))  # fmt: skip
        return memory

    def note(self, notes: list[str]) -> None:
        """Merge ``notes`` into MEMORY.md by rule, without the model (a stop is no time to
        wait for one)."""
        memory = _merge(self.paths.read("MEMORY.md").strip(), notes)
        self.paths.write("MEMORY.md", "# Review memory\n\n" + memory.strip() + "\n")


def _body(text: str) -> str:
    """The memory without its title line."""
    return "\n".join(x for x in text.strip().splitlines() if not x.startswith("# ")).strip()


def _clean(answer: str) -> str:
    return _body(answer)[:_KEEP_CHARS]


def _merge(current: str, notes: list[str]) -> str:
    """The rule-based memory update: the old bullets and the new ones, newest kept."""
    old = [x for x in current.splitlines() if x.strip() and not x.startswith("# ")]
    new = [n if n.lstrip().startswith("- ") else f"- {n.strip()}" for n in notes if n.strip()]
    lines = [*old, *new]
    while lines and len("\n".join(lines)) > MEMORY_CHARS:
        lines.pop(0)
    return "\n".join(lines)
