"""Policy rules for ``git``: publishing, discarding work, and changing what git executes.

A git configuration can name programs git runs (``core.fsmonitor``, ``core.hooksPath``,
``core.sshCommand``, filters, ``diff.external``...), so setting one — ``git config``,
``git -c``, ``--config-env``, a submodule (its own config and hooks) — needs approval,
as do history rewrites (``filter-branch``, ``filter-repo``). Reading configuration
(``git config --get``, ``--list``) does not.
"""

from __future__ import annotations

from patchwright.sandbox.rules import Context
from patchwright.sandbox.verdict import SAFE, Verdict, ask

_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})
_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool"}
    | {"--list", "-l", "--show-origin", "--show-scope", "--name-only", "-z", "--null"}
    | {"--global", "--system", "--local", "--worktree", "--includes", "--no-includes"}
    | {"--type", "--bool", "--int", "--path", "--default", "--file", "-f", "--blob"}
)
_CONFIG_READ_SUBCOMMANDS = frozenset({"get", "list"})
_CONFIG_WRITE_SUBCOMMANDS = frozenset({"set", "unset", "rename-section", "remove-section", "edit"})


def _sets_config(options: list[str]) -> bool:
    """``-c NAME=VALUE`` (also ``-cNAME=VALUE``) or ``--config-env``."""
    return any(
        o.startswith("--config-env") or (o.startswith("-c") and not o.startswith("--"))
        for o in options
    )


def check_git(name: str, args: list[str], ctx: Context) -> Verdict:
    """The verdict for ``git ARGS`` (``name`` is ``git``)."""
    options: list[str] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):
        options.append(args[i])
        i += 2 if args[i] in _WITH_VALUE else 1
    if _sets_config(options):
        return ask("git-config", "git -c / --config-env sets configuration that can run programs")
    if i >= len(args):
        return SAFE
    sub, rest = args[i], args[i + 1 :]
    if sub == "config":
        return _check_config(rest)
    if sub == "submodule":
        return ask("git-submodule", "git submodule fetches code and brings its own config")
    if sub in ("filter-branch", "filter-repo"):
        return ask("git-rewrite", f"git {sub} rewrites the whole history")
    if sub == "push":
        return ask("git-push", "git push publishes commits to a remote")
    if sub in ("fetch", "pull", "clone", "ls-remote"):
        return ask("network-tool", f"git {sub} talks to the network")
    if _discards(sub, rest):
        return ask("git-discard", f"git {sub} may discard uncommitted work")
    return SAFE


def _check_config(rest: list[str]) -> Verdict:
    """``git config``: reading is safe; anything that may write needs approval."""
    positional = [a for a in rest if not a.startswith("-")]
    flags = [a.split("=", 1)[0] for a in rest if a.startswith("-")]
    if positional[:1] and positional[0] in _CONFIG_WRITE_SUBCOMMANDS:
        return _config_write()
    if positional[:1] and positional[0] in _CONFIG_READ_SUBCOMMANDS:
        return SAFE if all(f in _CONFIG_READS for f in flags) else _config_write()
    reading = any(f.startswith("--get") or f in ("--list", "-l") for f in flags)
    if all(f in _CONFIG_READS for f in flags) and (reading or len(positional) == 1):
        return SAFE
    return _config_write()


def _config_write() -> Verdict:
    return ask(
        "git-config",
        "git config may set options that make later git calls run programs"
        " (core.fsmonitor, core.hooksPath, filters); patchwright's own git calls are not"
        " for the model to configure",
    )


def _discards(sub: str, rest: list[str]) -> bool:
    return (
        (sub == "reset" and "--hard" in rest)
        or (sub == "clean" and any(a.startswith("-") and "f" in a for a in rest))
        or (sub == "checkout" and ("-f" in rest or "--force" in rest or "." in rest))
        or (sub == "restore" and "--staged" not in rest and "-S" not in rest)
        or (sub == "stash" and rest[:1] in (["drop"], ["clear"]))
    )
