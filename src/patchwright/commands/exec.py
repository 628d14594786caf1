"""``patchwright exec``: run one command in the sandbox, as the agent's tools do."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

_EXIT_TIMEOUT = 124  # like coreutils timeout(1)
_EXIT_KILLED = 137
_EXIT_REFUSED = 2
_SHELL_CHARS = set(" \t\n;&|<>()$`*?[]{}~'\"\\#=")


def register(app: typer.Typer) -> None:
    @app.command(
        "exec",
        context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
    )
    def exec_command(
        command: list[str] = typer.Argument(
            ..., metavar="-- CMD [ARGS...]", help="The command; one argument is a shell line."
        ),
        repo: Path = typer.Option(Path("."), "--repo", help="Repository (the command's cwd)."),
        timeout: float | None = typer.Option(
            None, "--timeout", min=0.001, help="Seconds before the whole process group is killed."
        ),
        allow_net: bool = typer.Option(
            False, "--allow-net", help="Let the command use the network."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
    ) -> None:
        """Run CMD in the sandbox: own process group, rlimits, scrubbed env, no network.

        A single argument is run as a shell line (``bash -c``); several are an argv.
        Forbidden commands (sudo, rm -rf outside the repo, fork bombs, curl | sh, ...)
        are refused with exit code 2. Otherwise the exit code is the command's own
        (124 after a timeout, 137 when killed by a limit or signal).
        """
        from patchwright.agent.session import sandbox_for
        from patchwright.commands._recover import recover_first
        from patchwright.config import ConfigError
        from patchwright.trust_notice import settings_for

        root = repo.resolve()
        if not root.is_dir():
            typer.echo(f"error: --repo {repo} is not a directory", err=True)
            raise typer.Exit(_EXIT_REFUSED)
        recovered = recover_first(root)
        try:
            settings = settings_for(root, as_json=as_json).sandbox
        except ConfigError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(_EXIT_REFUSED) from exc
        cmd: str | list[str] = command
        if len(command) == 1 and _SHELL_CHARS & set(command[0]):
            cmd = command[0]
        sandbox = sandbox_for(settings, root, allow_net=allow_net)
        try:
            result = sandbox.run(cmd, timeout=timeout or settings.timeout)
        finally:
            sandbox.close()
        if as_json:
            payload = json.loads(result.to_json())
            typer.echo(json.dumps({**payload, "recovered": recovered} if recovered else payload))
        else:
            sys.stdout.write(result.stdout)
            sys.stdout.flush()
            sys.stderr.write(result.stderr)
            sys.stderr.flush()
        raise typer.Exit(_exit_code(result.exit_code, result.timed_out, result.blocked_by))


def _exit_code(code: int | None, timed_out: bool, blocked_by: str | None) -> int:
    if code is not None:
        return code
    if blocked_by is not None and blocked_by.startswith("policy:"):
        return _EXIT_REFUSED
    return _EXIT_TIMEOUT if timed_out else _EXIT_KILLED
