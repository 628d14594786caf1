"""The individual policy rules, each judging one simple command (see ``policy``)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from patchwright.sandbox.shellparse import Command, ShellSyntaxError, parse
from patchwright.sandbox.verdict import SAFE, Verdict, ask, forbid, worst

PRIVILEGE = frozenset({"sudo", "su", "doas", "pkexec", "runuser", "sudoedit"})
SHUTDOWN = frozenset({"shutdown", "reboot", "halt", "poweroff", "kexec"})
DISK_TOOLS = frozenset({"mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "blkdiscard"})
FETCHERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh"})
NET_TOOLS = FETCHERS | {
    "ssh", "scp", "sftp", "nc", "ncat", "netcat", "telnet", "ftp", "socat", "nmap", "mosh",
}  # fmt: skip
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "fish"})
INTERPRETERS = SHELLS | {"python", "python3", "perl", "ruby", "node", "php"}
SAFE_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})

_INSTALL_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "pip": frozenset({"install", "uninstall", "download", "wheel"}),
    "pipx": frozenset({"install", "run", "inject", "upgrade"}),
    "uv": frozenset({"add", "remove", "sync", "pip", "tool", "run"}),
    "poetry": frozenset({"add", "install", "remove", "update"}),
    "pdm": frozenset({"add", "install", "remove", "update", "sync"}),
    "conda": frozenset({"install", "create", "update", "remove"}),
    "mamba": frozenset({"install", "create", "update", "remove"}),
    "npm": frozenset({"install", "i", "ci", "add", "update", "uninstall", "exec"}),
    "pnpm": frozenset({"install", "i", "add", "update", "remove", "dlx"}),
    "yarn": frozenset({"install", "add", "upgrade", "remove", "dlx"}),
    "bun": frozenset({"install", "i", "add", "update", "remove"}),
    "apt": frozenset({"install", "remove", "purge", "upgrade", "full-upgrade", "update"}),
    "apt-get": frozenset({"install", "remove", "purge", "upgrade", "dist-upgrade", "update"}),
    "aptitude": frozenset({"install", "remove", "purge", "upgrade"}),
    "dnf": frozenset({"install", "remove", "upgrade", "update"}),
    "yum": frozenset({"install", "remove", "upgrade", "update"}),
    "zypper": frozenset({"install", "in", "remove", "update"}),
    "apk": frozenset({"add", "del", "upgrade"}),
    "brew": frozenset({"install", "uninstall", "upgrade", "tap"}),
    "snap": frozenset({"install", "remove"}),
    "cargo": frozenset({"install", "add"}),
    "gem": frozenset({"install", "uninstall", "update"}),
    "go": frozenset({"install", "get"}),
    "composer": frozenset({"install", "require", "update"}),
}


@dataclass(frozen=True)
class Context:
    """Where the command runs: the repository root (its cwd) and the real home."""

    root: Path
    home: Path


def _base(name: str) -> str:
    return os.path.basename(name)


def _is_within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def target_path(raw: str, ctx: Context) -> Path | None:
    """The absolute path a command argument names, or None when it depends on a variable.

    ``~`` and ``$HOME`` expand to the real home; a bare ``*`` or a variable cuts the path
    there (``/*`` and ``/etc/$x`` reach into ``/`` and ``/etc``); existing symlinks in the parent are resolved (the last component
    is resolved only with a trailing slash, as ``rm`` and ``cp`` do).
    """
    text = raw
    if text == "~" or text.startswith("~/"):
        text = str(ctx.home) + text[1:]
    for var in ("${HOME}", "$HOME"):
        if text.startswith(var):
            text = str(ctx.home) + text[len(var) :]
    if text.startswith(("$", "`", "~")):
        return None
    parts = text.split("/")
    for index, part in enumerate(parts):
        if "$" in part or "`" in part or (part and part.strip("*") == ""):
            parts = parts[:index]  # ``/etc/$x`` and ``/*`` both reach into the parent
            break
    cut = "/".join(parts)
    if text.startswith("/") and not cut:
        cut = "/"
    path = Path(os.path.normpath(ctx.root / cut)) if cut else ctx.root
    try:
        if raw.endswith("/") or path.name in ("", ".", ".."):
            return path.resolve()
        return path.parent.resolve() / path.name
    except (OSError, RuntimeError):
        return path


def _outside(path: Path, ctx: Context) -> bool:
    return not _is_within(path, ctx.root)


def _precious(path: Path, ctx: Context) -> bool:
    """``/``, the home directory, or any ancestor of the home or of the repository."""
    return path in (Path("/"), ctx.home) or path in ctx.home.parents or path in ctx.root.parents


def _write_target(raw: str, ctx: Context) -> Verdict:
    """Judge a path the command will write to."""
    path = target_path(raw, ctx)
    if path is None:
        return SAFE
    text = str(path)
    if text.startswith("/dev/") and text not in SAFE_DEVICES and not text.startswith("/dev/fd/"):
        return forbid("write-to-device", f"writes to the device {text}")
    if text in SAFE_DEVICES or text.startswith("/dev/fd/"):
        return SAFE
    if _outside(path, ctx):
        return ask("write-outside-repo", f"writes to {text}, outside the repository")
    return SAFE


def unwrap(argv: list[str]) -> list[str]:
    """Drop leading ``VAR=value`` words and wrappers (env, nohup, nice, timeout, ...)."""
    args = list(argv)
    while args:
        while args and _ASSIGNMENT.match(args[0]):
            args.pop(0)
        if not args:
            return []
        name = _base(args[0])
        if name in ("nohup", "builtin", "setsid", "unbuffer", "time", "exec", "stdbuf"):
            args = _drop_options(args[1:], with_value={"-a", "-i", "-o", "-e"})
        elif name == "env":
            args = _drop_options(args[1:], with_value={"-u", "--unset", "-C", "--chdir", "-S"})
        elif name in ("nice", "ionice"):
            args = _drop_options(args[1:], with_value={"-n", "-c", "-p", "--adjustment"})
        elif name == "timeout":
            rest = _drop_options(args[1:], with_value={"-s", "-k", "--signal", "--kill-after"})
            args = rest[1:]
        elif name == "command":
            if len(args) > 1 and args[1] in ("-v", "-V"):
                return []
            args = _drop_options(args[1:], with_value=set())
        else:
            return args
    return []


def _drop_options(args: list[str], with_value: set[str]) -> list[str]:
    """Skip leading options (and the values of those in ``with_value``)."""
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            return args[i + 1 :]
        i += 2 if args[i] in with_value else 1
    return args[i:]


def _operands(args: list[str]) -> tuple[list[str], list[str]]:
    """(options, operands), honouring ``--``."""
    options: list[str] = []
    operands: list[str] = []
    rest = False
    for arg in args:
        if rest or not arg.startswith("-") or arg == "-":
            operands.append(arg)
        elif arg == "--":
            rest = True
        else:
            options.append(arg)
    return options, operands


def _has_flag(options: list[str], short: str, long: str) -> bool:
    return any(o == long or (not o.startswith("--") and short in o[1:]) for o in options)


def shell_script(argv: list[str]) -> str | None:
    """The script of ``bash -c 'SCRIPT'`` / ``eval ARGS``, else None."""
    name = _base(argv[0])
    if name == "eval":
        return " ".join(argv[1:])
    if name not in SHELLS:
        return None
    for i, arg in enumerate(argv[1:], start=1):
        if not arg.startswith("-") or arg.startswith("--"):
            continue
        if "c" in arg[1:]:
            rest = [a for a in argv[i + 1 :] if not a.startswith("-")]
            return rest[0] if rest else ""
    return None


def fetches(line: str) -> bool:
    """True when ``line`` runs a network fetcher (curl, wget, ...)."""
    try:
        commands = parse(line)
    except ShellSyntaxError:
        return False
    return any(unwrap(c.argv)[:1] and _base(unwrap(c.argv)[0]) in FETCHERS for c in commands)


def embedded_argvs(argv: list[str]) -> Iterator[list[str]]:
    """Commands run by ``xargs CMD`` and ``find ... -exec CMD ;`` / ``-delete``."""
    name = _base(argv[0])
    if name == "xargs":
        values = {"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "-i"}
        inner = _drop_options(argv[1:], with_value=values)
        yield inner or ["echo"]
    elif name == "find":
        roots: list[str] = []
        for arg in argv[1:]:
            if arg.startswith(("-", "(", "!")):
                break
            roots.append(arg)
        roots = roots or ["."]
        args = argv[1:]
        for i, arg in enumerate(args):
            if arg in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next((j for j in range(i + 1, len(args)) if args[j] in (";", "+")), len(args))
                for root in roots:
                    yield [a.replace("{}", root.rstrip("/") + "/x") for a in args[i + 1 : end]]
            elif arg == "-delete":
                for root in roots:
                    yield ["rm", "-r", root.rstrip("/") + "/x"]


def check_pipeline(command: Command, argv: list[str]) -> Verdict:
    """``curl … | sh``, ``sh <(curl …)`` and ``bash -c "$(curl …)"``."""
    if _base(argv[0]) not in INTERPRETERS:
        return SAFE
    upstream = command.piped_from
    while upstream is not None:
        inner = unwrap(upstream.argv)
        if inner and _base(inner[0]) in FETCHERS:
            return forbid("curl-pipe-shell", "pipes a script fetched from the network into a shell")
        upstream = upstream.piped_from
    if any(fetches(sub) for sub in command.subs):
        return forbid("curl-pipe-shell", "runs a script fetched from the network")
    return SAFE


def check_fork_bomb(command: Command, argv: list[str]) -> Verdict:
    """A function that calls itself in a pipeline or in the background."""
    recursive = command.function is not None and argv[0] == command.function
    if recursive and (command.pipes_into or command.piped_from or command.background):
        return forbid("fork-bomb", f"function {command.function!r} spawns copies of itself")
    return SAFE


def check_redirects(command: Command, ctx: Context) -> Verdict:
    """Output redirections to files outside the repository or to devices."""
    verdicts = []
    for op, word in command.redirects:
        if op in _WRITE_REDIRECTS and not (
            op == ">&" and (word.text.isdigit() or word.text == "-")
        ):
            verdicts.append(_write_target(word.text, ctx))
    return worst(verdicts)
