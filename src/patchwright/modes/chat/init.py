"""``/init`` and ``patchwright init``: write AGENTS.md (and CLAUDE.md) from what the
repository shows and the model's summary of it — shown first, never overwriting."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from patchwright import interrupts
from patchwright.agent.prompts import render
from patchwright.agent.session import Session
from patchwright.llm import ModelError
from patchwright.modes.chat.project_facts import ProjectFacts, gather_facts

CLAUDE_MODES = ("pointer", "copy", "none")
CLAUDE_POINTER = (
    "# CLAUDE.md\n\nThis project's notes for coding agents live in AGENTS.md:\n\n@AGENTS.md\n"
)


class InitError(Exception):
    """The memory files could not be written; the message says why."""


@dataclass
class Summary:
    overview: str
    architecture: str
    by_model: bool


def _parse(reply: str) -> tuple[str, str]:
    match = re.search(r"OVERVIEW:\s*(.*?)\s*ARCHITECTURE:\s*(.*)", reply, re.DOTALL | re.IGNORECASE)
    if not match:
        return "", ""
    overview = match.group(1).strip()
    bullets = [
        line.rstrip() for line in match.group(2).splitlines() if line.strip().startswith(("-", "*"))
    ]
    return overview, "\n".join("- " + b.lstrip("-* ").strip() for b in bullets[:12])


def summarise(
    session: Session, facts: ProjectFacts, on_token: Callable[[str], None] | None = None
) -> Summary:
    """The model's overview and architecture map; the README's first paragraph (and the
    folder list) when the model cannot give one."""
    index = session.index
    repo_map = str(index.repo_map(tokens=700)) if index is not None else ""
    prompt = render("init", facts=facts, repo_map=repo_map)

    def token(piece: str) -> None:
        interrupts.check()
        if on_token is not None:
            on_token(piece)

    try:
        reply = session.model.complete(
            [{"role": "user", "content": prompt}], on_token=token, max_tokens=500
        )
        overview, architecture = _parse(reply.text)
    except ModelError:
        overview, architecture = "", ""
    if overview:
        return Summary(overview, architecture, True)
    return Summary(
        _readme_paragraph(facts) or f"{facts.name}: (describe the project here)",
        architecture,
        False,
    )


def _readme_paragraph(facts: ProjectFacts) -> str:
    for block in facts.readme.split("\n\n"):
        text = block.strip()
        if text and not text.startswith(("#", "```", "[!", "<", "|")):
            return " ".join(text.split())[:600]
    return ""


def compose(facts: ProjectFacts, summary: Summary) -> str:
    return render(
        "init_agents", facts=facts, overview=summary.overview, architecture=summary.architecture
    )


def _write_new(path: Path, text: str) -> None:
    """Create ``path`` with ``text``; an existing file is never replaced."""
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError as exc:
        raise InitError(f"{path.name} appeared meanwhile; it was left as it is") from exc
    except OSError as exc:
        raise InitError(f"cannot write {path}: {exc}") from exc


def _draft(
    session: Session, console: Console, use_model: bool, on_token: Callable[[str], None] | None
) -> str:
    """AGENTS.md from the repository's facts and (``use_model``) the model's overview."""
    facts = gather_facts(session.root)
    tests = escape(facts.test_cmd or "none found")
    console.print(f"[dim]· read the repository: {facts.files} files; tests: {tests}[/]")
    if not use_model:
        readme = _readme_paragraph(facts) or f"{facts.name}: (describe the project here)"
        return compose(facts, Summary(readme, "", False))
    console.print("[dim]· asking the model for an overview…[/]")
    return compose(facts, summarise(session, facts, on_token))


def run_init(
    session: Session,
    console: Console,
    confirm: Callable[..., bool],
    *,
    claude: str = "pointer",
    on_token: Callable[[str], None] | None = None,
    end_stream: Callable[[], None] = lambda: None,
    use_model: bool = True,
) -> list[str]:
    """Compose AGENTS.md, show it, and on the user's yes write it (and CLAUDE.md as a
    pointer to it, a copy, or not at all). Returns the files written."""
    if claude not in CLAUDE_MODES:
        raise InitError(f"--claude {claude}: use one of {', '.join(CLAUDE_MODES)}")
    root = session.root
    agents, claude_md = root / "AGENTS.md", root / "CLAUDE.md"
    written: list[str] = []
    if agents.exists():
        console.print(
            "AGENTS.md already exists; /init never overwrites it (edit it, or delete it and run /init again)"
        )
        text = agents.read_text(encoding="utf-8", errors="replace")
    else:
        try:
            text = _draft(session, console, use_model, on_token)
        finally:
            end_stream()
        console.print(Syntax(text, "markdown", theme="ansi_dark", word_wrap=True))
        if not confirm("Write AGENTS.md?", default=True):
            console.print("nothing written")
            return written
        _write_new(agents, text)
        written.append("AGENTS.md")
    if claude != "none" and not claude_md.exists():
        body = CLAUDE_POINTER if claude == "pointer" else text
        if written or confirm(f"Write CLAUDE.md ({claude} to AGENTS.md)?", default=True):
            _write_new(claude_md, body)
            written.append("CLAUDE.md")
    if written:
        console.print(
            f"[green]wrote {', '.join(written)}[/]; every prompt now includes them (see /tokens)"
        )
    return written
