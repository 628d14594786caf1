"""``Sandbox``: run a command in the repository, contained and reported."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from patchwright.sandbox import cgroup as cgroups
from patchwright.sandbox import diagnose, isolation
from patchwright.sandbox.bwrap import Wrapped, bwrap_argv
from patchwright.sandbox.disk import budget as diskbudget
from patchwright.sandbox.disk import watch as diskwatch
from patchwright.sandbox.envbuild import build_env
from patchwright.sandbox.isolation import Isolation, Requested
from patchwright.sandbox.policy import Verdict, classify, program_names
from patchwright.sandbox.process import RawRun, run_process
from patchwright.sandbox.result import ExecResult, Limits
from patchwright.sandbox.toolchains import ToolchainView, toolchain_view

Approver = Callable[[Verdict], bool]


class Sandbox:
    """Runs commands in ``root`` under the strongest isolation available here.

    Each command gets its own session and process group (all of it is killed on timeout,
    and stragglers are killed when the leader exits), rlimits, a disk budget, head+tail
    output capture, an allowlisted environment with secrets removed and a private HOME and
    TMPDIR.
    Commands the policy calls ``forbidden`` never run; ``ask`` commands run unless an
    ``approve`` callback is given and says no.
    """

    def __init__(
        self,
        root: Path,
        *,
        allow_net: bool = False,
        limits: Limits | None = None,
        isolation: Requested = "auto",
        approve: Approver | None = None,
        use_cgroup: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """``env``: variables every command gets (under its own ``extra_env``)."""
        self.root = Path(root).resolve()
        self.env = dict(env or {})
        if not self.root.is_dir():
            raise NotADirectoryError(f"sandbox root {self.root} is not a directory")
        self.allow_net = allow_net
        self.limits = limits or Limits()
        self.approve = approve
        self.use_cgroup = use_cgroup
        self._isolation: Isolation = _choose(isolation, allow_net)
        self._private = Path(tempfile.mkdtemp(prefix="patchwright-sbx-")).resolve()
        self.home = self._private / "home"
        self.tmpdir = self._private / "tmp"
        self.home.mkdir()
        self.tmpdir.mkdir()
        (self._private / "shm").mkdir()  # /dev/shm under bubblewrap: on disk, in the budget
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._private, True)

    @property
    def isolation(self) -> str:
        """What is in force here, in one plain sentence (layer, then the process cap)."""
        if self.limits.processes is None:
            cap = "no process cap"
        elif self.use_cgroup and cgroups.pids_parent() is not None:
            cap = f"process cap {self.limits.processes} (pids cgroup)"
        elif os.geteuid() != 0:
            cap = f"process cap {self.limits.processes} (RLIMIT_NPROC + watchdog)"
        else:
            cap = f"process cap {self.limits.processes} (watchdog only: root ignores RLIMIT_NPROC)"
        return f"{self._isolation.describe()}; {cap}"

    @property
    def layer(self) -> Isolation:
        """The isolation layer as data (mode, network, filesystem, notes)."""
        return self._isolation

    def close(self) -> None:
        """Remove the private HOME and tmp (also done when the object is collected)."""
        self._cleanup()

    def run(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = 120.0,
        cwd: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
        stdin: str | None = None,
    ) -> ExecResult:
        """Run ``cmd`` (a shell string runs under ``bash -c``; a sequence is an argv) in
        ``cwd``: the repository or a folder in it (default: its root), or a folder of this
        sandbox's private TMPDIR (where the gates keep scratch copies)."""
        if not (cmd.strip() if isinstance(cmd, str) else cmd):
            raise ValueError("empty command")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        refusal = self._refusal(cmd)
        if refusal is not None:
            return refusal
        workdir = (self.root / cwd).resolve() if cwd is not None else self.root
        if not any(workdir == a or a in workdir.parents for a in (self.root, self.tmpdir)):
            return _refused(
                "cwd-outside-repo", f"working directory {workdir} is not inside {self.root}"
            )
        if not workdir.is_dir():
            return _refused("cwd-outside-repo", f"working directory {workdir} does not exist")
        argv = [_shell(), "-c", cmd] if isinstance(cmd, str) else [str(a) for a in cmd]
        token = uuid.uuid4().hex
        extra = {**self.env, **(extra_env or {})}
        view = self._toolchains(extra)
        env = build_env(
            os.environ,
            home=str(self.home),
            tmpdir=str(self.tmpdir),
            token=token,
            extra=_merged(extra, view.env),
        )
        wrapped = self._wrap(argv, workdir, env, view)
        try:
            raw = run_process(
                wrapped.argv,
                cwd=workdir,
                env=env,
                token=token,
                limits=self.limits,
                timeout=timeout,
                stdin=stdin.encode() if stdin is not None else None,
                use_cgroup=self.use_cgroup,
                write_areas=(self.root, self._private),
            )
        except (FileNotFoundError, PermissionError) as exc:
            return ExecResult(127, "", f"cannot run {wrapped.argv[0]!r}: {exc}\n")
        return self._report(raw, wrapped, workdir, program_names(cmd), timeout)

    def _report(
        self, raw: RawRun, wrapped: Wrapped, workdir: Path, programs: list[str], timeout: float
    ) -> ExecResult:
        """The result of a finished run, with what the sandbox denied said plainly."""
        stderr = raw.stderr.text()
        rule = diagnose.blocked_by(
            stderr=stderr,
            exit_code=raw.returncode,
            killed_by=raw.killed_by,
            process_limit_hit=raw.process_limit_hit,
            network_off=self._isolation.network,
            filesystem_confined=self._isolation.filesystem,
            hidden=wrapped.hidden,
            exposed=wrapped.exposed,
            masked=wrapped.masked,
            cwd=workdir,
            programs=programs,
            disk_limit_hit=raw.disk_limit_hit,
        )
        notes = [diagnose.explain(rule)] if rule is not None else []
        if raw.disk_limit_hit:
            notes.append(self._disk_note(raw))
        if raw.timed_out:
            notes.append(f"patchwright sandbox: killed after the {timeout:g} s timeout")
        if notes:
            stderr += ("" if not stderr or stderr.endswith("\n") else "\n") + "\n".join(notes)
            stderr += "\n"
        return ExecResult(
            exit_code=raw.returncode,
            stdout=raw.stdout.text(),
            stderr=stderr,
            timed_out=raw.timed_out,
            blocked_by=rule,
            truncated=raw.stdout.truncated or raw.stderr.truncated,
            seconds=raw.seconds,
            killed_by=raw.killed_by,
            written=tuple(diskwatch.relative(w.path, self.root) for w in raw.written),
            removed=tuple(diskwatch.relative(path, self.root) for path in raw.removed),
        )

    def _disk_note(self, raw: RawRun) -> str:
        settled = diskbudget.Settled(True, raw.written, raw.removed, raw.refused)
        return diskbudget.note(settled, self.limits.disk_bytes or 0, self.root)

    def _refusal(self, cmd: str | Sequence[str]) -> ExecResult | None:
        verdict = classify(cmd, self.root)
        if verdict.level == "forbidden":
            return _refused(f"policy:{verdict.rule}", f"forbidden: {verdict.reason}")
        if verdict.level == "ask" and self.approve is not None and not self.approve(verdict):
            return _refused(f"policy:{verdict.rule}", f"not approved: {verdict.reason}")
        return None

    def _toolchains(self, extra_env: Mapping[str, str] | None) -> ToolchainView:
        """The host's toolchains for one command (``toolchains``): variables, folders shown,
        secrets kept covered."""
        seen = {**os.environ, **(extra_env or {})}
        home = Path(os.path.expanduser("~"))
        limited = self.limits.address_space_bytes is not None
        return toolchain_view(
            home, seen, self._private, allow_net=self.allow_net, address_limited=limited
        )

    def _wrap(
        self, argv: list[str], workdir: Path, env: Mapping[str, str], view: ToolchainView
    ) -> Wrapped:
        mode = self._isolation.mode
        if mode == "bwrap":
            return bwrap_argv(
                argv,
                root=self.root,
                private=self._private,
                cwd=workdir,
                allow_net=self.allow_net,
                env=env,
                toolchains=view,
            )
        if mode == "unshare":
            return Wrapped(isolation.unshare_argv(argv, allow_net=self.allow_net), [], [])
        return Wrapped(argv, [], [])


def _choose(requested: Requested, allow_net: bool) -> Isolation:
    if requested not in ("auto", "bwrap", "unshare", "none"):
        raise ValueError(f"unknown isolation {requested!r}: use auto, bwrap, unshare or none")
    return isolation.choose(requested, allow_net)


def _merged(extra: Mapping[str, str], toolchains: Mapping[str, str]) -> dict[str, str]:
    """The caller's variables with the toolchains' over them; ``NODE_OPTIONS`` of both kept."""
    merged = {**extra, **toolchains}
    if extra.get("NODE_OPTIONS") and toolchains.get("NODE_OPTIONS"):
        merged["NODE_OPTIONS"] = f"{toolchains['NODE_OPTIONS']} {extra['NODE_OPTIONS']}"
    return merged


def _shell() -> str:
    return shutil.which("bash") or "/bin/sh"


def _refused(rule: str, why: str) -> ExecResult:
    message = f"{diagnose.explain(rule)}: {why}\n"
    return ExecResult(None, "", message, blocked_by=rule)
