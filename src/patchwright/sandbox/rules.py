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
    """What a command's paths mean at its place in the line.

    ``root`` is the repository, ``home`` the real home; ``cwd`` is where earlier ``cd``s
    left the shell (``None``: somewhere unknown, after ``cd $X``); ``links`` are symlinks
    made earlier in the line (``ln -s``; the target ``None`` when it is unknown), ``vars``
    the variables assigned earlier (``None``: unknown), ``git_dirs`` where the repository
    keeps its git directories.
    """

    root: Path
    home: Path
    cwd: Path | None = None
    cwd_known: bool = True
    links: tuple[tuple[Path, Path | None], ...] = ()
    vars: tuple[tuple[str, str | None], ...] = ()
    git_dirs: tuple[Path, ...] = ()

    @property
    def base(self) -> Path | None:
        """The directory relative paths start from, or None when it is unknown."""
        if not self.cwd_known:
            return None
        return self.cwd if self.cwd is not None else self.root

    def var(self, name: str) -> str | None:
        """The value assigned to ``name`` earlier in the line, if known."""
        for key, value in reversed(self.vars):
            if key == name:
                return value
        return None


def _base(name: str) -> str:
    return os.path.basename(name)


def _is_within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def expand_vars(text: str, ctx: Context) -> str:
    """``$X`` / ``${X}`` replaced where the line assigned them a known value; ``$HOME``."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name == "HOME":
            return str(ctx.home)
        known = ctx.var(name)
        return known if known is not None else match.group(0)

    return _VAR.sub(value, text)


def target_path(raw: str, ctx: Context) -> Path | None:
    """The absolute path a command argument names, or None when it depends on a variable.

    ``~`` and ``$HOME`` expand to the real home, variables the line assigned to their
    value; a bare ``*`` or an unknown variable cuts the path there (``/*`` and ``/etc/$x``
    reach into ``/`` and ``/etc``). Relative paths start from the line's working directory
    (after its ``cd``s), links the line made (``ln -s``) are followed, and existing
    symlinks in the parent are resolved (the last component only when the path reaches
    into it: a trailing slash or a cut, as ``rm`` and ``cp`` do).
    """
    text = raw
    if text == "~" or text.startswith("~/"):
        text = str(ctx.home) + text[1:]
    text = expand_vars(text, ctx)
    if text.startswith(("$", "`", "~")):
        return None
    parts = text.split("/")
    cut_short = False
    for index, part in enumerate(parts):
        if "$" in part or "`" in part or (part and part.strip("*") == ""):
            parts, cut_short = parts[:index], True  # ``/etc/$x`` and ``/*`` reach into the parent
            break
    cut = "/".join(parts)
    if text.startswith("/") and not cut:
        cut = "/"
    base = ctx.base
    if base is None and not cut.startswith("/"):
        return None
    start = base if base is not None else Path("/")
    path = Path(os.path.normpath(start / cut)) if cut else start
    reaching = cut_short or raw.endswith("/") or raw.rsplit("/", 1)[-1] in ("", ".", "..")
    followed = follow_links(path, ctx.links, reaching)
    if followed is None:
        return None
    try:
        if reaching or followed.name in ("", ".."):
            return followed.resolve()
        return followed.parent.resolve() / followed.name
    except (OSError, RuntimeError):
        return followed


def follow_links(
    path: Path, links: tuple[tuple[Path, Path | None], ...], reaching: bool
) -> Path | None:
    """``path`` with the links the line made followed (the last one only when ``reaching``
    into it); None when it goes through a link to an unknown target."""
    for _ in range(16):
        for link, dest in reversed(links):
            if link in path.parents or (path == link and reaching):
                if dest is None:
                    return None
                path = dest / path.relative_to(link)
                break
        else:
            return path
    return path


def in_git_dir(path: Path, ctx: Context) -> bool:
    """True when ``path`` is in one of the repository's git directories."""
    return any(_is_within(path, d) for d in ctx.git_dirs)


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
    if in_git_dir(path, ctx):
        return git_dir_write(path)
    if _outside(path, ctx):
        return ask("write-outside-repo", f"writes to {text}, outside the repository")
    return SAFE


def git_dir_write(path: Path) -> Verdict:
    return ask(
        "write-git-dir",
        f"writes to {path}, inside the git directory (config and hooks there run as code)",
    )


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


XARGS_UNKNOWN = "$XARGS_INPUT"  # what xargs appends when its input is not plain to see
_XARGS_VALUES = frozenset({"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a"})


def _xargs(argv: list[str], inputs: list[str] | None) -> Iterator[list[str]]:
    """The commands ``xargs`` runs, with ``inputs`` (its stdin's words) as arguments."""
    replace_str = None
    i = 1
    while i < len(argv) and argv[i].startswith("-") and argv[i] not in ("-", "--"):
        arg = argv[i]
        if arg == "-I" and i + 1 < len(argv):
            replace_str = argv[i + 1]
        elif arg.startswith("-I"):
            replace_str = arg[2:]
        elif arg in ("-i", "--replace") or arg.startswith(("--replace=", "-i")):
            replace_str = arg.split("=", 1)[1] if "=" in arg else (arg[2:] or "{}")
        i += 2 if arg in _XARGS_VALUES else 1
    inner = argv[i + 1 if argv[i : i + 1] == ["--"] else i :] or ["echo"]
    items = inputs[:64] if inputs is not None else [XARGS_UNKNOWN]
    if replace_str is None:
        yield inner + items
        return
    for item in items or [XARGS_UNKNOWN]:
        yield [a.replace(replace_str, item) for a in inner]


def embedded_argvs(argv: list[str], inputs: list[str] | None = None) -> Iterator[list[str]]:
    """Commands run by ``xargs CMD`` (given the words it reads, when known) and by
    ``find ... -exec CMD ;`` / ``-delete``."""
    name = _base(argv[0])
    if name == "xargs":
        yield from _xargs(argv, inputs)
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
