"""ANALYSIS.md and SYMBOLS.json: the project map the review loop works from (PyOB's layout).

ANALYSIS.md opens with a one-paragraph project summary, then gives every code file a
one-sentence summary and its definitions' signatures in collapsible sections (imports,
classes, functions, constants). SYMBOLS.json is the index's symbol ledger, rewritten only when
it changed (the index re-reads only changed files).

A file's summary is what it says of itself — its module docstring's or leading comment's
first sentence, capped at 240 characters — and costs no model call. The model summarises
only the files that say nothing, and lazily: not at bootstrap, but when the loop is about to
show the file to the model (the target and the files that use it, :meth:`Analysis.ensure`),
at most ``per_target`` at a time and ``model_budget`` in a run; until then such a file is
described by its definitions ("Defines `a`, `b`."). Entries are cached by content hash, so a
refresh reads again only the files that changed, and a summary the model wrote is kept until
its file changes.
"""

from __future__ import annotations

import ast
import html
import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from patchwright.agent.prompts import render
from patchwright.events import EventBus, ReviewAnalysis
from patchwright.index import FileSymbols, RepoIndex
from patchwright.llm import Model
from patchwright.modes.review.ask import ask_text
from patchwright.modes.review.files import ReviewPaths, one_line, sha

CACHE = "analysis.json"
_SUMMARY_LINES = 150  # lines of a file shown to the model for its summary
_LEADING_COMMENT = re.compile(r"^\s*(?://|#(?!!))\s*(\S.*)$")


@dataclass
class Analysis:
    paths: ReviewPaths
    model: Model
    bus: EventBus
    model_budget: int = 12  # model summaries in a run (the project's included)
    per_target: int = 3  # model summaries asked before one proposal
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    project: str = ""
    asked: int = 0
    _tried: set[str] = field(default_factory=set)

    @property
    def summaries(self) -> dict[str, str]:
        return {p: str(e["summary"]) for p, e in self.entries.items()}

    def refresh(self, index: RepoIndex, texts: Mapping[str, str], files: Sequence[str]) -> None:
        """Bring ANALYSIS.md and SYMBOLS.json up to date with ``files`` (their ``texts``);
        only new and changed files are read, and no file summary is asked of the model."""
        cache = self.paths.load_cache(CACHE)
        known: dict[str, dict[str, Any]] = cache.get("files", {})
        fresh: dict[str, dict[str, Any]] = {}
        for path in files:
            text = texts.get(path, "")
            digest = sha(text)
            entry = known.get(path)
            if entry is None or entry.get("sha") != digest or "constants" not in entry:
                entry = _entry(path, text, digest, index.symbols.get(path), entry)
            fresh[path] = entry
        self.entries = fresh
        before = self.asked
        self.project = self._project_summary(cache, texts)
        self._write(index, ledger=True, by_model=self.asked - before)

    def ensure(
        self, paths: Sequence[str], texts: Mapping[str, str], index: RepoIndex,
        on_ask: Callable[[str], None] = lambda path: None,
    ) -> int:  # fmt: skip
        """Ask the model for the summaries ``paths`` lack (in their order, within the caps);
        ``on_ask`` is told of each before it is asked. Returns how many were asked."""
        asked = 0
        for path in dict.fromkeys(paths):
            entry = self.entries.get(path)
            if entry is None or entry.get("by") != "outline" or path in self._tried:
                continue
            if asked >= self.per_target or self.asked >= self.model_budget:
                break
            on_ask(path)
            self._tried.add(path)
            asked, self.asked = asked + 1, self.asked + 1
            summary = self._ask_summary(path, texts.get(path, ""))
            if summary:
                entry["summary"], entry["by"] = summary, "model"
        if asked:
            self._write(index, ledger=False, by_model=asked)
        return asked

    def _write(self, index: RepoIndex, *, ledger: bool, by_model: int) -> None:
        self.paths.save_cache(CACHE, {"files": self.entries, "project": self.project})
        _write_if_changed(self.paths, "ANALYSIS.md", self.render(index.symbols))
        if ledger:
            _write_if_changed(
                self.paths, "SYMBOLS.json", json.dumps(index.ledger(), indent=2) + "\n"
            )
        self.bus.emit(ReviewAnalysis(files=len(self.entries), by_model=by_model,
                                     path=str(self.paths.file("ANALYSIS.md"))))  # fmt: skip

    def _ask_summary(self, path: str, text: str) -> str | None:
        shown = "\n".join(text.splitlines()[:_SUMMARY_LINES])
        prompt = render("review_summary", path=path, lang=_lang(path), text=shown)
        answer = ask_text(self.model, prompt, bus=self.bus, phase="summary", max_tokens=60)
        return one_line(answer, 240) if answer else None

    def _project_summary(self, cache: Mapping[str, object], texts: Mapping[str, str]) -> str:
        own = _readme_paragraph(texts) or _package_description(texts)
        if own:
            return own
        cached = cache.get("project")
        if isinstance(cached, str) and cached:
            return cached
        if self.asked < self.model_budget and self.entries:
            self.asked += 1
            listed = sorted(self.summaries.items())[:40]
            answer = ask_text(self.model, render("review_project", files=listed),
                              bus=self.bus, phase="summary", max_tokens=160)  # fmt: skip
            if answer:
                return one_line(answer, 700)
        return f"A project of {len(self.entries)} code file(s)."

    def render(self, symbols: Mapping[str, FileSymbols]) -> str:
        parts = ["# Project Analysis", "", f"**Project Summary:** {self.project}", "", "---",
                 "", "## File Directory", ""]  # fmt: skip
        for path, entry in sorted(self.entries.items()):
            parts += [f"### `{path}`", f"**Summary:** {entry['summary']}", ""]
            parts += _dropdowns(symbols.get(path), list(entry.get("constants", [])))
            parts += ["", "---", ""]
        return "\n".join(parts).rstrip() + "\n"

    def excerpt(self, paths: Sequence[str], chars: int = 1200) -> str:
        """The project summary and the given files' summaries, for a prompt."""
        summaries = self.summaries
        lines = [self.project] + [f"- {p}: {summaries[p]}" for p in paths if p in summaries]
        return "\n".join(lines)[:chars]


def _write_if_changed(paths: ReviewPaths, name: str, text: str) -> None:
    if paths.read(name) != text:
        paths.write(name, text)


def _entry(
    path: str, text: str, digest: str, fs: FileSymbols | None, old: dict[str, Any] | None
) -> dict[str, Any]:
    """A file's cache entry: its summary (its own, else its outline) and its constants; a
    model's summary of the same content is kept."""
    constants = _constants(text) if path.endswith(".py") else []
    if old is not None and old.get("sha") == digest and old.get("by") in ("file", "model"):
        return {**old, "constants": constants}
    own = _own_summary(path, text)
    if own is not None:
        return {"sha": digest, "summary": own, "by": "file", "constants": constants}
    return {"sha": digest, "summary": _outline(fs), "by": "outline", "constants": constants}


def _lang(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lower()
    return {".py": "python", ".js": "javascript", ".ts": "typescript"}.get(suffix, "")


def _own_summary(path: str, text: str) -> str | None:
    """What the file says it does: the docstring's or leading comment's first sentence."""
    doc: str | None = None
    if path.endswith(".py"):
        try:
            doc = ast.get_docstring(ast.parse(text))
        except (SyntaxError, ValueError):
            doc = None
    else:
        lead = []
        for line in text.splitlines()[:8]:
            m = _LEADING_COMMENT.match(line)
            if not m:
                break
            lead.append(m.group(1))
        doc = " ".join(lead) or None
    if not doc or not doc.strip():
        return None
    first = " ".join(doc.strip().split("\n\n")[0].split())
    sentence = re.split(r"(?<=[.!?])\s", first, maxsplit=1)[0]
    return one_line(sentence, 240)


def _outline(fs: FileSymbols | None) -> str:
    names = [d.name for d in fs.definitions if d.kind in ("class", "function")] if fs else []
    if not names:
        return "No summary yet."
    shown = ", ".join(f"`{n}`" for n in names[:6]) + (" …" if len(names) > 6 else "")
    return f"Defines {shown}."


def _constants(text: str) -> list[str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        out += [t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()]
    return out


def _dropdowns(fs: FileSymbols | None, constants: list[str]) -> list[str]:
    if fs is None:
        return []
    classes = [d.signature for d in fs.definitions if d.kind == "class"]
    funcs = [d.signature for d in fs.definitions if d.kind in ("function", "method")]
    consts = constants + [
        d.name for d in fs.definitions if d.kind not in ("class", "function", "method")
    ]
    sections = (("Imports", fs.imports), ("Classes/Structures", classes),
                ("Logic/Functions", funcs), ("Entities/Constants", consts))  # fmt: skip
    out = []
    for title, items in sections:
        if items:
            body = "<br>".join(f"<code>{html.escape(one_line(i, 160))}</code>" for i in items)
            out.append(f"<details><summary>{title} ({len(items)})</summary>{body}</details>")
    return out


def _readme_paragraph(texts: Mapping[str, str]) -> str | None:
    for name in ("README.md", "README.rst", "README.txt", "README"):
        text = texts.get(name)
        if not text:
            continue
        for block in re.split(r"\n\s*\n", text):
            line = " ".join(block.split())
            if line and not line.startswith(("#", "[!", "![", "=", "-", "<", "```", "|")):
                return one_line(line, 700)
    return None


def _package_description(texts: Mapping[str, str]) -> str | None:
    try:
        data = tomllib.loads(texts.get("pyproject.toml", ""))
    except tomllib.TOMLDecodeError:
        return None
    description = data.get("project", {}).get("description")
    return one_line(description, 700) if isinstance(description, str) and description else None
