"""ANALYSIS.md and SYMBOLS.json: the project map the review loop works from (PyOB's layout).

ANALYSIS.md opens with a one-paragraph project summary, then gives every code file a
one-sentence summary and its definitions' signatures in collapsible sections (imports,
classes, functions, constants). SYMBOLS.json is the index's symbol ledger. Summaries come
from the file itself where it says what it does (a module docstring or a leading comment);
the model writes the others, at most ``model_budget`` per refresh (the rest get an outline
and are summarised on a later refresh), so a large repository is mapped in seconds.
Summaries are cached by content hash: a refresh redoes only the files that changed.
"""

from __future__ import annotations

import ast
import hashlib
import html
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from patchwright.agent.prompts import render
from patchwright.events import EventBus, ReviewAnalysis
from patchwright.index import FileSymbols, RepoIndex
from patchwright.llm import Model
from patchwright.modes.review.ask import ask_text
from patchwright.modes.review.files import ReviewPaths, one_line

CACHE = "analysis.json"
_SUMMARY_LINES = 150  # lines of a file shown to the model for its summary
_LEADING_COMMENT = re.compile(r"^\s*(?://|#(?!!))\s*(\S.*)$")


@dataclass
class Analysis:
    paths: ReviewPaths
    model: Model
    bus: EventBus
    model_budget: int = 12
    summaries: dict[str, str] = field(default_factory=dict)
    project: str = ""

    def refresh(self, index: RepoIndex, texts: Mapping[str, str], files: Sequence[str]) -> None:
        """Bring ANALYSIS.md and SYMBOLS.json up to date with ``files`` (their ``texts``)."""
        cache = self.paths.load_cache(CACHE)
        known: dict[str, dict[str, str]] = cache.get("files", {})
        fresh: dict[str, dict[str, str]] = {}
        budget, by_model = self.model_budget, 0
        for path in files:
            text = texts.get(path, "")
            sha = hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()
            entry = known.get(path)
            if entry is None or entry.get("sha") != sha or entry.get("by") == "outline":
                summary, by = _own_summary(path, text), "file"
                if summary is None and budget > 0:
                    budget -= 1
                    summary = self._ask_summary(path, text)
                    by, by_model = "model", by_model + (summary is not None)
                if summary is None:
                    summary, by = _outline(index.symbols.get(path)), "outline"
                entry = {"sha": sha, "summary": summary, "by": by}
            fresh[path] = entry
        self.summaries = {p: e["summary"] for p, e in fresh.items()}
        self.project = self._project_summary(cache, texts, budget > 0)
        self.paths.save_cache(CACHE, {"files": fresh, "project": self.project})
        self.paths.write("ANALYSIS.md", self.render(index.symbols, texts))
        index.write_ledger(self.paths.file("SYMBOLS.json"))
        self.bus.emit(ReviewAnalysis(files=len(fresh), by_model=by_model,
                                     path=str(self.paths.file("ANALYSIS.md"))))  # fmt: skip

    def _ask_summary(self, path: str, text: str) -> str | None:
        shown = "\n".join(text.splitlines()[:_SUMMARY_LINES])
        prompt = render("review_summary", path=path, lang=_lang(path), text=shown)
        answer = ask_text(self.model, prompt, bus=self.bus, phase="summary", max_tokens=60)
        return one_line(answer, 240) if answer else None

    def _project_summary(
        self, cache: Mapping[str, object], texts: Mapping[str, str], may_ask: bool
    ) -> str:
        own = _readme_paragraph(texts) or _package_description(texts)
        if own:
            return own
        cached = cache.get("project")
        if isinstance(cached, str) and cached:
            return cached
        if may_ask and self.summaries:
            listed = sorted(self.summaries.items())[:40]
            answer = ask_text(self.model, render("review_project", files=listed),
                              bus=self.bus, phase="summary", max_tokens=160)  # fmt: skip
            if answer:
                return one_line(answer, 700)
        return f"A project of {len(self.summaries)} code file(s)."

    def render(self, symbols: Mapping[str, FileSymbols], texts: Mapping[str, str]) -> str:
        parts = ["# Project Analysis", "", f"**Project Summary:** {self.project}", "", "---",
                 "", "## File Directory", ""]  # fmt: skip
        for path, summary in sorted(self.summaries.items()):
            parts += [f"### `{path}`", f"**Summary:** {summary}", ""]
            parts += _dropdowns(symbols.get(path), texts.get(path, ""))
            parts += ["", "---", ""]
        return "\n".join(parts).rstrip() + "\n"

    def excerpt(self, paths: Sequence[str], chars: int = 1200) -> str:
        """The project summary and the given files' summaries, for a prompt."""
        lines = [self.project] + [
            f"- {p}: {self.summaries[p]}" for p in paths if p in self.summaries
        ]
        return "\n".join(lines)[:chars]


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


def _dropdowns(fs: FileSymbols | None, text: str) -> list[str]:
    if fs is None:
        return []
    classes = [d.signature for d in fs.definitions if d.kind == "class"]
    funcs = [d.signature for d in fs.definitions if d.kind in ("function", "method")]
    consts = _constants(text) if fs.path.endswith(".py") else []
    consts += [d.name for d in fs.definitions if d.kind not in ("class", "function", "method")]
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
