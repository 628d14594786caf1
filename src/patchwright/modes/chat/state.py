"""What a chat session holds between turns: the Session (one loaded model), the edit
permission, the files kept in context, the conversation and its transcript, the usage."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchwright.agent.session import Session
from patchwright.config import ConfigError, Settings
from patchwright.events import EventBus
from patchwright.llm import ModelError, ModelInfo
from patchwright.modes.chat.history import Conversation, turn_of
from patchwright.modes.chat.sessions import SessionNotFound, SessionStore
from patchwright.trust_notice import settings_for
from patchwright.workspace.git import GitError, GitRepo


class ChatError(Exception):
    """The chat cannot start (bad repository, configuration or model): exit code 2."""


@dataclass
class ChatOptions:
    """The flags of ``patchwright chat`` (the same model and configuration flags as run)."""

    repo: Path = Path(".")
    model: str | None = None
    yes: bool = False  # edits allowed for the whole session from the start
    no_commit: bool = False
    no_git: bool = False
    test_cmd: str | None = None
    max_iter: int | None = None
    edit_format: str | None = None
    record: Path | None = None
    resume: str | None = None  # None: a new session; "": the newest one; else its id


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    def add(self, prompt: int, completion: int, cost: float) -> None:
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.cost += cost

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def history_budget(info: ModelInfo) -> int:
    """Tokens the conversation may take before it is compacted: little for an embedded
    model (its prompts are kept lean: prefill is slow on a CPU), a quarter of the window
    for the others."""
    if info.embedded:
        return 1200
    return max(2000, min(info.context_window // 4, 24000))


@dataclass
class ChatState:
    options: ChatOptions
    root: Path
    cwd: Path
    settings: Settings
    session: Session
    store: SessionStore
    conversation: Conversation
    allow_edits: bool = False
    files: list[str] = field(default_factory=list)  # kept in context (/add)
    runs: list[str] = field(default_factory=list)  # this session's run records
    start_head: str | None = None
    usage: Usage = field(default_factory=Usage)
    plan: Any = None  # the last /plan, waiting for /apply
    resumed_turns: int = 0

    @property
    def model_name(self) -> str:
        return self.session.model.name

    def record(self, kind: str, **data: Any) -> None:
        """Append to the transcript and, where it is a turn, to the conversation."""
        self.store.append(kind, **data)
        turn = turn_of({"kind": kind, **data})
        if turn is not None:
            self.conversation.add(*turn)

    def add_session_usage(self) -> None:
        """Count what the model calls of the step just ended cost (the Session's per-task
        ledger), then start a fresh ledger for the next step."""
        totals = self.session.usage
        self.usage.add(totals.usage.prompt_tokens, totals.usage.completion_tokens, totals.cost)
        self.session.start_task()

    def switch_model(self, spec: str) -> None:
        """Load another model: a new Session on the same bus (raises ``ModelError``)."""
        session = Session(self.settings, self.root, model=spec, bus=self.session.bus)
        self.session = session
        self.conversation.budget_tokens = history_budget(session.model.info)
        self.store.write_meta(model=session.model.name)

    def git(self) -> GitRepo | None:
        if self.options.no_git:
            return None
        repo = GitRepo(self.root, run_hooks=self.settings.git.run_hooks)
        return repo if repo.is_repo else None


def _root_of(repo: Path, no_git: bool) -> Path:
    folder = repo.expanduser().resolve()
    if not folder.is_dir():
        raise ChatError(f"{repo}: not a directory; give the repository to work in")
    if no_git:
        return folder
    try:
        git = GitRepo(folder)
        return git.toplevel.resolve() if git.is_repo else folder
    except GitError:
        return folder


def open_session_only(options: ChatOptions, bus: EventBus | None = None) -> Session:
    """The Session of the repository around ``options.repo`` (its git top level), from the
    layered settings, after recovering any interrupted transaction."""
    root = _root_of(options.repo, options.no_git)
    try:
        settings = settings_for(root)
        session = Session(settings, root, model=options.model, record=options.record, bus=bus)
    except (ConfigError, ModelError) as exc:
        raise ChatError(str(exc)) from exc
    session.recover()
    return session


def open_chat(options: ChatOptions, bus: EventBus | None = None) -> ChatState:
    """The chat's state: one Session, and a new or resumed transcript."""
    session = open_session_only(options, bus)
    root, settings, model = session.root, session.settings, session.model
    conversation = Conversation(history_budget(model.info))
    try:
        store = (
            SessionStore.create(root, model=model.name)
            if options.resume is None
            else SessionStore.open(root, options.resume or None)
        )
    except SessionNotFound as exc:
        raise ChatError(str(exc)) from exc
    cwd = Path(options.repo).expanduser().resolve()
    state = ChatState(options, root, cwd, settings, session, store, conversation)
    state.allow_edits = options.yes
    if options.resume is not None:
        entries = list(store.entries())
        state.resumed_turns = conversation.replay(entries)
        contexts = [e for e in entries if e["kind"] == "context"]
        if contexts:
            state.files = [str(p) for p in contexts[-1].get("files") or []]
    git = state.git()
    state.start_head = git.head() if git is not None else None
    return state
