"""One chat session's behaviour, independent of its front end: a line in, the right step
out — a slash command, a phrase that means one ("undo that"), ``!cmd``, a question, or a
task — then the usage counted and the conversation compacted when it grows too long."""

from __future__ import annotations

from rich.markup import escape

from patchwright.agent.request import RunError
from patchwright.llm import CapExceeded, ModelError
from patchwright.modes.chat.commands.base import CommandError, QuitChat, from_phrase, split
from patchwright.modes.chat.commands.table import COMMANDS, closest
from patchwright.modes.chat.state import ChatState
from patchwright.modes.chat.turns import ask, do_task, is_question
from patchwright.modes.chat.ui import ChatUI


class Chat:
    """Handles the lines a user types; the REPL and the TUI both drive one of these."""

    def __init__(self, state: ChatState, ui: ChatUI) -> None:
        self.state = state
        self.ui = ui

    def handle(self, line: str) -> bool:
        """Carry out one line; False when the user asked to leave."""
        text = line.strip()
        if not text:
            return True
        if text.startswith("!"):
            text = "/exec " + text[1:].strip()
        slash = text if text.startswith("/") else from_phrase(text)
        try:
            if slash is not None:
                self.command(slash)
            elif is_question(text):
                ask(self.state, self.ui, text)
            else:
                do_task(self.state, self.ui, text)
        except QuitChat:
            return False
        except CommandError as exc:
            self.ui.console.print(f"[red]{escape(str(exc))}[/]")
        except CapExceeded as exc:
            self.ui.console.print(f"[red]{exc.cap} cap reached:[/] {escape(str(exc))}")
        except (ModelError, RunError) as exc:
            self.ui.console.print(f"[red]error:[/] {escape(str(exc))}")
        finally:
            self.state.add_session_usage()
        self.compact_if_needed()
        return True

    def command(self, line: str) -> None:
        name, args = split(line)
        found = COMMANDS.get(name)
        if found is None:
            near = closest(name)
            hint = f"; did you mean {', '.join('/' + n for n in near)}?" if near else ""
            raise CommandError(f"unknown command /{name}{hint} (/help lists them)")
        found.handler(self, args)

    def compact_if_needed(self) -> None:
        """Summarise the older turns when the conversation outgrew its budget."""
        state = self.state
        if not state.conversation.over_budget():
            return
        result = state.conversation.compact(state.session.model)
        state.add_session_usage()
        state.store.append("compaction", summary=result.summary, kept=len(state.conversation.turns),
                           turns=result.turns, by_model=result.by_model)  # fmt: skip
        how = (
            "summarised by the model"
            if result.by_model
            else "shortened (the model could not summarise)"
        )
        self.ui.console.print(
            f"[yellow]conversation compacted:[/] {result.turns} earlier turns {how}, "
            f"{result.before} → {result.after} tokens; project memory is read afresh for every prompt"
        )
