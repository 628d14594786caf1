"""Slash commands about the session itself: /quit, /model, /config, /sessions,
/ask and /code (force a question or a task), /init."""

from __future__ import annotations

import json
import os
from typing import Any

from rich.markup import escape
from rich.table import Table

from patchwright.config import project_config_path, user_config_path
from patchwright.llm import Catalog, ModelError, redact
from patchwright.modes.chat.commands.base import ChatParts, CommandError, CommandSet, QuitChat
from patchwright.modes.chat.sessions import list_sessions
from patchwright.modes.chat.turns import ask, do_task

command = CommandSet()


@command("quit", "", "leave (also: Ctrl-D, or Ctrl-C twice at an empty prompt)")
def quit_cmd(chat: ChatParts, args: str) -> None:
    raise QuitChat


@command("ask", "QUESTION", "answer a question about the code; nothing is written")
def ask_cmd(chat: ChatParts, args: str) -> None:
    if not args.strip():
        raise CommandError("give a question, e.g. /ask where is the CLI defined?")
    ask(chat.state, chat.ui, args.strip())


@command("code", "TASK", "do a task (when it reads like a question)")
def code_cmd(chat: ChatParts, args: str) -> None:
    if not args.strip():
        raise CommandError("say what to do, e.g. /code add a --verbose flag")
    do_task(chat.state, chat.ui, args.strip())


@command("model", "[NAME]", "list the models usable here, or switch to one")
def model_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    if args.strip():
        try:
            state.switch_model(args.strip())
        except ModelError as exc:
            raise CommandError(f"{exc} (the session keeps {state.model_name})") from exc
        chat.ui.console.print(f"now using [bold]{escape(state.model_name)}[/]")
        return
    from patchwright.llm.survey import survey

    settings = state.settings.model
    table = Table(title=f"models (✓ usable here; ● in use: {state.model_name})")
    for column in ("", "model", "context", "why"):
        table.add_column(column, overflow="fold")
    for row in survey(Catalog(settings.catalog), keys=settings.keys):
        mark = "●" if row.info.spec == state.model_name else ("✓" if row.usable else "·")
        table.add_row(mark, row.info.spec, f"{row.info.context_window:,}", row.reason)
    chat.ui.console.print(table)
    chat.ui.console.print("switch with /model NAME")


def redacted(value: Any, key: str = "") -> Any:
    """A settings value safe to show: API keys masked, secrets in strings redacted."""
    if key == "keys" and isinstance(value, dict):
        return {name: [f"…{str(k)[-4:]}" if len(str(k)) > 8 else "****" for k in keys]
                for name, keys in value.items()}  # fmt: skip
    if isinstance(value, dict):
        return {k: redacted(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return redact(value) if isinstance(value, str) else value


@command("config", "", "the effective settings, layer by layer, secrets redacted")
def config_cmd(chat: ChatParts, args: str) -> None:
    state, say = chat.state, chat.ui.console.print
    layers = [("defaults", True), (str(user_config_path()), user_config_path().is_file()),
              (str(project_config_path(state.root)), project_config_path(state.root).is_file())]  # fmt: skip
    env = sorted(k for k in os.environ if k.startswith("PATCHWRIGHT_"))
    say("layers: " + " < ".join(escape(n) for n, present in layers if present)
        + (f" < environment ({', '.join(env)})" if env else "") + " < flags", highlight=False)  # fmt: skip
    if state.settings.ignored:
        say("ignored, the repository's config not being trusted (patchwright trust): "
            + escape(", ".join(state.settings.ignored)), highlight=False)  # fmt: skip
    data = redacted(state.settings.model_dump())
    for section, values in data.items():
        say(f"[bold]\\[{section}][/]")
        for key, value in values.items():
            say(f"  {key} = {escape(json.dumps(value, default=str))}", highlight=False)
    say(
        f"this session: model {escape(state.model_name)}, edits {'on' if state.allow_edits else 'ask'}"
    )


@command(
    "sessions", "", "this repository's chat sessions (resume with patchwright chat --resume ID)"
)
def sessions_cmd(chat: ChatParts, args: str) -> None:
    for info in list_sessions(chat.state.root)[:20]:
        mark = "●" if info.id == chat.state.store.id else " "
        chat.ui.console.print(f"{mark} {info.id}  {escape(info.title)}", highlight=False)


@command(
    "init",
    "[--claude pointer|copy|none]",
    "write AGENTS.md (and CLAUDE.md) from what the repository shows; never overwrites",
)
def init_cmd(chat: ChatParts, args: str) -> None:
    from patchwright.modes.chat.init import InitError, run_init

    words = args.split()
    claude = words[words.index("--claude") + 1] if "--claude" in words[:-1] else "pointer"
    try:
        run_init(chat.state.session, chat.ui.console, chat.ui.confirm, claude=claude,
                 on_token=chat.ui.stream, end_stream=chat.ui.end_stream)  # fmt: skip
    except InitError as exc:
        raise CommandError(str(exc)) from exc
