"""Plain-language turns: a question is answered from the context (streamed, nothing
written); anything else is a task for the agent (``run_task`` on the chat's Session), whose
plan — what done means, the files it reads — and verified diff the user sees before it is
kept, unless edits are allowed for the session."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from rich.markup import escape

from patchwright import interrupts
from patchwright.agent.prompts import render
from patchwright.events import Event
from patchwright.llm import Message
from patchwright.modes.chat.context import REPLY_TOKENS, gather
from patchwright.modes.chat.state import ChatState
from patchwright.modes.chat.ui import ChatUI
from patchwright.modes.task.options import RunOptions, RunSummary
from patchwright.modes.task.runner import run_task

_ASKING_WORDS = frozenset(
    "what why how where which who whose when explain describe summarize summarise".split()
)
_FILLERS = frozenset("and so but also ok okay then hmm well".split())
_ASKS_FOR_ACTION = re.compile(r"(?:(?:can|could|would|will)\s+you|please)\b")


def is_question(text: str) -> bool:
    """A question to answer rather than a task: it starts with a question word (what, why,
    how, explain...) or ends with "?" — unless it asks for an action ("can you fix X?",
    "please add Y?"). /ask and /code decide when this guesses wrong."""
    words = [w.strip(",:;") for w in text.lower().split()]
    while words and words[0] in _FILLERS:
        words.pop(0)
    if not words or _ASKS_FOR_ACTION.match(" ".join(words)):
        return False
    return words[0] in _ASKING_WORDS or text.rstrip().endswith("?")


def timed(on_token: Callable[[str], None], marks: dict[str, float]) -> Callable[[str], None]:
    """``on_token`` that notes when the first token came and stops at a cancel request."""

    def wrapped(piece: str) -> None:
        marks.setdefault("first_token", time.monotonic())
        interrupts.check()
        on_token(piece)

    return wrapped


def ask(state: ChatState, ui: ChatUI, question: str) -> None:
    """Answer from memory, the outline, the files in context and the conversation."""
    ctx = gather(state)
    system = render(
        "chat_ask",
        root=state.root,
        memory=ctx.memory,
        memory_sources=ctx.memory_sources,
        repo_map=ctx.repo_map,
        files=ctx.files,
        omitted=ctx.omitted,
    )
    messages: list[Message] = [
        {"role": "system", "content": system},
        *state.conversation.messages(),
        {"role": "user", "content": question},
    ]
    marks = {"start": time.monotonic()}
    state.record("user", text=question, mode="ask")
    try:
        reply = state.session.model.complete(
            messages, on_token=timed(ui.stream, marks), max_tokens=REPLY_TOKENS
        )
    finally:
        ui.end_stream()
    state.record("assistant", text=reply.text, first_token_s=_since(marks))


def _since(marks: dict[str, float]) -> float | None:
    first = marks.get("first_token")
    return round(first - marks["start"], 3) if first is not None else None


class TurnProgress:
    """Says what a task is doing, a line at a time: the plan (what done means, the files it
    reads), the model's streamed reply, the agent's tool calls (also kept in the
    transcript), the gates, what was kept or rolled back."""

    def __init__(self, ui: ChatUI, state: ChatState) -> None:
        self.ui = ui
        self.state = state

    def __call__(self, event: Event) -> None:
        data, say = event.data, self.ui.console.print
        kind = event.kind
        if kind == "baseline.start":
            say("[dim]· checking the tests before any change…[/]")
        elif kind == "criterion.decided":
            say(f"[bold]plan[/] · done when: {escape(str(data.get('description', '')))}")
        elif kind == "context.built":
            files = ", ".join(data.get("files") or []) or "(none)"
            say(f"[bold]plan[/] · reading {escape(files)}")
        elif kind == "model.request":
            say(f"[dim]· asking {escape(str(data.get('phase', 'the model')))}…[/]")
        elif kind == "model.reply":
            self.ui.end_stream()
        elif kind == "txn.write":
            say(f"[dim]· verifying {escape(', '.join(data.get('paths') or []))}…[/]")
        elif kind == "gate.result" and data.get("status") not in (None, "skipped"):
            status = str(data.get("status")).replace("_", " ")
            say(f"[dim]  {data.get('gate', 'gate')}: {status}[/]")
        elif kind == "txn.rollback":
            say(f"[yellow]· rolled back: {escape(str(data.get('reason', '')))}[/]")
        elif kind in ("tool.call", "tool.refused"):
            self.ui.end_stream()
            args = ", ".join(f"{k}={v}" for k, v in (data.get("arguments") or {}).items())
            mark = "refused" if kind == "tool.refused" else ("ok" if data.get("ok") else "failed")
            say(
                f"[dim]· {data.get('role', '')} {escape(str(data.get('tool')))}({escape(args[:120])}): {mark}[/]"
            )
            self.state.store.append("tool", event=kind, **data)


def task_options(state: ChatState, request: str, **extra: object) -> RunOptions:
    """The run options of one chat task: the chat's flags and settings, the files kept in
    context, the edit permission, and a short digest of the conversation."""
    options, run = state.options, state.settings.run
    task = render("chat_task", request=request, history=state.conversation.digest()).strip()
    opts = RunOptions(
        repo=state.root,
        task=task,
        test_cmd=options.test_cmd or run.test_cmd,
        max_iter=options.max_iter or run.max_iter,
        edit_format=options.edit_format or run.edit_format,
        include=list(state.files),
        no_git=options.no_git,
        no_commit=options.no_commit or not run.commit,
        yes=state.allow_edits,
    )
    for key, value in extra.items():
        setattr(opts, key, value)
    return opts


def do_task(
    state: ChatState, ui: ChatUI, request: str, opts: RunOptions | None = None
) -> RunSummary:
    """Run one task on the chat's Session and record it; Ctrl-C ends it "interrupted" with
    the repository restored."""
    opts = opts or task_options(state, request)
    marks = {"start": time.monotonic()}
    state.record("user", text=request, mode="task")
    stop = state.session.bus.subscribe(TurnProgress(ui, state))

    def allow() -> None:
        state.allow_edits = True
        ui.console.print("[green]edits allowed for the rest of this session[/] (/allow-edits off)")

    try:
        with ui.approvals(allow) as console:
            summary = run_task(
                opts, console=console, session=state.session, on_token=timed(ui.stream, marks)
            )
    finally:
        stop()
        ui.end_stream()
    state.runs.append(summary.run_id)
    state.record(
        "task",
        outcome=summary.outcome,
        files=summary.files_changed,
        commit=summary.commit,
        reason=summary.reason,
        run_id=summary.run_id,
        diff=summary.diff,
        first_token_s=_since(marks),
    )
    report(ui, summary)
    return summary


def report(ui: ChatUI, summary: RunSummary) -> None:
    say = ui.console.print
    colour = {"solved": "green", "unverified": "yellow", "interrupted": "yellow"}.get(
        summary.outcome, "red"
    )
    tokens = summary.prompt_tokens + summary.completion_tokens
    say(f"[bold {colour}]{summary.outcome}[/] · {summary.seconds:.1f}s · {tokens} tokens")
    if summary.commit:
        say(f"committed {summary.commit[:12]}: {escape(', '.join(summary.files_changed))}")
    elif summary.files_changed:
        say(f"changed (not committed): {escape(', '.join(summary.files_changed))}")
    else:
        say(f"{escape(summary.reason or 'nothing changed')}; the repository is as it was")
    for note in summary.notes:
        say(f"[dim]note: {escape(note)}[/]")
