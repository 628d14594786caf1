"""The command-danger policy: ``classify(cmd, root) -> Verdict``.

The command line is parsed (``shellparse``), never matched as a raw string: every simple
command — including those inside ``$(...)``, backticks, subshells, function bodies,
``bash -c '...'``, ``eval``, ``xargs`` and ``find -exec`` — is judged, and the line gets the
most severe verdict of its parts. ``forbidden`` never runs, whatever the approval mode;
``ask`` needs approval where the caller asks for it; everything else is ``safe``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from patchwright.sandbox import rules
from patchwright.sandbox.argv_rules import check_argv
from patchwright.sandbox.shellparse import Command, ShellSyntaxError, Word, parse
from patchwright.sandbox.verdict import SAFE, Verdict, worst

__all__ = ["SAFE", "Verdict", "classify", "program_names"]

_MAX_DEPTH = 8


def classify(cmd: str | Sequence[str], root: Path) -> Verdict:
    """Classify a shell line (``str``) or an argv (sequence) run with cwd ``root``."""
    ctx = rules.Context(root=Path(root).resolve(), home=Path(os.path.expanduser("~")).resolve())
    if isinstance(cmd, str):
        return _classify_line(cmd, ctx, 0)
    words = [Word(str(a), quoted=True) for a in cmd]
    if not words:
        return SAFE
    return _classify_command(Command(words=words), ctx, 0)


def _classify_line(line: str, ctx: rules.Context, depth: int) -> Verdict:
    if depth > _MAX_DEPTH:
        return Verdict("ask", "too-deep", "command nesting is too deep to analyse")
    try:
        commands = parse(line)
    except ShellSyntaxError as exc:
        return Verdict("ask", "unparsable", f"cannot parse the command line: {exc}")
    return worst([_classify_command(c, ctx, depth) for c in commands])


def _classify_command(command: Command, ctx: rules.Context, depth: int) -> Verdict:
    verdicts = [_classify_line(sub, ctx, depth + 1) for sub in command.subs]
    verdicts.append(rules.check_redirects(command, ctx))
    argv = rules.unwrap(command.argv)
    if argv:
        verdicts.append(rules.check_pipeline(command, argv))
        verdicts.append(rules.check_fork_bomb(command, argv))
        verdicts.extend(_nested(command, argv, ctx, depth))
        verdicts.append(check_argv(argv, ctx))
    return worst(verdicts)


def _nested(command: Command, argv: list[str], ctx: rules.Context, depth: int) -> list[Verdict]:
    """Commands hidden in arguments: ``sh -c``, ``eval``, ``xargs``, ``find -exec``."""
    found: list[Verdict] = []
    script = rules.shell_script(argv)
    if script is not None:
        found.append(_classify_line(script, ctx, depth + 1))
    for inner in rules.embedded_argvs(argv):
        words = [Word(a, quoted=True) for a in inner]
        found.append(_classify_command(Command(words=words), ctx, depth + 1))
    return found


def program_names(cmd: str | Sequence[str]) -> list[str]:
    """The names of the programs a line (or argv) runs at its top level, wrappers skipped."""
    if isinstance(cmd, str):
        try:
            argvs = [rules.unwrap(c.argv) for c in parse(cmd)]
        except ShellSyntaxError:
            return []
    else:
        argvs = [rules.unwrap([str(a) for a in cmd])]
    return [os.path.basename(argv[0]) for argv in argvs if argv]
