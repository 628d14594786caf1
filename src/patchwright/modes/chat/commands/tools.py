"""Slash commands that run things or report on them: /exec, /test, /index, /log."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import PurePosixPath

from rich.markup import escape

from patchwright.agent.record import runs_dir
from patchwright.events import Event, IndexProgress
from patchwright.modes.chat.commands.base import ChatParts, CommandError, CommandSet
from patchwright.sandbox import ExecResult
from patchwright.verify.detect import detect_test_command
from patchwright.workspace.files import BUILTIN_IGNORES, IGNORE_FILE

command = CommandSet()

_SHOWN_LINES = 60


def _show_result(chat: ChatParts, label: str, result: ExecResult) -> None:
    say = chat.ui.console.print
    if result.blocked_by and result.blocked_by.startswith("policy:"):
        say(f"[red]refused:[/] {escape(result.stderr.strip())}")
        chat.state.record("command", label=label, output=f"refused: {result.stderr.strip()}")
        return
    output = (result.stdout + result.stderr).rstrip()
    lines = output.splitlines()
    if len(lines) > _SHOWN_LINES:
        say(f"[dim]… {len(lines) - _SHOWN_LINES} lines above not shown[/]")
        lines = lines[-_SHOWN_LINES:]
    if lines:
        say("\n".join(lines), markup=False, highlight=False)
    status = (
        "timed out"
        if result.timed_out
        else (
            f"exit {result.exit_code}"
            if result.exit_code is not None
            else f"killed ({result.killed_by})"
        )
    )
    colour = "green" if result.ok else "red"
    say(f"[{colour}]{status}[/] [dim]in {result.seconds:.1f}s[/]")
    chat.state.record(
        "command", label=label, output=f"{output}\n({status})", exit_code=result.exit_code
    )


@command(
    "exec", "CMD", "run a shell command in the sandbox (also: !CMD); forbidden ones are refused"
)
def exec_cmd(chat: ChatParts, args: str) -> None:
    if not args.strip():
        raise CommandError("give a command, e.g. /exec ls -la  (or !ls -la)")
    session = chat.state.session
    result = session.sandbox.run(args, timeout=session.command_timeout)
    _show_result(chat, f"/exec {args}", result)


@command("test", "[ARGS]", "run the test suite (the detected runner, or [run] test_cmd)")
def test_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    cmd = state.options.test_cmd or state.settings.run.test_cmd or detect_test_command(state.root)
    if cmd is None:
        raise CommandError(
            "no test runner found (pytest, npm test, go test, cargo test); set [run] test_cmd "
            "in your config (or a trusted .patchwright/config.toml) or start the chat with "
            "--test-cmd"
        )
    cmd = f"{cmd} {args}".strip()
    chat.ui.console.print(f"[dim]$ {escape(cmd)}[/]")
    result = state.session.sandbox.run(cmd, timeout=max(state.session.command_timeout, 600))
    _show_result(chat, f"/test ({cmd})", result)


@command("index", "", "build or refresh the code index; show what it covers and what it skips")
def index_cmd(chat: ChatParts, args: str) -> None:
    state, say = chat.state, chat.ui.console.print
    shown: set[int] = set()

    def progress(event: Event) -> None:
        if isinstance(event, IndexProgress) and event.total:
            quarter = 4 * event.done // event.total
            if quarter not in shown:
                shown.add(quarter)
                say(f"[dim]indexing {event.done}/{event.total} files[/]")

    stop = state.session.bus.subscribe(progress)
    try:
        index = state.session.index
    finally:
        stop()
    if index is None:
        raise CommandError("the index could not be built (see `patchwright index` for why)")
    symbols = index.symbols
    languages = Counter(PurePosixPath(p).suffix or "(none)" for p in symbols)
    top = ", ".join(f"{ext} {n}" for ext, n in languages.most_common(6))
    files = state.settings.files
    say(f"indexed {len(symbols)} files ({top})")
    say(f"size caps: {files.max_file_bytes // 1024} KiB a file, {files.max_total_bytes // (1024 * 1024)} MiB "
        "in all ([files] in config)")  # fmt: skip
    ignores = [".gitignore (every level)"]
    if (state.root / IGNORE_FILE).is_file():
        ignores.append(IGNORE_FILE)
    say(
        f"ignored: {', '.join(ignores)}, and built in: {' '.join(BUILTIN_IGNORES)}", highlight=False
    )


@command("log", "", "where this session's records are: transcript and run records")
def log_cmd(chat: ChatParts, args: str) -> None:
    state, say = chat.state, chat.ui.console.print
    say(f"session {state.store.id}: {escape(str(state.store.transcript))}")
    say(f"resume it with: patchwright chat --resume {state.store.id}")
    if not state.runs:
        say("no task has run in this session yet")
    for run_id in state.runs:
        summary = runs_dir(state.root) / run_id / "summary.json"
        try:
            outcome = json.loads(summary.read_text()).get("outcome", "?")
        except (OSError, ValueError):
            outcome = "?"
        say(f"  {run_id}  {outcome:<12} patchwright log {run_id}")
