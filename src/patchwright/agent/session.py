"""The composition root: the one place that turns ``Settings`` into the parts a mode uses.

A ``Session`` owns the model (the router with caps, keys, catalog, timeouts, fallback and
cooldown, its events relayed into the bus), the sandbox (with the ``[sandbox]`` settings),
the repository's readable files (within the ``[files]`` caps) and the event bus. Modes get
their parts here and never wire their own, so a setting cannot be honoured by one mode and
dropped by another. A long-lived mode keeps one session (one loaded model) across tasks.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from patchwright.agent.request import RunError
from patchwright.agent.roles import Role, by_role
from patchwright.agent.tools.base import Tool
from patchwright.config import SandboxSettings, Settings
from patchwright.events import (
    Event,
    EventBus,
    IndexDone,
    IndexFailed,
    IndexProgress,
    IndexStart,
    McpFailed,
    TxnRecovered,
)
from patchwright.llm import Caps, ModelError, make_model
from patchwright.llm.ledger import Totals
from patchwright.llm.router import EventHook, Router
from patchwright.sandbox import Limits, Sandbox
from patchwright.verify.testrun import venv_env
from patchwright.workspace.files import read_context_files
from patchwright.workspace.transaction import recover

if TYPE_CHECKING:
    from patchwright.agent.mcp_tools import McpHub
    from patchwright.index import RepoIndex


def build_model(
    settings: Settings,
    *,
    spec: str | None = None,
    record: Path | None = None,
    on_event: EventHook | None = None,
) -> Router:
    """The model every mode uses: ``spec`` (default: the configured one) with the configured
    fallback chain, caps, keys, catalog, timeout and cooldown. Raises ``ModelError`` for a
    model that cannot be used as configured."""
    model = settings.model
    return make_model(
        spec or model.name,
        fallback=model.fallback,
        caps=Caps(model.max_cost, model.max_tokens, model.max_calls),
        record=record,
        keys=model.keys,
        catalog=model.catalog,
        timeout=model.timeout,
        cooldown_seconds=model.cooldown_seconds,
        temperature=model.temperature,
        on_event=on_event,
        prompt_lookup=model.prompt_lookup,
    )


def sandbox_for(settings: SandboxSettings, root: Path, *, allow_net: bool = False) -> Sandbox:
    """A sandbox for ``root`` under the ``[sandbox]`` settings (network, disk budget), its
    commands run as in the repository's activated virtualenv when it has one (``python`` is
    the venv's), as its tests are."""
    limits = Limits(disk_bytes=settings.disk_budget_mb * 1024 * 1024)
    return Sandbox(root, allow_net=allow_net or settings.allow_net, limits=limits,
                   env=venv_env(root))  # fmt: skip


class Session:
    """Settings made concrete for one repository (see the module docstring)."""

    def __init__(
        self,
        settings: Settings,
        root: Path,
        *,
        model: str | None = None,
        record: Path | None = None,
        bus: EventBus | None = None,
        environment: Sandbox | None = None,
    ) -> None:
        """``environment``: where commands run instead of a sandbox built from the settings
        (a per-instance environment of ``patchwright.envs``; the gates, the criterion and the
        tools use it as they would the sandbox). The caller owns and closes it."""
        self.settings = settings
        self.root = Path(root).resolve()
        self.bus = bus or EventBus()
        self.model = build_model(settings, spec=model, record=record, on_event=self._relay)
        self._sandbox: Sandbox | None = environment
        self._index: RepoIndex | None = None
        self._index_tried = False
        self._mcp: McpHub | None = None

    def _relay(self, event: Event) -> None:
        """The router's events (requests, replies, retries, cooled keys, fallbacks, waits)
        go onto the bus, so into the run record."""
        self.bus.emit(event)

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = sandbox_for(self.settings.sandbox, self.root)
        return self._sandbox

    @property
    def index(self) -> RepoIndex | None:
        """The code index: opened, and built or brought up to date (only changed files are
        reparsed) on first use, with progress events; None when it cannot be built (the
        index accelerates context and tools; its failure must not stop a task)."""
        if not self._index_tried:
            self._index_tried = True
            self._index = self._open_index()
        elif self._index is not None:
            self._index.update()
        return self._index

    def _open_index(self) -> RepoIndex | None:
        from patchwright.index import RepoIndex

        self.bus.emit(IndexStart())
        try:
            index = RepoIndex(self.root, max_file_bytes=self.settings.files.max_file_bytes)
            stats = index.update(self._index_progress)
        except Exception as exc:  # a broken cache or parser must not stop a run
            self.bus.emit(IndexFailed(error=f"{type(exc).__name__}: {exc}"))
            return None
        self.bus.emit(IndexDone(files=len(index.symbols), parsed=stats.parsed))
        return index

    def external_tools(self) -> dict[Role, list[Tool]]:
        """Tools of the configured MCP servers by role; servers start on first use and stay
        connected for the session (one that fails is reported and left out)."""
        if self._mcp is None and self.settings.mcp.servers:
            from patchwright.agent.mcp_tools import McpHub

            self._mcp = McpHub(self.settings.mcp.servers)
            for name, error in self._mcp.start().items():
                self.bus.emit(McpFailed(server=name, error=error))
        return by_role(self._mcp.tools()) if self._mcp is not None else {}

    def close(self) -> None:
        """Stop what the session started (MCP servers)."""
        if self._mcp is not None:
            self._mcp.close()
            self._mcp = None

    def _index_progress(self, done: int, total: int) -> None:
        self.bus.emit(IndexProgress(done=done, total=total))

    @property
    def command_timeout(self) -> float:
        return self.settings.sandbox.timeout

    def read_texts(self) -> dict[str, str]:
        """Readable text files of the repository within the ``[files]`` caps (binary and
        over-size files left out)."""
        files = self.settings.files
        found = read_context_files(
            self.root,
            max_file_bytes=files.max_file_bytes,
            max_total_bytes=files.max_total_bytes,
        )
        return {path: text.text for path, text in found.files.items()}

    def recover(self) -> None:
        """Finish or undo an interrupted transaction before the repository is read (every
        task and every long-lived mode starts with it)."""
        recovered = recover(self.root)
        if recovered:
            self.bus.emit(TxnRecovered(transactions=recovered))

    def start_task(self) -> None:
        """Caps are per task: a long-lived session starts each task with a clean ledger."""
        self.model.totals = Totals()
        self.model.calls.clear()

    @property
    def usage(self) -> Totals:
        """The one usage ledger: what the model calls of the current task cost."""
        return self.model.totals


def open_session(
    settings: Settings,
    repo: Path,
    *,
    model: str | None = None,
    record: Path | None = None,
    bus: EventBus | None = None,
) -> Session:
    """The session for ``repo``, after recovering any interrupted transaction. Raises
    :class:`RunError` for a repository that is not a directory or a model that cannot be
    used as configured."""
    root = repo.expanduser().resolve()
    if not root.is_dir():
        raise RunError(f"--repo {repo}: not a directory")
    try:
        session = Session(settings, root, model=model, record=record, bus=bus)
    except ModelError as exc:
        raise RunError(str(exc)) from exc
    session.recover()
    return session
