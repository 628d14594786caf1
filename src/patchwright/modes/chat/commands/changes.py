"""Slash commands about changes: /write (your own edit, through the gates), /diff, /undo,
/allow-edits."""

from __future__ import annotations

import tempfile
from pathlib import Path

from rich.markup import escape
from rich.syntax import Syntax

from patchwright.edits import file_diff
from patchwright.modes.chat.commands.base import ChatParts, CommandError, CommandSet
from patchwright.modes.chat.state import ChatState
from patchwright.verify import run_gates, summarize_failures, take_baseline
from patchwright.verify.detect import detect_test_command
from patchwright.workspace.errors import GitError, UndoConflictError, UndoError, WorkspaceError
from patchwright.workspace.gitsafe import run_git
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import read_text_file
from patchwright.workspace.transaction import Transaction
from patchwright.workspace.undoing import list_undo, undo

command = CommandSet()


def show_diff(chat: ChatParts, diff: str) -> None:
    chat.ui.console.print(Syntax(diff, "diff", theme="ansi_dark", word_wrap=True))


@command("allow-edits", "on|off", "apply verified changes without asking, for this session")
def allow_edits_cmd(chat: ChatParts, args: str) -> None:
    state, word = chat.state, args.strip().lower()
    if word in ("on", "yes", "true", "1"):
        state.allow_edits = True
    elif word in ("off", "no", "false", "0"):
        state.allow_edits = False
    elif word:
        raise CommandError(f"/allow-edits {args}: say on or off")
    now = (
        "on: verified changes are applied without asking"
        if state.allow_edits
        else ("off: every verified change is shown and waits for your answer")
    )
    chat.ui.console.print(f"edits {now}")


@command("diff", "", "what changed since this session started (committed or not)")
def diff_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    git = state.git()
    if git is None:
        tasks = [e for e in state.store.entries() if e["kind"] == "task" and e.get("diff")]
        if not tasks:
            chat.ui.console.print("no change kept in this session")
            return
        show_diff(chat, str(tasks[-1]["diff"]))
        return
    text = git.diff(base=state.start_head) if state.start_head else git.diff()
    if not text.strip():
        chat.ui.console.print("no changes since this session started")
        return
    show_diff(chat, text)


@command(
    "undo", "[N] [--force]", "take back the last N changes (a commit this session made goes too)"
)
def undo_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    words = args.split()
    force = "--force" in words
    counts = [w for w in words if w != "--force"]
    if len(counts) > 1 or (counts and not counts[0].isdigit()) or (counts and int(counts[0]) < 1):
        raise CommandError(f"/undo {args}: give how many changes to take back, e.g. /undo 2")
    n = int(counts[0]) if counts else 1
    entries = list_undo(state.root)[:n]
    try:
        files = undo(state.root, n, force=force)
    except UndoConflictError as exc:
        raise CommandError(f"{exc} (/undo --force overwrites your edits)") from exc
    except UndoError as exc:
        raise CommandError(str(exc)) from exc
    labels = "; ".join(e.label.splitlines()[0][:60] if e.label else e.id for e in entries)
    chat.ui.console.print(
        f"undid {len(entries)} change(s) ({escape(labels)}); restored: {escape(', '.join(files))}"
    )
    dropped = _drop_session_commits(state, len(entries))
    if dropped:
        chat.ui.console.print(
            f"and removed this session's commit(s) {', '.join(c[:12] for c in dropped)}"
        )
    state.record("command", label=f"/undo {n}", output=f"restored {', '.join(files)}")


def _drop_session_commits(state: ChatState, n: int) -> list[str]:
    """Remove the commits this session made for the undone changes, newest first, while
    each is HEAD and on no remote branch (history others may have is never rewritten)."""
    git = state.git()
    if git is None:
        return []
    commits = [(str(e["commit"]), list(e.get("files") or [])) for e in state.store.entries()
               if e["kind"] == "task" and e.get("commit")]  # fmt: skip
    dropped: list[str] = []
    for commit, files in reversed(commits[-n:]):
        head = git.head() or ""
        if not head.startswith(commit) and not commit.startswith(head):
            break
        pushed = run_git(state.root, "branch", "-r", "--contains", head)
        if pushed.returncode != 0 or pushed.stdout.strip():
            break
        if run_git(state.root, "reset", "-q", "--soft", "HEAD~1").returncode != 0:
            break
        run_git(state.root, "reset", "-q", "--", *files)
        dropped.append(head)
    return dropped


@command(
    "write",
    "PATH",
    "edit a file in $EDITOR; your edit goes through the gates like any change",
    paths=True,
)
def write_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    path = args.strip().removeprefix("./")
    if not path or " " in path:
        raise CommandError("give one file: /write PATH (a new file is created)")
    try:
        target = confine(state.root, path)
        old = read_text_file(target).text if target.exists() else ""
    except (OSError, WorkspaceError) as exc:
        raise CommandError(f"{path}: {exc}") from exc
    with tempfile.TemporaryDirectory(prefix="patchwright-write-") as folder:
        draft = Path(folder) / Path(path).name
        draft.write_text(old, encoding="utf-8")
        while True:
            if not chat.ui.edit(draft):
                raise CommandError("no editor could run; set $EDITOR (e.g. export EDITOR=nano)")
            new = draft.read_text(encoding="utf-8")
            if new == old:
                chat.ui.console.print("no change")
                return
            problems = _verify_and_keep(chat, path, old, new)
            if not problems:
                return
            chat.ui.console.print("[bold red]your edit fails the gates; nothing was written:[/]")
            chat.ui.console.print(problems, markup=False)
            if not chat.ui.confirm("Edit it again?", default=True):
                return


def _verify_and_keep(chat: ChatParts, path: str, old: str, new: str) -> str:
    """Write the edit as a transaction, run the gates against a baseline taken first; keep
    (undoable, committed in git unless --no-commit) or roll back. Returns the problems."""
    state = chat.state
    session = state.session
    test_cmd = (
        state.options.test_cmd or state.settings.run.test_cmd or detect_test_command(state.root)
    )
    git = state.git()
    dirty = git is not None and bool(git.dirty_files([path]))  # your own uncommitted work
    chat.ui.console.print("[dim]· checking the tests before your edit…[/]")
    baseline = take_baseline(state.root, session.sandbox, test_cmd=test_cmd)
    txn = Transaction(state.root)
    txn.stage({path: new.encode("utf-8")})
    try:
        txn.write()
        chat.ui.console.print("[dim]· running the gates on your edit…[/]")
        results = run_gates(
            state.root, session.sandbox, baseline, touched=[path], test_cmd=test_cmd
        )
        if not all(r.ok for r in results):
            txn.rollback()
            return summarize_failures(results) or "a gate failed"
        txn.commit(f"/write {path}")
    except BaseException:
        txn.rollback()
        raise
    diff = file_diff(path, old, new)
    show_diff(chat, diff)
    commit = None if dirty else _commit(state, path)
    chat.ui.console.print(
        f"[green]kept[/] {escape(path)}" + (f", committed {commit[:12]}" if commit else "")
    )
    state.record(
        "task",
        outcome="solved",
        files=[path],
        commit=commit,
        reason="your edit (/write)",
        diff=diff,
    )
    return ""


def _commit(state: ChatState, path: str) -> str | None:
    git = state.git()
    if git is None or state.options.no_commit or not state.settings.run.commit:
        return None
    try:
        return git.commit(f"chore({Path(path).stem}): edit {path} by hand", [path])
    except GitError:
        return None
