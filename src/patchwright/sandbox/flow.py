"""How a line changes what later commands' paths mean: ``cd``, assignments, ``ln -s``.

``cd .. && rm -rf x`` removes the parent's ``x``; ``ln -s ~ h; rm -rf h/`` removes the home;
``X=..; rm -rf $X`` removes the parent. The policy judges each command under every
context it may run in, and this module says what a command leaves behind:

- a ``cd`` or an assignment in the line's own shell holds for the commands after it; one
  in a subshell, pipeline, background job or function body may or may not (both kept);
- a command after ``&&`` runs only if everything before it in the chain succeeded, so it
  sees the chain's changes; after ``;``, ``||`` or ``|`` a ``cd`` in the chain may have
  failed, so the directory before it is kept too (an assignment cannot fail);
- a variable the line also binds another way (``for X in``, ``read X``...) is unknown.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from patchwright.sandbox.rules import Context, _operands, target_path, unwrap

MAX_STATES = 8
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
_DECLARERS = frozenset({"export", "readonly", "declare", "typeset", "local"})
_REBINDERS = re.compile(
    r"\b(?:for|select)\s+([A-Za-z_]\w*)"
    r"|\b(?:read|mapfile|readarray|getopts|printf\s+-v)\b([^;&|\n]*)"
    r"|\b([A-Za-z_]\w*)\+="
    r"|\(\(([^)]*)\)\)|\blet\b([^;&|\n]*)"
)


def rebound_names(line: str) -> frozenset[str]:
    """Names the line binds other than by ``NAME=value`` (loops, ``read``, ``+=``...)."""
    names: set[str] = set()
    for match in _REBINDERS.finditer(line):
        for group in match.groups():
            if group:
                names.update(re.findall(r"[A-Za-z_]\w*", group))
    return frozenset(names)


def forget(states: Sequence[Context], names: Iterable[str]) -> list[Context]:
    """The states with ``names`` made unknown."""
    gone = frozenset(names)
    if not gone:
        return list(states)
    return unique(
        replace(c, vars=(*c.vars, *((n, None) for n in sorted(gone) if c.var(n) is not None)))
        for c in states
    )


def for_child_shell(states: Sequence[Context]) -> list[Context]:
    """What a ``bash -c`` sees: the same directory and links, but no known variables
    (an unexported one is empty there, an exported one may have changed)."""
    return unique(
        replace(c, vars=tuple((name, None) for name, _ in c.vars) if c.vars else ()) for c in states
    )


def directories(states: Iterable[Context]) -> set[tuple[Path | None, bool]]:
    """Where the states' shells are (a ``cd`` that fails leaves the shell where it was)."""
    return {(c.cwd, c.cwd_known) for c in states}


def unique(states: Iterable[Context]) -> list[Context]:
    """Distinct states, in order; past ``MAX_STATES`` one state that knows no directory."""
    found = list(dict.fromkeys(states))
    if len(found) <= MAX_STATES:
        return found
    links = tuple(dict.fromkeys(link for c in found for link in c.links))
    first = found[0]
    return [Context(first.root, first.home, cwd_known=False, links=links, git_dirs=first.git_dirs)]


def step(argv: list[str], ctx: Context, rebound: frozenset[str] = frozenset()) -> Context:
    """The state after a command with (expanded) ``argv`` ran in ``ctx``."""
    if argv and all(_ASSIGNMENT.match(a) for a in argv):
        return _assign(ctx, argv, rebound)
    inner = unwrap(argv)
    if not inner:
        return ctx
    name, args = os.path.basename(inner[0]), inner[1:]
    if name in _DECLARERS:
        return _assign(ctx, [a for a in args if _ASSIGNMENT.match(a)], rebound)
    if name in ("cd", "pushd", "popd", "chdir"):
        return _cd(ctx, name, args)
    if name == "ln":
        return _ln(ctx, args)
    if name in ("mv", "cp"):
        return _carry_links(ctx, args)
    return ctx


def _assign(ctx: Context, words: list[str], rebound: frozenset[str]) -> Context:
    pairs = []
    for word in words:
        match = _ASSIGNMENT.match(word)
        if match is not None:
            name, value = match.group(1), match.group(2)
            known = name not in rebound and "$" not in value and "`" not in value
            pairs.append((name, value if known else None))
    return replace(ctx, vars=(*ctx.vars, *pairs)) if pairs else ctx


def as_directory(raw: str, ctx: Context) -> Path | None:
    """The directory ``raw`` names, links followed (as ``cd`` and a link's target do)."""
    return target_path(raw if raw.endswith("/") else raw + "/", ctx)


def _cd(ctx: Context, name: str, args: list[str]) -> Context:
    operands = [a for a in args if not (a.startswith("-") and a not in ("-", "--"))]
    operands = [a for a in operands if a != "--"]
    if name == "popd" or (name == "pushd" and not operands):
        return replace(ctx, cwd_known=False)
    raw = operands[0] if operands else "~"
    if raw == "-" or (name == "pushd" and raw[:1] in "+-"):
        return replace(ctx, cwd_known=False)
    path = as_directory(raw, ctx)
    if path is None:
        return replace(ctx, cwd_known=False)
    return replace(ctx, cwd=path, cwd_known=True)


def _link_target(raw: str, link: Path, ctx: Context) -> Path | None:
    """Where a link at ``link`` holding ``raw`` points (relative to the link's directory)."""
    return as_directory(raw, replace(ctx, cwd=link.parent, cwd_known=True))


def _ln(ctx: Context, args: list[str]) -> Context:
    options, operands = _operands(args)
    symbolic = any(o == "--symbolic" or (o[1:2] != "-" and "s" in o[1:]) for o in options)
    if not symbolic or not operands:
        return ctx
    into = [o.split("=", 1)[1] for o in options if o.startswith("--target-directory=")]
    if "-t" in args and args.index("-t") + 1 < len(args):
        into.append(args[args.index("-t") + 1])
        operands = [a for a in operands if a != into[-1]]
    if into:
        pairs = [(into[0].rstrip("/") + "/" + os.path.basename(t.rstrip("/")), t) for t in operands]
    elif len(operands) == 1:
        pairs = [(os.path.basename(operands[0].rstrip("/")) or ".", operands[0])]
    else:
        pairs = _link_pairs(ctx, options, operands)
    links = list(ctx.links)
    for link_raw, target_raw in pairs:
        link = target_path(link_raw, ctx)
        if link is not None:
            links.append((link, _link_target(target_raw, link, ctx)))
    return replace(ctx, links=tuple(links))


def _link_pairs(ctx: Context, options: list[str], operands: list[str]) -> list[tuple[str, str]]:
    """(link, target) for ``ln -s TARGET... LINK_OR_DIR``."""
    last = operands[-1]
    no_deref = any(o in ("-n", "-T", "--no-dereference", "--no-target-directory") for o in options)
    last_path = target_path(last, ctx)
    into_dir = len(operands) > 2 or (not no_deref and last_path is not None and last_path.is_dir())
    if not into_dir:
        return [(last, operands[0])]
    return [(last.rstrip("/") + "/" + os.path.basename(t.rstrip("/")), t) for t in operands[:-1]]


def _carry_links(ctx: Context, args: list[str]) -> Context:
    """``mv`` / ``cp`` of a link the line made: the copy points where the link did."""
    _, operands = _operands(args)
    if len(operands) < 2 or not ctx.links:
        return ctx
    dest = target_path(operands[-1], ctx)
    if dest is None:
        return ctx
    known = dict(ctx.links)
    links = list(ctx.links)
    for raw in operands[:-1]:
        src = target_path(raw, ctx)
        if src is not None and src in known:
            into = len(operands) > 2 or dest.is_dir()
            links.append((dest / src.name if into else dest, known[src]))
    return replace(ctx, links=tuple(links))
