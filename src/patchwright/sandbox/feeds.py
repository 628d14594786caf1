"""What the policy can know of a line's data, without running anything.

- A word's value after the substitutions whose output is plain to see: ``$(printf rm)`` is
  ``rm``, ``$(echo ..)`` is ``..``, ``$X`` is what the line assigned to ``X``.
- What a command reads on stdin: a heredoc, a here-string, or the output of ``echo``,
  ``printf`` or ``cat <<EOF`` upstream in its pipeline. A shell reading a script there
  (``cat <<EOF | bash``) runs that script, and ``xargs`` turns it into arguments.

Anything else (a file, a program's output) is unknown: ``None``.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from patchwright.sandbox.rules import Context, expand_vars, unwrap
from patchwright.sandbox.shellparse import Command, ShellSyntaxError, Word, parse

_MAX_DEPTH = 4
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f"}
_CONVERSION = re.compile(r"%([-+ #0]*[0-9]*(?:\.[0-9]*)?)([a-zA-Z%])")


def _unescape(text: str) -> str:
    """``\\n``, ``\\t``, ``\\x72``, ``\\0162``... as ``echo -e`` and ``printf`` read them."""

    def one(match: re.Match[str]) -> str:
        if match.group(1):
            return chr(int(match.group(1), 16))
        if match.group(2):
            return chr(int(match.group(2), 8))
        return _ESCAPES.get(match.group(3), match.group(0))

    return re.sub(r"\\x([0-9a-fA-F]{1,2})|\\0?([0-7]{1,3})|\\(.)", one, text)


def expand_word(word: Word, ctx: Context, depth: int = 0) -> list[str]:
    """The word after substitutions with a known output and known variables; an unquoted
    word that changed is split on whitespace, as the shell does."""
    text = word.text
    for inner in word.subs:
        value = output_of(inner, ctx, depth + 1)
        if value is not None:
            value = value.rstrip("\n")
            text = text.replace(f"$({inner})", value).replace(f"`{inner}`", value)
    text = expand_vars(text, ctx)
    if text != word.text and not word.quoted and not _ASSIGNMENT.match(word.text):
        return text.split()
    return [text]


def expand_argv(command: Command, ctx: Context, depth: int = 0) -> list[str]:
    """The command's words, expanded (see ``expand_word``)."""
    return [part for word in command.words for part in expand_word(word, ctx, depth)]


def expand_command(command: Command, ctx: Context, depth: int = 0) -> Command:
    """A copy of ``command`` with expanded words and redirection targets."""
    words = [Word(text, quoted=True) for text in expand_argv(command, ctx, depth)]
    redirects = [
        (op, Word(" ".join(expand_word(word, ctx, depth)), word.subs, word.quoted, word.heredoc))
        for op, word in command.redirects
    ]
    return replace(command, words=words, redirects=redirects)


def output_of(line: str, ctx: Context, depth: int = 0) -> str | None:
    """What ``line`` prints, when every command in it prints something plain to see."""
    if depth > _MAX_DEPTH:
        return None
    try:
        commands = parse(line)
    except ShellSyntaxError:
        return None
    outputs = []
    for command in commands:
        if command.pipes_into:
            continue  # its output goes to the next command, not to the line's
        out = command_output(command, ctx, depth)
        if out is None:
            return None
        outputs.append(out)
    return "".join(outputs)


def command_output(command: Command, ctx: Context, depth: int = 0) -> str | None:
    """What one simple command prints: ``echo``, ``printf``, ``cat`` of a known stdin."""
    argv = unwrap(expand_argv(command, ctx, depth))
    if not argv:
        return None
    name, args = os.path.basename(argv[0]), argv[1:]
    if name == "echo":
        return _echo(args)
    if name == "printf":
        return printf(args)
    if name == "cat" and all(a == "-" for a in args):
        return stdin_text(command, ctx, depth)
    if name in ("true", ":"):
        return ""
    return None


def stdin_text(command: Command, ctx: Context, depth: int = 0) -> str | None:
    """What ``command`` reads on stdin, when it is plain to see."""
    for op, word in reversed(command.redirects):
        if op in ("<<", "<<-"):
            return word.heredoc
        if op == "<<<":
            return " ".join(expand_word(word, ctx, depth)) + "\n"
        if op in ("<", "<>", "<&"):
            return None
    if command.piped_from is not None:
        return command_output(command.piped_from, ctx, depth)
    return None


def _echo(args: list[str]) -> str:
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        newline = newline and "n" not in args[0]
        escapes = "e" in args[0] or (escapes and "E" not in args[0])
        args = args[1:]
    text = " ".join(args)
    return (_unescape(text) if escapes else text) + ("\n" if newline else "")


def printf(args: list[str]) -> str | None:
    """``printf FORMAT ARGS...`` for the conversions a path or a command name can come from."""
    if args[:1] == ["--"]:
        args = args[1:]
    if not args or args[0] == "-v":
        return "" if args else None
    fmt, rest = _unescape(args[0]), args[1:]
    out: list[str] = []
    for _ in range(100):
        text, used = _format_once(fmt, rest)
        out.append(text)
        rest = rest[used:]
        if not rest or not used:
            break
    return "".join(out)


def _format_once(fmt: str, args: list[str]) -> tuple[str, int]:
    """One pass of ``fmt`` over ``args``: the text, and how many arguments it used."""
    out: list[str] = []
    used = end = 0
    for match in _CONVERSION.finditer(fmt):
        out.append(fmt[end : match.start()])
        end = match.end()
        if match.group(2) == "%":
            out.append("%")
            continue
        value = args[used] if used < len(args) else ""
        used += 1
        out.append(_unescape(value) if match.group(2) == "b" else value)
    out.append(fmt[end:])
    return "".join(out), used


def xargs_inputs(command: Command, ctx: Context, depth: int = 0) -> list[str] | None:
    """The words ``xargs`` reads: a known stdin split on blanks, or for ``find ROOTS | xargs``
    one path inside each root; None when unknown."""
    text = stdin_text(command, ctx, depth)
    if text is not None:
        return text.split()
    upstream = command.piped_from
    if upstream is not None:
        argv = unwrap(upstream.argv)
        if argv and os.path.basename(argv[0]) == "find":
            roots = []
            for arg in argv[1:]:
                if arg.startswith(("-", "(", "!")):
                    break
                roots.append(arg)
            return [root.rstrip("/") + "/x" for root in roots or ["."]]
    return None
