"""Tools that change files: ``edit`` (any reply format the edit engine parses), ``write_file``
and ``delete_file``. Changes land in the working copy first and are then mirrored to disk in
the run's transaction, so commands and tests see them and a stop restores the repository."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from patchwright.agent.tools.base import FunctionTool, Observation, arg, schema
from patchwright.agent.tools.bench import Workbench
from patchwright.edits import EditError, unified_diff

MAX_DIFF_CHARS = 2500


def _diff_of(bench: Workbench, paths: list[str], before: Mapping[str, str | None]) -> str:
    text = unified_diff(((p, before.get(p), bench.working.text(p)) for p in paths), context=1)
    return text[:MAX_DIFF_CHARS] + ("\n[... diff cut]" if len(text) > MAX_DIFF_CHARS else "")


def edit(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    reply = arg(args, "edits", str)
    before = {p: bench.working.text(p) for p in bench.files()}
    attempt = bench.working.apply_reply(reply)
    if not attempt.ok:
        return Observation(f"nothing was changed:\n{attempt.feedback}".strip(), ok=False)
    bench.sync()
    notes = "".join(f"\nnote: {n}" for n in attempt.notes)
    return Observation(
        f"applied to {', '.join(attempt.applied)}{notes}\n{_diff_of(bench, attempt.applied, before)}"
    )


def write_file(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    content = arg(args, "content", str)
    try:
        path = bench.working.write(arg(args, "path", str), content)
    except (EditError, OSError, ValueError) as exc:
        return Observation(f"not written: {exc}", ok=False)
    bench.sync()
    return Observation(f"wrote {path} ({len(content.splitlines())} lines)")


def delete_file(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    try:
        path = bench.working.write(arg(args, "path", str), None)
    except (EditError, OSError, ValueError) as exc:
        return Observation(f"not deleted: {exc}", ok=False)
    bench.sync()
    return Observation(f"deleted {path}")


EDIT_HELP = {
    "whole": "Change files by sending each changed file whole: its path on a line by itself, "
    "then its complete new content in a fenced block.",
    "udiff": "Change files with a unified diff: --- a/PATH and +++ b/PATH lines, then @@ hunks "
    "whose context and - lines copy the current file exactly.",
}
EDIT_HELP_ANY = (
    "Change files with SEARCH/REPLACE blocks (the file path on the line before each block), a "
    "unified diff, or whole files."
)


def writing_tools(bench: Workbench) -> list[FunctionTool]:
    """``edit`` asks for ``bench.edit_format`` (any format it parses is still applied)."""
    s = {"type": "string"}
    return [
        FunctionTool("edit", EDIT_HELP.get(bench.edit_format, EDIT_HELP_ANY),
                     schema(["edits"], edits=s), lambda a: edit(bench, a)),
        FunctionTool("write_file", "Create or overwrite a file with the given content.",
                     schema(["path", "content"], path=s, content=s), lambda a: write_file(bench, a)),
        FunctionTool("delete_file", "Delete a file.", schema(["path"], path=s),
                     lambda a: delete_file(bench, a)),
    ]  # fmt: skip
