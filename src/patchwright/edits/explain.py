"""Failure explanations: why a block failed, the closest actual lines, a retry message,
and what a reply with no edits held instead."""

from __future__ import annotations

import re
from collections.abc import Sequence

from patchwright.edits.fuzzy import closest
from patchwright.edits.match import NotFound
from patchwright.edits.types import ApplyResult

MAX_EXCERPT_LINES = 20


def excerpt(file_lines: Sequence[str], start: int, end: int) -> str:
    """File lines ``start:end`` (0-based) with 1-based line numbers, capped in length and to
    the lines the file has (a SEARCH may run past its end)."""
    start = max(0, min(start, len(file_lines) - 1))
    end = min(end, start + MAX_EXCERPT_LINES, len(file_lines))
    width = len(str(end))
    return "\n".join(f"{i + 1:>{width}} | {file_lines[i]}" for i in range(start, end))


def explain_not_found(
    file_lines: Sequence[str], search: Sequence[str], miss: NotFound
) -> tuple[str, str | None, int | None]:
    """(message, closest excerpt, 1-based line) for a SEARCH that could not be placed."""
    if miss.ambiguous:
        where = ", ".join(str(n) for n in miss.ambiguous[:10])
        msg = (
            f"{miss.message}, starting at lines {where}; it must match exactly one place. "
            "Include more surrounding lines to make it unique."
        )
        first = miss.ambiguous[0] - 1
        return msg, excerpt(file_lines, first, first + max(1, len(search))), miss.ambiguous[0]
    if miss.line is not None:
        first = miss.line - 1
        shown = excerpt(file_lines, first, first + max(1, len(search)))
        return f"{miss.message}.", shown, miss.line
    near = closest(file_lines, search)
    if near is None:
        return f"{miss.message} (the file is empty).", None, None
    msg = (
        f"{miss.message}. The closest lines are {near.start + 1}-{near.end} "
        f"({near.score:.0f}% similar); copy the SEARCH text exactly from the file."
    )
    return msg, excerpt(file_lines, near.start, near.end), near.start + 1


def render_retry_message(outcome: ApplyResult) -> str:
    """A ready-to-send message asking the model to resend only the failed blocks."""
    failed = outcome.failed
    if not failed:
        return "All edit blocks applied."
    total = len(outcome.results)
    parts = [
        f"{len(failed)} of {total} edit block(s) failed, so NO change was made "
        "(edits apply all-or-nothing).",
    ]
    for r in failed:
        parts.append(f"\n## Block {r.index + 1} ({r.path or 'no path'}) failed\n{r.message}")
        if r.closest:
            parts.append(f"Did you mean these lines?\n```\n{r.closest}\n```")
    good = [str(r.index + 1) for r in outcome.results if r.status != "failed"]
    if good:
        parts.append(
            f"\nBlock(s) {', '.join(good)} matched and will be applied together with your "
            "corrections: do not resend them."
        )
    parts.append(
        "\nResend ONLY the failed block(s), each with its file path, SEARCH copied "
        "character for character from the current file (see the lines above), and REPLACE."
    )
    return "\n".join(parts)


_FENCE_LINE = re.compile(r"^\s*(?:`{3,}|~{3,})", re.M)
_JUNK = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ufffd]")
NO_EDITS = "the reply contains no edits"


def describe_no_edits(reply: str) -> str:
    """Why a reply in which no edit was found yields nothing: empty, binary, code blocks
    that name no file, or prose only; with what to send instead."""
    text = reply.removeprefix("\ufeff")
    if not text.strip():
        return f"{NO_EDITS}: it is empty"
    junk = len(_JUNK.findall(text))
    if "\x00" in text or junk > max(2, len(text) // 100):
        return f"{NO_EDITS}: it is not text ({junk} of {len(text)} characters are binary junk)"
    how = (
        "send SEARCH/REPLACE blocks, a unified diff or whole files, each with its file path "
        "on the line before it"
    )
    blocks = len(_FENCE_LINE.findall(text)) // 2
    if blocks:
        return f"{NO_EDITS}: its {blocks} code block(s) name no file; {how}"
    lines = len(text.strip().splitlines())
    return f"{NO_EDITS}: it is prose only ({lines} line(s)); {how}"
