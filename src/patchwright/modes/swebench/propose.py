"""Candidates for an instance: K replies sampled from one prompt (the pipeline strategy:
patchwright shows the suspects' code, the model answers with edits), or the dataset's own
patch (``--model gold``)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwright.agent.context import approx_tokens
from patchwright.agent.prompts import render
from patchwright.agent.request import RunError
from patchwright.agent.session import Session
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import CandidateReply
from patchwright.llm import Message
from patchwright.modes.swebench.code import changed_lines
from patchwright.modes.swebench.localise import Suspect
from patchwright.modes.swebench.tests import PatchError
from patchwright.modes.swebench.tnr import Candidate
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, read_text_file

SAMPLE_TEMPERATURE = 0.7
MAX_ISSUE_CHARS = 4000


@dataclass(frozen=True)
class Prompt:
    """What the model is told about the instance."""

    problem: str
    suspects: Sequence[Suspect]
    failures: str = ""
    feedback: str = ""


def excerpt(text: str, suspect: Suspect, pad: int = 2, max_lines: int = 80) -> str:
    """The suspect's lines of ``text`` (and ``pad`` around), numbered."""
    lines = text.splitlines()
    start = max(suspect.line - 1 - pad, 0)
    end = min(suspect.end + pad, len(lines), start + max_lines)
    return "\n".join(f"{n + 1:5d} {lines[n]}" for n in range(start, end))


def repo_files(repo: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=False)
    return out.stdout.splitlines()


class Reader:
    """Files of a checkout, confined to it."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo

    def file(self, path: str) -> TextFile | None:
        target = confine(self.repo, path)
        return read_text_file(target) if target.is_file() else None

    def text(self, path: str) -> str | None:
        found = self.file(path)
        return found.text if found is not None else None

    def confine(self, path: str) -> None:
        confine(self.repo, path)


def excerpt_format(requested: str) -> str:
    """The edit format of ``[run] edit_format`` for replies to excerpts of the suspects'
    code: ``auto`` is SEARCH/REPLACE (``diff``); ``whole`` cannot be asked for, since the
    model is shown excerpts, not whole files (:class:`RunError`)."""
    if requested == "whole":
        raise RunError(
            "[run] edit_format = whole: SWE-bench shows the model excerpts of the suspect "
            "code, not whole files, so it cannot answer with whole files; use auto, diff or "
            "udiff"
        )
    if requested not in ("auto", "diff", "udiff"):
        raise RunError(f"[run] edit_format = {requested}: use auto, diff or udiff")
    return "diff" if requested == "auto" else requested


def messages_for(
    prompt: Prompt, reader: Reader, budget_tokens: int, fmt: str = "diff"
) -> list[Message]:
    """The system and task messages, the suspects' code within ``budget_tokens``, the reply
    asked for in ``fmt`` (diff or udiff)."""
    shown: list[dict[str, str]] = []
    used = approx_tokens(prompt.problem[:MAX_ISSUE_CHARS] + prompt.failures + prompt.feedback)
    for suspect in prompt.suspects:
        code = excerpt(reader.text(suspect.path) or "", suspect)
        if shown and used + approx_tokens(code) > budget_tokens:
            break
        used += approx_tokens(code)
        shown.append({"path": suspect.path, "name": suspect.name, "code": code})
    task = render("swebench_task", problem=prompt.problem[:MAX_ISSUE_CHARS],
                  failures=prompt.failures, suspects=shown, feedback=prompt.feedback,
                  fmt=fmt)  # fmt: skip
    return [
        {"role": "system", "content": render("system", fmt=fmt)},
        {"role": "user", "content": task},
    ]


def model_candidates(
    session: Session, prompt: Prompt, *, k: int, first: int, reply_tokens: int = 1024,
    budget_tokens: int = 3000, protected: Sequence[str] = (), fmt: str = "diff",
) -> list[Candidate]:  # fmt: skip
    """``k`` replies to the same prompt (the first greedy, the rest sampled), each turned
    into a candidate; a reply whose edits do not apply is a refused candidate."""
    reader = Reader(session.root)
    messages = messages_for(prompt, reader, budget_tokens, fmt)
    files = repo_files(session.root)
    shown = [s.path for s in prompt.suspects]
    out = []
    for i in range(k):
        temperature = None if i == 0 else SAMPLE_TEMPERATURE
        reply = session.model.complete(messages, max_tokens=reply_tokens, temperature=temperature,
                                       phase="candidate")  # fmt: skip
        session.bus.emit(CandidateReply(candidate=first + i, text=reply.text))
        working = WorkingCopy(files, reader.file, reader.confine, protected, shown)
        attempt = working.apply_reply(reply.text)
        if attempt.ok and working.changes():
            out.append(Candidate(first + i, working.changes()))
        else:
            why = attempt.feedback.strip().splitlines()[:3] or ["the reply changed nothing"]
            out.append(Candidate(first + i, {}, refused=["reply: " + " ".join(why)[:300]]))
    return out


def changes_from_diff(repo: Path, patch: str) -> dict[str, bytes | None]:
    """The new bytes of every file a unified diff touches (None: deleted), computed by
    ``git apply`` on copies of those files, outside the checkout."""
    paths = list(changed_lines(patch))
    scratch = Path(tempfile.mkdtemp(prefix="patchwright-diff-"))
    try:
        for path in paths:
            source = repo / path
            if source.is_file():
                (scratch / path).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, scratch / path)
        proc = subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=scratch,
                              input=patch, capture_output=True, text=True, check=False)  # fmt: skip
        if proc.returncode != 0:
            raise PatchError(proc.stderr.strip()[-800:])
        return {p: (scratch / p).read_bytes() if (scratch / p).is_file() else None for p in paths}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def gold_candidate(repo: Path, patch: str) -> Candidate:
    """The dataset's own patch as the only candidate (the oracle)."""
    try:
        return Candidate(1, changes_from_diff(repo, patch), source="gold")
    except PatchError as exc:
        return Candidate(1, {}, source="gold", refused=[f"the gold patch does not apply: {exc}"])
