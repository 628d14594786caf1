"""The conversation of a chat session: turns, their size, compaction, replay from disk.

What the model is shown of earlier turns: the user's words, the model's answers, each
task's outcome and command outputs (cut to a few lines). When the turns outgrow their
budget, all but the last few are summarised by the model (mechanically, when the model
cannot) and the user is told; project memory is read afresh for every prompt, so nothing
of it is lost to a compaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from patchwright.agent.context import approx_tokens
from patchwright.agent.prompts import render
from patchwright.llm import Message, Model, ModelError

Role = Literal["user", "assistant"]
KEEP_TURNS = 4  # the most recent turns a compaction leaves as they are
_OUTPUT_CHARS = 1500  # of a command's output kept in the conversation


@dataclass
class Turn:
    role: Role
    content: str


@dataclass
class Compaction:
    """What a compaction did, for the user and the transcript."""

    turns: int
    before: int
    after: int
    summary: str
    by_model: bool


@dataclass
class Conversation:
    budget_tokens: int
    turns: list[Turn] = field(default_factory=list)
    summary: str = ""

    def add(self, role: Role, content: str) -> None:
        if content.strip():
            self.turns.append(Turn(role, content.strip()))

    def clear(self) -> None:
        self.turns.clear()
        self.summary = ""

    def tokens(self) -> int:
        return approx_tokens(self.summary) + sum(approx_tokens(t.content) for t in self.turns)

    def over_budget(self) -> bool:
        return self.tokens() > self.budget_tokens and len(self.turns) > KEEP_TURNS

    def messages(self) -> list[Message]:
        """The turns as chat messages, consecutive turns of one role merged (some providers
        require alternation), the summary of compacted turns first."""
        out: list[Message] = []
        if self.summary:
            out.append(
                {"role": "user", "content": f"[summary of our conversation so far]\n{self.summary}"}
            )
        for turn in self.turns:
            if out and out[-1]["role"] == turn.role:
                out[-1] = {"role": turn.role, "content": f"{out[-1]['content']}\n\n{turn.content}"}
            else:
                out.append({"role": turn.role, "content": turn.content})
        return out

    def digest(self, limit: int = 3) -> list[str]:
        """One line per recent exchange, for a task's prompt (kept short: a task's own
        context is files, not chat)."""
        lines = [f"summary: {_line(self.summary, 300)}"] if self.summary else []
        lines += [f"{t.role}: {_line(t.content, 200)}" for t in self.turns[-2 * limit :]]
        return lines

    def compact(self, model: Model | None) -> Compaction:
        """Summarise all but the last :data:`KEEP_TURNS` turns into :attr:`summary`."""
        before = self.tokens()
        old, self.turns = self.turns[:-KEEP_TURNS], self.turns[-KEEP_TURNS:]
        summary, by_model = _summarise(model, self.summary, old)
        self.summary = summary
        return Compaction(len(old), before, self.tokens(), summary, by_model)

    def replay(self, entries: Iterable[dict[str, Any]]) -> int:
        """Rebuild the turns from a transcript; returns how many entries were turns."""
        count = 0
        for entry in entries:
            kind = entry["kind"]
            if kind == "compaction":
                keep = int(entry.get("kept", KEEP_TURNS))
                self.turns = self.turns[-keep:] if keep else []
                self.summary = str(entry.get("summary", ""))
                continue
            turn = turn_of(entry)
            if turn is not None:
                self.add(*turn)
                count += 1
        return count


def turn_of(entry: dict[str, Any]) -> tuple[Role, str] | None:
    """The conversation turn a transcript entry stands for (None: not part of it)."""
    kind = entry["kind"]
    if kind == "user":
        return "user", str(entry.get("text", ""))
    if kind == "assistant":
        return "assistant", str(entry.get("text", ""))
    if kind == "task":
        return "assistant", describe_task(entry)
    if kind in ("command", "file"):
        return "user", _output(str(entry.get("label", kind)), str(entry.get("output", "")))
    return None


def describe_task(entry: dict[str, Any]) -> str:
    """A task's outcome as the model should remember it."""
    files = ", ".join(entry.get("files") or []) or "no files"
    commit = f", committed {str(entry['commit'])[:12]}" if entry.get("commit") else ""
    reason = f" ({entry['reason']})" if entry.get("reason") else ""
    return f"[task {entry.get('outcome', '?')}{reason}: changed {files}{commit}]"


def _output(label: str, output: str) -> str:
    text = output.strip()
    if len(text) > _OUTPUT_CHARS:
        text = "[... cut]\n" + text[-_OUTPUT_CHARS:]
    return f"[{label}]\n{text or '(no output)'}"


def _line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _summarise(model: Model | None, previous: str, turns: list[Turn]) -> tuple[str, bool]:
    if model is not None:
        prompt = render("chat_compact", previous=previous, turns=turns)
        try:
            reply = model.complete([{"role": "user", "content": prompt}], max_tokens=400)
            if reply.text.strip():
                return reply.text.strip(), True
        except ModelError:
            pass
    lines = [previous] if previous else []
    lines += [f"{t.role}: {_line(t.content, 160)}" for t in turns]
    return "\n".join(lines)[-2400:], False
