"""The ``patchwright`` command: parses flags and dispatches to a mode or a plumbing command."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer

import patchwright
from patchwright import commands

app = typer.Typer(
    name="patchwright",
    help="An autonomous coding agent: finds the code, edits it surgically, proves it, commits.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # help text is plain: "[agent] strategy" names a config section, not rich markup
    rich_markup_mode="markdown",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"patchwright {patchwright.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """patchwright: point it at a repository and a task."""


def _register_commands() -> None:
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if callable(register):
            register(app)


_register_commands()


def chat_argv(argv: list[str], *, terminal: bool) -> list[str]:
    """The arguments as the CLI should see them: no subcommand means the chat — ``patchwright``
    alone in a terminal (without one it prints help and exits 0), or only chat flags
    (``patchwright --model M``); ``--resume`` without an id means the newest session."""
    args = list(argv)
    if not args:
        return ["chat"] if terminal else ["--help"]
    if args[0].startswith("-") and args[0] not in ("--help", "-h", "--version"):
        args.insert(0, "chat")
    if args[0] in ("chat", "tui"):
        for i, arg in enumerate(args):
            if arg in ("--resume", "-r") and (i + 1 == len(args) or args[i + 1].startswith("-")):
                args[i] = "--resume="
    return args


def main() -> None:
    """Entry point of the console script."""
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    args = chat_argv(sys.argv[1:], terminal=terminal)
    try:
        sys.exit(app(args=args))  # typer handles its own exit codes; usage errors exit 2
    except Exception as exc:  # patchwright's own bug: say so, keep the traceback
        from patchwright.crash import report_crash

        sys.exit(report_crash(exc, args))


if __name__ == "__main__":
    main()
