"""The context of a task: which files the model sees, within a token budget.

Priority: files named in the task (or given with ``--include``); then the task's failing
tests — the files their tracebacks point at, the test files themselves, and the code those
tests exercise; then the tests of the files named in the task; then files ranked by the code
index when one exists (``locate`` plus the repo map), else by keyword relevance. Which code a
test exercises, and which tests a file has, is known for Python, JavaScript/TypeScript, Go and
Rust (:mod:`.test_links`). Project memory (AGENTS.md / CLAUDE.md) comes first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from patchwright.agent.memory import read_memory
from patchwright.agent.relations.test_links import CodeLinks
from patchwright.agent.relations.traceback_refs import referenced_files
from patchwright.agent.relevance import mentioned_files, rank_files
from patchwright.index.locate import is_test_path
from patchwright.llm.types import rough_token_count

if TYPE_CHECKING:
    from patchwright.index import RepoIndex

TokenCounter = Callable[[str], int]

_LANGS = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".rb": "ruby",
    ".php": "php",
    ".sh": "bash",
    ".json": "json",
    ".toml": "toml",
    ".md": "markdown",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".css": "css",
    ".html": "html",
    ".cs": "csharp",
}


_PROSE = frozenset({".md", ".rst", ".txt", ".adoc"})
TESTS_PER_FILE = 2  # test files shown for each file the task names


def approx_tokens(text: str) -> int:
    """A fast, slightly pessimistic token estimate for code: the model layer's, at least 1."""
    return max(1, rough_token_count(text))


@dataclass(frozen=True)
class ContextFile:
    path: str
    text: str
    lang: str
    reason: str


@dataclass
class Context:
    files: list[ContextFile] = field(default_factory=list)
    omitted: list[str] = field(default_factory=list)
    repo_map: str = ""
    memory: str = ""
    memory_sources: list[str] = field(default_factory=list)
    tokens: int = 0

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]


@dataclass
class ContextRequest:
    task: str
    texts: dict[str, str]  # readable text files of the repo: path -> text
    budget_tokens: int
    include: Sequence[str] = ()
    failure_output: str = ""
    tests: Sequence[str] = ()  # the files of the failing tests the task must make pass
    index_ranked: Sequence[str] = ()
    repo_map: str = ""
    max_files: int = 8
    max_keyword_files: int = 4


def fence_lang(path: str) -> str:
    """The code fence's language for ``path`` (empty when unknown)."""
    return _LANGS.get(PurePosixPath(path).suffix.lower(), "")


def _candidates(req: ContextRequest) -> list[tuple[str, str]]:
    paths = sorted(req.texts)
    ordered: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(path: str, reason: str) -> None:
        if path in req.texts and path not in seen:
            seen.add(path)
            ordered.append((path, reason))

    links = CodeLinks(req.texts)
    named = [*req.include, *mentioned_files(req.task, paths)]
    for path in req.include:
        add(path, "included")
    for path in named:
        add(path, "named in the task")
    traced = [path for path, _line in referenced_files(req.failure_output, paths)]
    for path in traced:
        add(path, "in a failing test's traceback")
    for path in req.tests:
        add(path, "a failing test of the task")
    for path in [*traced, *req.tests]:
        for module in links.code_under_test(path) if path in req.texts else ():
            add(module, "exercised by a failing test")
    for path in named:
        if path in req.texts and not is_test_path(path):
            for test in [t for t in links.tests_of(path) if t != path][:TESTS_PER_FILE]:
                add(test, "tests a file named in the task")
    for path in req.index_ranked:
        add(path, "ranked by the index")
    ranked = rank_files(req.task + "\n" + req.failure_output, req.texts)
    best = ranked[0][1] if ranked else 0.0
    code = [(p, sc) for p, sc in ranked if PurePosixPath(p).suffix.lower() not in _PROSE]
    for path, score in code[: req.max_keyword_files]:
        if score >= 0.35 * best:
            add(path, "keyword relevance")
    return ordered


def build_context(root: Path, req: ContextRequest, count: TokenCounter = approx_tokens) -> Context:
    """Fill the budget with whole files in priority order; list what did not fit."""
    memory = read_memory(root)
    ctx = Context(memory=memory.text, memory_sources=memory.sources)
    used = count(memory.text) if memory.text else 0
    if req.repo_map and used + count(req.repo_map) < req.budget_tokens // 4:
        ctx.repo_map = req.repo_map
        used += count(req.repo_map)
    for path, reason in _candidates(req):
        text = req.texts[path]
        cost = count(text) + count(path) + 8
        forced = reason in ("included", "named in the task")
        fits = used + cost <= req.budget_tokens
        if len(ctx.files) < req.max_files and (fits or (forced and not ctx.files)):
            ctx.files.append(ContextFile(path, text.rstrip("\n"), fence_lang(path), reason))
            used += cost
        elif forced or reason != "keyword relevance" or len(ctx.omitted) < 10:
            ctx.omitted.append(path)
    ctx.tokens = used
    return ctx


def index_ranked(index: RepoIndex | None, task: str) -> list[str]:
    """The files the code index ranks first for ``task`` (none without an index)."""
    return [] if index is None else [f.path for f in index.locate(task, k=10).files]


def repo_outline(index: RepoIndex | None, task: str, tokens: int = 600) -> str:
    """The repository map focused on the files ``task`` is about ("" without an index)."""
    if index is None:
        return ""
    focus = [f.path for f in index.locate(task, k=5).files]
    return str(index.repo_map(focus=focus, tokens=tokens))


def included_files(
    texts: dict[str, str], include: Sequence[str], budget_tokens: int,
    count: TokenCounter = approx_tokens,
) -> tuple[list[ContextFile], list[str]]:  # fmt: skip
    """The files given with ``--include`` that fit ``budget_tokens`` (the first always), and
    those that did not; paths that are not readable text files of the repository are left
    out."""
    shown: list[ContextFile] = []
    omitted: list[str] = []
    used = 0
    for path in include:
        if path not in texts:
            continue
        cost = count(texts[path]) + count(path) + 8
        if shown and used + cost > budget_tokens:
            omitted.append(path)
            continue
        shown.append(ContextFile(path, texts[path].rstrip("\n"), fence_lang(path), "included"))
        used += cost
    return shown, omitted
