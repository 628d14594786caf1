"""The command-danger policy: ``classify(cmd, root) -> Verdict``.

The command line is parsed (``shellparse``), never matched as a raw string: every simple
command — including those inside ``$(...)``, backticks, subshells, function bodies,
``bash -c '...'``, ``eval``, ``xargs``, ``find -exec`` and scripts fed to a shell on stdin
(``cat <<EOF | bash``) — is judged, and the line gets the most severe verdict of its
parts. Words are judged after the substitutions whose output is plain to see
(``$(printf rm) -rf ..`` is ``rm -rf ..``), and paths from where the line's own ``cd``s
and ``ln -s``s leave them (``flow``). ``forbidden`` never runs, whatever the approval
mode; ``ask`` needs approval where the caller asks for it; everything else is ``safe``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from patchwright.sandbox import feeds, flow, rules
from patchwright.sandbox.argv_rules import check_argv
from patchwright.sandbox.gitdirs import git_dirs
from patchwright.sandbox.shellparse import Command, ShellSyntaxError, Word, parse
from patchwright.sandbox.verdict import SAFE, Verdict, ask, worst

__all__ = ["SAFE", "Verdict", "classify", "program_names"]

_MAX_DEPTH = 8
# a command whose name is computed and not plain to see is judged as each of these
_STAND_INS = ("rm", "chmod", "mv")
_SOURCES = frozenset({"eval", "source", "."})  # run a script in the line's own shell


def classify(cmd: str | Sequence[str], root: Path) -> Verdict:
    """Classify a shell line (``str``) or an argv (sequence) run with cwd ``root``."""
    root = Path(root).resolve()
    gits = {root / ".git", *(p.resolve() for p in git_dirs(root))}
    home = Path(os.path.expanduser("~")).resolve()
    ctx = rules.Context(root=root, home=home, git_dirs=tuple(sorted(gits)))
    if isinstance(cmd, str):
        return _classify_line(cmd, [ctx], 0)[0]
    words = [Word(str(a), quoted=True) for a in cmd]
    if not words:
        return SAFE
    return _classify_command(Command(words=words), ctx, 0)[0]


def _classify_line(
    line: str, states: list[rules.Context], depth: int
) -> tuple[Verdict, list[rules.Context]]:
    """The line's verdict, and the states it may leave its shell in (see ``flow``)."""
    if depth > _MAX_DEPTH:
        return ask("too-deep", "command nesting is too deep to analyse"), states
    try:
        commands = parse(line)
    except ShellSyntaxError as exc:
        return ask("unparsable", f"cannot parse the command line: {exc}"), states
    rebound = flow.rebound_names(line)
    current = flow.forget(states, rebound)
    fallbacks: list[rules.Context] = []  # where the ``&&`` chain stops if a ``cd`` fails
    verdicts = []
    for command in commands:
        after: list[rules.Context] = []
        for ctx in current:
            verdict, leaves = _classify_command(command, ctx, depth, rebound)
            verdicts.append(verdict)
            after += leaves
        if not command.in_current_shell:
            after = [*current, *after]
        elif flow.directories(after) != flow.directories(current):
            fallbacks += current
        current = flow.unique(after)
        if command.next_op != "&&":
            current, fallbacks = flow.unique([*fallbacks, *current]), []
    return worst(verdicts), current


def _classify_command(
    command: Command, ctx: rules.Context, depth: int, rebound: frozenset[str] = frozenset()
) -> tuple[Verdict, list[rules.Context]]:
    """One simple command's verdict in ``ctx``, and the states it leaves behind."""
    verdicts = [_classify_line(sub, [ctx], depth + 1)[0] for sub in command.subs]
    expanded = feeds.expand_command(command, ctx, depth)
    verdicts.append(rules.check_redirects(expanded, ctx))
    leaves = [flow.step(expanded.argv, ctx, rebound)]
    argv = rules.unwrap(expanded.argv)
    if argv:
        verdicts.append(rules.check_pipeline(command, argv))
        verdicts.append(rules.check_fork_bomb(command, argv))
        nested, sourced = _nested(command, argv, ctx, depth)
        verdicts.extend(nested)
        leaves = sourced if sourced is not None else leaves
        verdicts.append(_check_named(argv, ctx))
    return worst(verdicts), leaves


def _check_named(argv: list[str], ctx: rules.Context) -> Verdict:
    """``check_argv``; a command name that is computed (``$X -rf ..``) is judged as each
    destructive command it could be."""
    if "$" in argv[0] or "`" in argv[0]:
        return worst([check_argv([name, *argv[1:]], ctx) for name in _STAND_INS])
    return check_argv(argv, ctx)


def _nested(
    command: Command, argv: list[str], ctx: rules.Context, depth: int
) -> tuple[list[Verdict], list[rules.Context] | None]:
    """Commands hidden in arguments or input: ``sh -c``, ``eval``, a script on stdin,
    ``xargs``, ``find -exec``. Also the states a sourced script (``eval``, ``.``) leaves."""
    found: list[Verdict] = []
    sourced = None
    name = os.path.basename(argv[0])
    script = rules.shell_script(argv)
    if script is None:
        script = _script_from_input(command, argv, ctx, depth)
    if script is not None and name in _SOURCES:
        verdict, sourced = _classify_line(script, [ctx], depth + 1)
        found.append(verdict)
    elif script is not None:
        found.append(_classify_line(script, flow.for_child_shell([ctx]), depth + 1)[0])
    inputs = feeds.xargs_inputs(command, ctx, depth) if name == "xargs" else None
    for inner in rules.embedded_argvs(argv, inputs):
        words = [Word(a, quoted=True) for a in inner]
        found.append(_classify_command(Command(words=words), ctx, depth + 1)[0])
    return found, sourced


def _script_from_input(
    command: Command, argv: list[str], ctx: rules.Context, depth: int
) -> str | None:
    """The script a shell reads from stdin (``cat <<EOF | bash``, ``bash <<< '...'``,
    ``echo ... | sh -s``) or from ``<(...)`` (``bash <(echo ...)``, ``source <(...)``)."""
    name = os.path.basename(argv[0])
    if name not in rules.SHELLS and name not in _SOURCES:
        return None
    options = [a for a in argv[1:] if a.startswith(("-", "+")) and a not in ("-", "--")]
    operands = [a for a in argv[1:] if a not in options and a != "--"]
    first = operands[0] if operands else None
    if first is not None and first.startswith("<(") and first.endswith(")"):
        return feeds.output_of(first[2:-1], ctx, depth + 1)
    reads_stdin = first in (None, "-", "/dev/stdin") or any(
        o.startswith("-") and not o.startswith("--") and "s" in o for o in options
    )
    if (name in rules.SHELLS and reads_stdin) or first in ("-", "/dev/stdin"):
        return feeds.stdin_text(command, ctx, depth)
    return None


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
