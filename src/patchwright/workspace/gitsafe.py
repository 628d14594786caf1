"""Git is data, not code: every ``git`` process patchwright starts goes through here.

A repository's own configuration (``.git/config``, ``config.worktree`` and whatever they
``[include]``) can name programs for git to run — ``core.fsmonitor``, hooks, filter
drivers, textconv and external diff drivers, credential helpers, ``core.sshCommand``,
signing programs, ``remote.*.receivepack``. Anything that could write ``.git/`` (a command
the model ran, a cloned repository) could plant one, and the next git call would run it
with the user's full rights. So every call gets, through ``GIT_CONFIG_COUNT`` /
``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n`` (command-line scope, above every file, passed
on to child git processes):

- always: ``core.fsmonitor=false``, ``core.hooksPath=/dev/null`` (no hook can exist
  there, and nothing can be put there), ``core.untrackedCache=false``,
  ``protocol.ext.allow=never``, ``safe.bareRepository=explicit``, no submodule
  recursion (``status`` and ``diff`` do not start git inside a submodule, whose own
  configuration is not vetted here) and no automatic gc/maintenance;
- for each command-running key set in the repository's own scopes (local, worktree,
  included from them): the value the user's system or global configuration gives it, or
  a neutral one (empty filter commands, ``ssh``, ``git-receive-pack``, ...).

The user's system and global configuration stay trusted (root or the user wrote them:
credential helpers, ``git lfs`` filters, an ``sshCommand`` keep working). Git itself refuses
to let an alias shadow a built-in command, and reads ``uploadpack.packObjectsHook`` and
``trace2.*`` only from protected (system, global, command-line) configuration.
``--no-pager`` is always passed; diffs add ``--no-ext-diff --no-textconv`` themselves.
A push to a repository on this machine runs the receiving ``git receive-pack`` with hooks
off and no working-tree update. With ``hooks_dir`` a caller may let one folder of hooks
run (``GitRepo(run_hooks=True)`` puts the user's own ``pre-commit`` there, nothing else).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwright.workspace.errors import GitError

__all__ = [
    "ALWAYS",
    "ConfigEntry",
    "git_argv",
    "git_env",
    "neutralising_overrides",
    "popen_git",
    "pre_commit_only",
    "read_config",
    "run_git",
]

NO_HOOKS = os.devnull
ALWAYS: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.untrackedCache", "false"),
    ("core.pager", "cat"),
    ("protocol.ext.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "dirty"),  # no git run inside a submodule, under its config
    ("push.recurseSubmodules", "no"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
TRUSTED_SCOPES = frozenset({"system", "global", "command"})
RECEIVE_PACK = (
    "git -c core.hooksPath=/dev/null -c core.fsmonitor=false "
    "-c receive.denyCurrentBranch=refuse receive-pack"
)

# Keys (as git canonicalises them: section and name lower case) whose value git runs,
# with the value that runs nothing when the user's own configuration gives none.
_NEUTRAL: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.DOTALL), value)
    for pattern, value in (
        (r"filter\..+\.(?:clean|smudge|process)", ""),
        (r"filter\..+\.required", "false"),
        (r"diff\.external", ""),
        (r"diff\..+\.(?:command|textconv)", ""),
        (r"merge\..+\.driver", "false"),
        (r"core\.sshcommand", "ssh"),
        (r"core\.editor|sequence\.editor", "false"),
        (r"core\.askpass", ""),
        (r"credential\.(?:.+\.)?helper", ""),
        (r"gpg\.(?:openpgp\.)?program", "gpg"),
        (r"gpg\.x509\.program", "gpgsm"),
        (r"gpg\.ssh\.program", "ssh-keygen"),
        (r"gpg\..+\.program", "false"),
        (r"gpg\.ssh\.defaultkeycommand", "false"),
        (r"remote\..+\.uploadpack", "git-upload-pack"),
        (r"remote\..+\.receivepack", "git-receive-pack"),
    )
)
_MULTI_VALUED = re.compile(r"credential\.(?:.+\.)?helper", re.DOTALL)
_GIT_PROXY = "core.gitproxy"  # first match wins in git, so -c cannot override it


@dataclass(frozen=True)
class ConfigEntry:
    """One configuration value as ``git config --list --show-scope`` reports it."""

    scope: str
    origin: str
    key: str
    value: str | None

    @property
    def trusted(self) -> bool:
        return self.scope in TRUSTED_SCOPES


def _neutral(key: str) -> str | None:
    """The harmless value for a command-running ``key``; None when git runs nothing for it."""
    for pattern, value in _NEUTRAL:
        if pattern.fullmatch(key):
            return value
    return None


def parse_config_list(raw: str) -> list[ConfigEntry]:
    """Parse ``git config -z --show-scope --show-origin --list`` output."""
    fields = raw.split("\0")
    entries: list[ConfigEntry] = []
    for i in range(0, len(fields) - 2, 3):
        scope, origin, item = fields[i], fields[i + 1], fields[i + 2]
        key, newline, value = item.partition("\n")
        entries.append(ConfigEntry(scope, origin, key, value if newline else None))
    return entries


def neutralising_overrides(
    entries: Sequence[ConfigEntry],
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Overrides (``key``, ``value`` in order) and environment additions that undo every
    command-running value the repository's own configuration sets, restoring the user's
    trusted value where there is one."""
    untrusted = list(dict.fromkeys(e.key for e in entries if not e.trusted))
    pairs: list[tuple[str, str]] = []
    env: dict[str, str] = {}
    for key in untrusted:
        trusted = [e.value or "" for e in entries if e.trusted and e.key == key]
        if key == _GIT_PROXY:
            if not trusted and "GIT_PROXY_COMMAND" not in os.environ:
                env["GIT_PROXY_COMMAND"] = ""
            continue
        neutral = _neutral(key)
        if neutral is None:
            continue
        if _MULTI_VALUED.fullmatch(key):
            pairs += [(key, ""), *((key, value) for value in trusted)]
        else:
            pairs.append((key, trusted[-1] if trusted else neutral))
    return pairs, env


def _with_overrides(env: dict[str, str], pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """``env`` with ``pairs`` appended to its ``GIT_CONFIG_COUNT`` list (kept, not replaced)."""
    try:
        start = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        start = 0
    out = dict(env)
    for offset, (key, value) in enumerate(pairs):
        out[f"GIT_CONFIG_KEY_{start + offset}"] = key
        out[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    out["GIT_CONFIG_COUNT"] = str(start + len(pairs))
    return out


def _base_env(env: Mapping[str, str] | None, hooks_dir: Path | None) -> dict[str, str]:
    base = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})}
    hooks = str(hooks_dir) if hooks_dir is not None else NO_HOOKS
    return _with_overrides(base, [*ALWAYS, ("core.hooksPath", hooks)])


def read_config(cwd: Path, env: Mapping[str, str] | None = None) -> list[ConfigEntry]:
    """Every configuration value git sees in ``cwd``, with its scope (reading configuration
    runs nothing). Raises :class:`GitError` when git cannot read it."""
    if not Path(cwd).is_dir():
        raise GitError(f"{cwd} is not a directory; cannot run git there")
    try:
        proc = subprocess.run(
            ["git", "--no-pager", "config", "-z", "--show-scope", "--show-origin", "--list"],
            cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
            env=_base_env(env, None), timeout=60, check=False,
        )  # fmt: skip
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH; install git") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git config --list in {cwd} did not finish in 60s") from exc
    if proc.returncode != 0:
        message = proc.stderr.strip() or f"exit code {proc.returncode}"
        raise GitError(f"cannot read the git configuration in {cwd}: {message}")
    return parse_config_list(proc.stdout)


def git_env(
    cwd: Path, *, env: Mapping[str, str] | None = None, hooks_dir: Path | None = None
) -> dict[str, str]:
    """The environment for one hardened git call in ``cwd`` (re-read on every call: a
    command run since the last one may have changed the configuration)."""
    pairs, extra = neutralising_overrides(read_config(cwd, env))
    return _with_overrides({**_base_env(env, hooks_dir), **extra}, pairs)


def git_argv(*args: str) -> list[str]:
    return ["git", "--no-pager", *args]


def _is_local_url(url: str) -> bool:
    """True for a repository on this machine (a path or ``file://``), where ``git push``
    starts the receiving side's ``receive-pack`` — and its hooks — locally."""
    if url.startswith("file://"):
        return True
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", url) or "::" in url:
        return False
    head = url.split("/", 1)[0]
    return ":" not in head  # ``host:path`` is ssh; ``./x``, ``/x``, ``x/y`` are paths


def _push_target(args: Sequence[str]) -> str | None:
    """The repository argument of ``push ARGS`` (first non-option), if any."""
    takes_value = {"-o", "--push-option", "--repo", "--receive-pack", "--exec"}
    skip = False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg in takes_value:
            skip = True
        elif arg == "--":
            continue
        elif not arg.startswith("-"):
            return arg
    return None


def _harden_push(cwd: Path, args: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """``push`` arguments that keep a local receiving repository's hooks from running."""
    if any(a.startswith(("--receive-pack", "--exec")) for a in args):
        raise GitError("patchwright sets --receive-pack itself; do not pass it")
    target = _push_target(args) or "origin"
    proc = subprocess.run(
        git_argv("remote", "get-url", "--push", target), cwd=cwd, capture_output=True,
        text=True, stdin=subprocess.DEVNULL, env=dict(env), timeout=60, check=False,
    )  # fmt: skip
    url = proc.stdout.strip() if proc.returncode == 0 else target
    if _is_local_url(url):
        return [args[0], f"--receive-pack={RECEIVE_PACK}", *args[1:]]
    return list(args)


def run_git(
    cwd: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    hooks_dir: Path | None = None,
    timeout: float = 120.0,
    errors: str = "strict",
    input: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``git ARGS`` in ``cwd`` hardened (stdin ``input`` or closed, output captured as
    text decoded with ``errors``). Raises :class:`GitError` when the configuration cannot be read,
    ``FileNotFoundError`` without git and ``subprocess.TimeoutExpired`` past ``timeout``;
    the exit code is the caller's to judge."""
    full_env = git_env(cwd, env=env, hooks_dir=hooks_dir)
    argv = list(args)
    if argv and argv[0] == "push":
        argv = _harden_push(cwd, argv, full_env)
    return subprocess.run(
        git_argv(*argv), cwd=cwd, capture_output=True, text=True, errors=errors,
        input=input, stdin=None if input is not None else subprocess.DEVNULL,
        env=full_env, timeout=timeout, check=False,
    )  # fmt: skip


def popen_git(
    cwd: Path, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``git ARGS`` hardened with stdout and stderr as binary pipes (for streaming)."""
    return subprocess.Popen(
        git_argv(*args), cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=git_env(cwd, env=env),
    )  # fmt: skip


def _user_hooks_dir(cwd: Path, env: Mapping[str, str] | None) -> Path:
    """Where the user's hooks live: their ``core.hooksPath`` or ``<git common dir>/hooks``."""
    configured = [
        e.value for e in read_config(cwd, env)
        if e.key == "core.hookspath" and e.value and e.value != NO_HOOKS
    ]  # fmt: skip
    if configured:
        return (cwd / os.path.expanduser(configured[-1])).resolve()
    proc = run_git(cwd, "rev-parse", "--git-common-dir", env=env)
    if proc.returncode != 0:
        raise GitError(f"cannot find the hooks folder: {proc.stderr.strip()}")
    return (cwd / proc.stdout.strip()).resolve() / "hooks"


@contextlib.contextmanager
def pre_commit_only(cwd: Path, env: Mapping[str, str] | None = None) -> Iterator[Path | None]:
    """A private hooks folder holding only a ``pre-commit`` that runs the user's own (so it
    sees its real path as ``$0``); None when the user has no executable pre-commit hook.
    ``cwd`` is the top level of the working tree (relative hook paths start there)."""
    hook = _user_hooks_dir(cwd, env) / "pre-commit"
    if not (hook.is_file() and os.access(hook, os.X_OK)):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="patchwright-hooks-") as tmp:
        wrapper = Path(tmp) / "pre-commit"
        wrapper.write_text(f'#!/bin/sh\nexec {shlex.quote(str(hook))} "$@"\n', encoding="utf-8")
        wrapper.chmod(0o700)
        yield Path(tmp)
