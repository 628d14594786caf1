"""CLI subcommands, one module each.

Every module here defines ``register(app: typer.Typer) -> None``; ``patchwright.cli``
discovers them, so adding a command never touches the others. Command modules import
heavy packages inside the command function, never at module level, so that
``patchwright --help`` stays fast.
"""
