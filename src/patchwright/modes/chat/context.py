"""What a chat question shows the model — project memory, the repository outline, the files
kept in context, the conversation — and what of it would be dropped (``/tokens``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from patchwright.agent.context import ContextFile, approx_tokens
from patchwright.agent.memory import read_memory
from patchwright.grammars import language_for_path
from patchwright.llm import ModelInfo
from patchwright.modes.chat.state import ChatState
from patchwright.workspace.errors import WorkspaceError
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import read_text_file

REPLY_TOKENS = 1024


@dataclass
class ChatContext:
    budget: int  # tokens for the whole prompt, the reply left out
    memory: str = ""
    memory_sources: list[str] = field(default_factory=list)
    repo_map: str = ""
    files: list[ContextFile] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)  # kept in context, over the budget
    unreadable: dict[str, str] = field(default_factory=dict)
    conversation: int = 0  # tokens of the conversation

    @property
    def tokens(self) -> int:
        shown = sum(approx_tokens(f.text) + 8 for f in self.files)
        return _tokens(self.memory) + _tokens(self.repo_map) + shown + self.conversation


def _tokens(text: str) -> int:
    """The estimate of ``text``, and 0 for none: an absent memory or outline takes no room
    (approx_tokens is at least 1), so /tokens' total is the sum of its rows."""
    return approx_tokens(text) if text else 0


def prompt_budget(info: ModelInfo) -> int:
    """Tokens a question's prompt may take: lean for the embedded model (prefill is slow on
    a CPU), most of the window otherwise."""
    if info.embedded:
        return 3500
    return max(4000, min(int(info.context_window * 0.6) - REPLY_TOKENS, 60000))


def gather(state: ChatState, *, with_map: bool = True) -> ChatContext:
    """The context of the next question, filled in priority order: memory, conversation,
    files kept in context (in the order added), then the outline if room is left."""
    model = state.session.model
    ctx = ChatContext(prompt_budget(model.info))
    memory = read_memory(state.root, state.cwd)
    ctx.memory, ctx.memory_sources = memory.text, memory.sources
    ctx.conversation = state.conversation.tokens()
    used = _tokens(ctx.memory) + ctx.conversation
    for path in state.files:
        try:
            text = read_text_file(confine(state.root, path)).text
        except (OSError, WorkspaceError) as exc:
            ctx.unreadable[path] = str(exc)
            continue
        cost = approx_tokens(text) + 8
        if used + cost > ctx.budget:
            ctx.omitted.append(path)
            continue
        ctx.files.append(
            ContextFile(path, text.rstrip("\n"), language_for_path(path) or "", "added")
        )
        used += cost
    room = ctx.budget - used
    if with_map and room > 300:
        index = state.session.index
        if index is not None:
            ctx.repo_map = str(index.repo_map(focus=state.files, tokens=min(room // 2, 1000)))
    return ctx
