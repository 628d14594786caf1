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


def main() -> None:
    """Entry point of the console script."""
    sys.exit(app())  # typer handles its own exit codes; usage errors exit 2


if __name__ == "__main__":
    main()
