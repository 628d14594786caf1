"""Rules that judge one unwrapped argv (``rm``, ``chmod``, ``kill``, ``git``, installers...)."""

from __future__ import annotations

import os

from patchwright.sandbox.gitrules import check_git
from patchwright.sandbox.rules import (
    _INSTALL_SUBCOMMANDS,
    DISK_TOOLS,
    NET_TOOLS,
    PRIVILEGE,
    SHUTDOWN,
    Context,
    _has_flag,
    _operands,
    _outside,
    _precious,
    _write_target,
    git_dir_write,
    in_git_dir,
    target_path,
)
from patchwright.sandbox.verdict import SAFE, Verdict, ask, forbid, worst


def check_argv(argv: list[str], ctx: Context) -> Verdict:
    """The verdict for one simple command (already unwrapped)."""
    name = os.path.basename(argv[0])
    args = argv[1:]
    if name in PRIVILEGE:
        return forbid("privilege-escalation", f"{name} runs commands with elevated privileges")
    if _is_shutdown(name, args):
        return forbid("shutdown", f"{name} would shut down or restart the machine")
    if name.startswith("mkfs") or name in DISK_TOOLS:
        return forbid("disk-format", f"{name} formats or repartitions disks")
    checker = _CHECKERS.get(name)
    if checker is not None:
        return checker(name, args, ctx)
    if name in NET_TOOLS:
        return ask("network-tool", f"{name} talks to the network")
    return _check_install(name, args)


def _is_shutdown(name: str, args: list[str]) -> bool:
    if name in SHUTDOWN:
        return True
    if name == "systemctl" and args[:1] and args[0] in {"poweroff", "reboot", "halt", "kexec"}:
        return True
    return name in ("init", "telinit") and args[:1] in (["0"], ["6"])


def _check_rm(name: str, args: list[str], ctx: Context) -> Verdict:
    options, operands = _operands(args)
    if "--no-preserve-root" in options:
        return forbid("rm-root-or-home", "rm --no-preserve-root")
    recursive = name != "unlink" and _has_flag(options, "r", "--recursive")
    recursive = recursive or _has_flag(options, "R", "--recursive")
    force = _has_flag(options, "f", "--force")
    verdicts = []
    for raw in operands:
        path = target_path(raw, ctx)
        if path is None:
            if recursive:
                verdicts.append(
                    ask(
                        "rm-unresolved-variable",
                        f"{name} -r of {raw!r}: the path depends on a variable",
                    )
                )
            continue
        if _precious(path, ctx):
            verdicts.append(
                forbid("rm-root-or-home", f"{name} of {path} (root, home or an ancestor)")
            )
        elif _outside(path, ctx):
            if recursive or force:
                verdicts.append(
                    forbid("rm-outside-repo", f"{name} of {path}, outside the repository")
                )
            else:
                verdicts.append(
                    ask("write-outside-repo", f"{name} of {path}, outside the repository")
                )
        elif in_git_dir(path, ctx):
            verdicts.append(git_dir_write(path))
        elif recursive and path == ctx.root:
            verdicts.append(ask("rm-repo-root", f"{name} -r of the whole repository"))
    return worst(verdicts)


def _check_chmod(name: str, args: list[str], ctx: Context) -> Verdict:
    options, operands = _operands(args)
    if name == "chmod" and not operands and options:  # chmod -x file: the mode looks like an option
        operands = [a for a in args if not a.startswith("-")]
    targets = operands[1:]
    recursive = _has_flag(options, "R", "--recursive")
    verdicts = []
    for raw in targets:
        path = target_path(raw, ctx)
        if path is None:
            continue
        if recursive and (_precious(path, ctx) or _outside(path, ctx)):
            verdicts.append(forbid("chmod-recursive-outside-repo", f"{name} -R on {path}"))
        elif _precious(path, ctx) or _outside(path, ctx):
            verdicts.append(ask("write-outside-repo", f"{name} on {path}, outside the repository"))
        elif in_git_dir(path, ctx):
            verdicts.append(git_dir_write(path))
    return worst(verdicts)


def _check_kill(name: str, args: list[str], ctx: Context) -> Verdict:
    if name == "killall5":
        return forbid("kill-parent", "killall5 signals every process")
    if name in ("pkill", "killall"):
        return ask("kill-by-name", f"{name} may hit processes outside the task")
    start = 0
    if len(args) > 1 and args[0].startswith("-") and args[0] != "--":
        start = 2 if args[0] in ("-s", "-n") else 1  # the signal: -9, -KILL, -s TERM
    if any(a in ("-l", "-L", "--list") for a in args):
        return SAFE
    targets = [a for a in args[start:] if a != "--"]
    for target in targets:
        if target in ("-1", "1", "$PPID", "${PPID}"):
            return forbid("kill-parent", f"kill {target} would hit the parent or every process")
    return SAFE


def _check_dd(name: str, args: list[str], ctx: Context) -> Verdict:
    verdicts = [_write_target(a[3:], ctx) for a in args if a.startswith("of=")]
    verdict = worst(verdicts)
    if verdict.rule == "write-to-device":
        return forbid("dd-to-device", verdict.reason)
    return verdict


def _check_writes(name: str, args: list[str], ctx: Context) -> Verdict:
    options, operands = _operands(args)
    if name == "rsync" and any(":" in a and not a.startswith("/") for a in operands):
        return ask("network-tool", "rsync to or from a remote host")
    if name in ("tee", "touch", "mkdir", "truncate"):
        targets = operands
    else:
        explicit = [o.split("=", 1)[1] for o in options if o.startswith("--target-directory=")]
        if "-t" in args and args.index("-t") + 1 < len(args):
            explicit.append(args[args.index("-t") + 1])
        targets = explicit or operands[-1:] if len(operands) >= 2 or explicit else []
    verdicts = [_write_target(t, ctx) for t in targets]
    if name == "mv":
        verdicts += [_moved_away(raw, ctx) for raw in operands[:-1]]
    return worst(verdicts)


def _moved_away(raw: str, ctx: Context) -> Verdict:
    """``mv SOURCE ...`` removes SOURCE from where it was."""
    path = target_path(raw, ctx)
    if path is None:
        return SAFE
    if _precious(path, ctx):
        return forbid("rm-root-or-home", f"mv of {path} (root, home or an ancestor)")
    if in_git_dir(path, ctx):
        return git_dir_write(path)
    if _outside(path, ctx):
        return ask("write-outside-repo", f"mv of {path}, outside the repository")
    return SAFE


def _check_in_place(name: str, args: list[str], ctx: Context) -> Verdict:
    """``sed -i`` / ``perl -i``: the files it edits are written."""
    valued = ("-e", "-f", "-l") if name == "sed" else ("-e", "-E", "-M", "-m", "-I", "-x")
    short = [a for a in args if a.startswith("-") and not a.startswith(("--", *valued))]
    in_place = "--in-place" in args or any(a.startswith("--in-place=") for a in args)
    in_place = in_place or any("i" in a[1:] for a in short)
    if not in_place:
        return SAFE
    files: list[str] = []
    scripts = 0
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
        elif arg in ("-e", "-f", "--expression", "--file", "-l", "-M", "-m", "-I"):
            scripts, skip = scripts + 1, True
        elif arg.startswith(("--expression=", "--file=")) or (
            arg.startswith("-") and arg[1:2] == "e" and len(arg) > 2 and name == "sed"
        ):
            scripts += 1
        elif not arg.startswith("-") or arg == "-":
            files.append(arg)
        elif name == "perl" and arg.endswith("e") and arg.startswith("-") and i + 1 < len(args):
            scripts, skip = scripts + 1, True  # -pie 'CODE': the next word is the code
    if not scripts:
        files = files[1:]  # the first operand is the script
    return worst([_write_target(f, ctx) for f in files])


def _check_install(name: str, args: list[str]) -> Verdict:
    base = name
    rest = args
    if name.startswith("python") and rest[:2] == ["-m", "pip"]:
        base, rest = "pip", rest[2:]
    elif name.startswith("pip"):
        base = "pip"
    elif name in ("npx", "pnpx", "bunx"):
        return ask("package-install", f"{name} downloads and runs packages")
    subs = _INSTALL_SUBCOMMANDS.get(base)
    if subs is None:
        return SAFE
    positional = [a for a in rest if not a.startswith("-")]
    if name == "pacman" or (base == "yarn" and not positional):
        return ask("package-install", f"{name} installs packages")
    if positional and positional[0] in subs:
        return ask("package-install", f"{name} {positional[0]} changes installed packages")
    return SAFE


_CHECKERS = {
    "rm": _check_rm,
    "rmdir": _check_rm,
    "unlink": _check_rm,
    "shred": _check_rm,
    "chmod": _check_chmod,
    "chown": _check_chmod,
    "chgrp": _check_chmod,
    "kill": _check_kill,
    "pkill": _check_kill,
    "killall": _check_kill,
    "killall5": _check_kill,
    "dd": _check_dd,
    "git": check_git,
    "git-filter-repo": lambda name, args, ctx: check_git("git", ["filter-repo", *args], ctx),
    "cp": _check_writes,
    "mv": _check_writes,
    "ln": _check_writes,
    "install": _check_writes,
    "rsync": _check_writes,
    "tee": _check_writes,
    "touch": _check_writes,
    "mkdir": _check_writes,
    "truncate": _check_writes,
    "sed": _check_in_place,
    "perl": _check_in_place,
}
