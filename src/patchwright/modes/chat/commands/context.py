"""Slash commands about what the model sees: /read, /add, /drop, /tokens, /clear."""

from __future__ import annotations

import fnmatch
import shlex

from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

from patchwright.agent.context import approx_tokens
from patchwright.grammars import language_for_path
from patchwright.modes.chat.commands.base import ChatParts, CommandError, CommandSet
from patchwright.modes.chat.context import gather
from patchwright.modes.chat.state import ChatState
from patchwright.workspace.errors import WorkspaceError
from patchwright.workspace.files import list_files
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import read_text_file

command = CommandSet()

LARGE_LINES = 400  # /read shows a file past this many lines by its outline
LARGE_BYTES = 48 * 1024
_GLOB = set("*?[")
_OUTLINE = 200  # definitions shown at most


def resolve(state: ChatState, args: str) -> list[str]:
    """Repository paths named by ``args``: paths and globs (``src/**/*.py``), quoted as in
    a shell. Raises :class:`CommandError` naming what matched nothing or escapes."""
    try:
        specs = shlex.split(args)
    except ValueError as exc:
        raise CommandError(f"cannot read the paths ({exc}); quote paths with spaces") from exc
    if not specs:
        raise CommandError("give a path or a glob, e.g. src/app.py or 'src/**/*.py'")
    found: list[str] = []
    listed: list[str] | None = None
    for spec in specs:
        spec = spec.removeprefix("./")
        if _GLOB & set(spec):
            listed = listed if listed is not None else [f.path for f in list_files(state.root)]
            matches = [p for p in listed if fnmatch.fnmatch(p, spec)]
            if not matches:
                raise CommandError(f"{spec}: no file of the repository matches")
            found += matches
            continue
        try:
            target = confine(state.root, spec)
        except WorkspaceError as exc:
            raise CommandError(f"{spec}: {exc}") from exc
        if not target.is_file():
            raise CommandError(f"{spec}: no such file in {state.root}")
        found.append(target.relative_to(state.root).as_posix())
    return list(dict.fromkeys(found))


def outline(state: ChatState, path: str, text: str) -> str:
    """A large file by its definitions (from the index; else its first lines)."""
    index = state.session.index
    defs = index.definitions(path) if index is not None else []
    lines = len(text.splitlines())
    if defs:
        body = "\n".join(
            f"{d.line:>5}  {d.signature or d.kind + ' ' + d.name}" for d in defs[:_OUTLINE]
        )
        more = f"\n… and {len(defs) - _OUTLINE} more" if len(defs) > _OUTLINE else ""
        return f"{path}: {lines} lines; its definitions:\n{body}{more}"
    head = "\n".join(text.splitlines()[:60])
    return f"{path}: {lines} lines; the first 60:\n{head}"


@command(
    "read",
    "PATH|GLOB",
    "show files (large ones by their outline) and put them in the conversation",
    paths=True,
)
def read_cmd(chat: ChatParts, args: str) -> None:
    state, say = chat.state, chat.ui.console.print
    paths = resolve(state, args)
    if len(paths) > 20:
        raise CommandError(f"{len(paths)} files match; narrow the glob (at most 20 at a time)")
    for path in paths:
        try:
            text = read_text_file(state.root / path).text
        except (OSError, WorkspaceError) as exc:
            say(f"[red]{escape(path)}: {escape(str(exc))}[/]")
            continue
        if text.count("\n") > LARGE_LINES or len(text.encode()) > LARGE_BYTES:
            shown = outline(state, path, text)
            say(f"[bold]{escape(path)}[/] [dim](large: its outline)[/]")
            say(shown, markup=False, highlight=False)
        else:
            shown = f"{path}\n{text}"
            say(f"[bold]{escape(path)}[/]")
            lang = language_for_path(path) or "text"
            say(Syntax(text, lang, line_numbers=True, theme="ansi_dark", word_wrap=True))
        state.record("file", label=f"/read {path}", output=shown, path=path)


@command(
    "add", "PATH|GLOB", "keep files in context for every turn (the agent may edit them)", paths=True
)
def add_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    new = [p for p in resolve(state, args) if p not in state.files]
    state.files.extend(new)
    state.store.append("context", files=state.files)
    _show_files(chat, f"added {len(new)}")
    over = gather(state, with_map=False).omitted
    if over:
        chat.ui.console.print(
            f"[yellow]note:[/] {escape(', '.join(over))} do(es) not fit in a prompt for "
            f"{escape(state.model_name)} and will be left out (/tokens shows the budget)"
        )


@command(
    "drop", "[PATH|GLOB]", "take files out of context (all of them without an argument)", paths=True
)
def drop_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    if not args.strip():
        gone, state.files = len(state.files), []
    else:
        patterns = shlex.split(args)
        keep = [
            p
            for p in state.files
            if not any(fnmatch.fnmatch(p, g.removeprefix("./")) for g in patterns)
        ]
        gone, state.files = len(state.files) - len(keep), keep
        if not gone:
            raise CommandError(f"{args}: not in context (/tokens lists what is)")
    state.store.append("context", files=state.files)
    _show_files(chat, f"dropped {gone}")


def _show_files(chat: ChatParts, what: str) -> None:
    files = chat.state.files
    listing = ", ".join(files) if files else "no files"
    chat.ui.console.print(f"{what}; in context: {escape(listing)}")


@command("tokens", "", "what the next prompt holds, its budget, and what would be dropped")
def tokens_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    ctx = gather(state)
    table = Table(title=f"context of the next question · {state.model_name}")
    table.add_column("part")
    table.add_column("tokens", justify="right")
    table.add_column("", overflow="fold")
    table.add_row("project memory", str(approx_tokens(ctx.memory)) if ctx.memory else "0",
                  ", ".join(ctx.memory_sources) or "none (see /init)")  # fmt: skip
    conv = state.conversation
    table.add_row("conversation", str(ctx.conversation),
                  f"{len(conv.turns)} turns" + (" + summary" if conv.summary else "")
                  + f"; compacted past {conv.budget_tokens}")  # fmt: skip
    for f in ctx.files:
        table.add_row(f.path, str(approx_tokens(f.text) + 8), "kept in context")
    for path in ctx.omitted:
        table.add_row(path, "-", "[yellow]would be dropped: over the budget[/]")
    for path, why in ctx.unreadable.items():
        table.add_row(path, "-", f"[red]unreadable: {escape(why)}[/]")
    if ctx.repo_map:
        table.add_row("repository outline", str(approx_tokens(ctx.repo_map)), "fills the room left")
    table.add_row("[bold]total[/]", f"[bold]{ctx.tokens}[/]", f"of {ctx.budget} for the prompt")
    chat.ui.console.print(table)


@command("clear", "", "forget the conversation (files in context, memory and the transcript stay)")
def clear_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    state.conversation.clear()
    state.store.append("compaction", summary="", kept=0, cleared=True)
    chat.ui.console.print("conversation cleared; the transcript on disk keeps it")
