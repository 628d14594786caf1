"""Plain-language turns: a question is answered from the context (streamed, nothing
written); anything else is a task (:func:`patchwright.agent.solve.solve` on the chat's
Session, its request built from the settings and the chat's flags), whose
plan — what done means, the files it reads — and verified diff the user sees before it is
kept, unless edits are allowed for the session."""

from __future__ import annotations

import re
import textwrap
import time
from collections.abc import Callable, Sequence

from rich.markup import escape

from patchwright import interrupts
from patchwright.agent.prompts import render
from patchwright.agent.request import Overrides, TaskRequest, build_request
from patchwright.agent.solve import solve
from patchwright.agent.solve_types import SolveResult
from patchwright.events import (
    BaselineStart,
    ContextBuilt,
    CriterionDecided,
    Event,
    GateResult,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolRefused,
    TxnRollback,
    TxnWrite,
)
from patchwright.llm import Message
from patchwright.modes.chat.context import REPLY_TOKENS, gather
from patchwright.modes.chat.state import ChatState
from patchwright.modes.chat.ui import ChatUI
from patchwright.modes.terminal.approval import TerminalPerson

_ASKING_WORDS = frozenset(
    "what why how where which who whose when explain describe summarize summarise".split()
)
_FILLERS = frozenset("and so but also ok okay then hmm well".split())
_ASKS_FOR_ACTION = re.compile(r"(?:(?:can|could|would|will)\s+you|please)\b")


def is_question(text: str) -> bool:
    """A question to answer rather than a task: it starts with a question word (what, why,
    how, explain..., contracted too: what's, how'd) or ends with "?" — unless it asks for an
    action ("can you fix X?", "please add Y?"). /ask and /code decide when this guesses wrong."""
    words = [w.strip(",:;") for w in text.lower().split()]
    while words and words[0] in _FILLERS:
        words.pop(0)
    if not words or _ASKS_FOR_ACTION.match(" ".join(words)):
        return False
    first = re.split(r"['’]", words[0], maxsplit=1)[0]  # "what's" asks as "what" does
    return first in _ASKING_WORDS or text.rstrip().endswith("?")


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


def _after_a_failure(reason: str | None) -> bool:
    """A gate left out because an earlier one failed (``run_gates``): nothing to tell."""
    return (reason or "").startswith("not run:")


class TurnProgress:
    """Says what a task is doing, a line at a time: the plan (what done means, the files it
    reads), the model's streamed reply, the agent's tool calls (also kept in the
    transcript), the gates, what was kept or rolled back."""

    def __init__(self, ui: ChatUI, state: ChatState) -> None:
        self.ui = ui
        self.state = state

    def __call__(self, event: Event) -> None:
        say = self.ui.console.print
        match event:
            case BaselineStart():
                say("[dim]· checking the tests before any change…[/]")
            case CriterionDecided():
                say(f"[bold]plan[/] · done when: {escape(event.description)}")
            case ContextBuilt():
                say(f"[bold]plan[/] · reading {escape(', '.join(event.files) or '(none)')}")
            case ModelRequest():
                say(f"[dim]· asking {escape(event.phase or 'the model')}…[/]")
            case ModelReply():
                self.ui.end_stream()
            case TxnWrite():
                say(f"[dim]· verifying {escape(', '.join(event.paths))}…[/]")
            case GateResult() if event.status != "skipped":
                say(f"[dim]  {event.gate}: {event.status.replace('_', ' ')}[/]")
            case GateResult() if event.gate == "tests" and not _after_a_failure(event.reason):
                # the tests judged nothing: said as it happens, not only in the end note
                why = f" — {escape(textwrap.shorten(event.reason, 200))}" if event.reason else ""
                say(f"[yellow]  tests: skipped{why}[/]")
            case TxnRollback():
                say(f"[yellow]· rolled back: {escape(event.reason)}[/]")
            case ToolCall() | ToolRefused():
                self.ui.end_stream()
                self._tool(event)

    def _tool(self, event: ToolCall | ToolRefused) -> None:
        if isinstance(event, ToolCall):
            args = ", ".join(f"{k}={v}" for k, v in event.arguments.items())
            mark = "ok" if event.ok else "failed"
        else:
            args, mark = "", "refused"
        self.ui.console.print(
            f"[dim]· {event.role} {escape(event.tool)}({escape(args[:120])}): {mark}[/]"
        )
        self.state.store.append("tool", event=event.kind, **event.payload())


def task_request(
    state: ChatState, request: str, *, done_when: Sequence[str] = (), include: Sequence[str] = ()
) -> TaskRequest:
    """The request of one chat task: the settings with the chat's flags on top, the files
    kept in context (and ``include``), the edit permission, the post-checks of a plan
    (``done_when``), and a short digest of the conversation."""
    options = state.options
    task = render("chat_task", request=request, history=state.conversation.digest()).strip()
    overrides = Overrides(
        test_cmd=options.test_cmd,
        done_when=done_when,
        max_iter=options.max_iter,
        edit_format=options.edit_format,
        include=[*state.files, *include],
        no_git=options.no_git,
        commit=False if options.no_commit else None,
        yes=state.allow_edits,
    )
    return build_request(task, state.settings, overrides)


def do_task(
    state: ChatState, ui: ChatUI, request: str, task: TaskRequest | None = None
) -> SolveResult:
    """Run one task on the chat's Session and record it; Ctrl-C ends it "interrupted" with
    the repository restored."""
    task = task or task_request(state, request)
    marks = {"start": time.monotonic()}
    state.record("user", text=request, mode="task")
    stop = state.session.bus.subscribe(TurnProgress(ui, state))

    def allow() -> None:
        state.allow_edits = True
        ui.console.print("[green]edits allowed for the rest of this session[/] (/allow-edits off)")

    try:
        with ui.approvals(allow) as console:
            person = TerminalPerson(console, task.approval)
            summary = solve(state.session, task, person=person, on_token=timed(ui.stream, marks))
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


def report(ui: ChatUI, summary: SolveResult) -> None:
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
