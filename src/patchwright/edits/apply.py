"""Applying a set of edits over many files in memory, all or nothing, in reply order.

Each block is matched against the text as updated by the blocks before it. When any
block fails, the outcome carries no new texts (nothing may be written) but every
block still gets a result, so the model learns which blocks would have applied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from patchwright.edits.brace_merge import lacks_package_clause
from patchwright.edits.dropped import dropped_definitions, merge_definitions
from patchwright.edits.elision import is_elision
from patchwright.edits.explain import explain_not_found
from patchwright.edits.go_imports import add_std_imports
from patchwright.edits.go_unused import tidy
from patchwright.edits.imports import restore_imports
from patchwright.edits.locate import already_present, covers_match, locate
from patchwright.edits.match import Found, split_lines
from patchwright.edits.paths import resolve_path
from patchwright.edits.quotes import straighten_added_quotes
from patchwright.edits.rust_test_links import keep_test_links
from patchwright.edits.types import ApplyResult, BlockResult, Edit, PathResolutionError


def to_lines(text: str) -> tuple[list[str], bool]:
    """Split file text into lines and whether it ends with a newline."""
    if text == "":
        return [], False
    final = text.endswith("\n")
    body = text[:-1] if final else text
    return body.split("\n"), final


def from_lines(lines: Sequence[str], final_newline: bool) -> str:
    """Join lines back, restoring the final newline when the file had one."""
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline else "")


def _content(text: str) -> str:
    return text if text == "" or text.endswith("\n") else text + "\n"


def _fail(index: int, edit: Edit, message: str) -> tuple[BlockResult, str | None]:
    return BlockResult(index, edit.path, "failed", None, message), None


def _apply_whole(index: int, edit: Edit, current: str | None) -> tuple[BlockResult, str | None]:
    new = _content(edit.replace)
    if edit.kind == "delete":
        if current is None:
            return _fail(index, edit, f"cannot delete {edit.path}: no such file")
        return BlockResult(index, edit.path, "applied", "delete"), None
    if any(is_elision(x) for x in split_lines(new)):
        return _fail(
            index,
            edit,
            f"the new content of {edit.path} elides code with '...': send SEARCH/REPLACE "
            "blocks for the parts that change instead of a partial file",
        )
    if current is not None and current.rstrip() == new.rstrip():
        return BlockResult(
            index, edit.path, "already_applied", None, "file already has this content"
        ), current
    if edit.kind == "create" and current is not None and current.strip():
        return _fail(
            index, edit, f"cannot create {edit.path}: it exists; change it with SEARCH/REPLACE"
        )
    if edit.fmt == "definitions" and current is not None:
        return _apply_definitions(index, edit, current, new)
    lost = [] if current is None else dropped_definitions(edit.path, current, new)
    headless = current is not None and lacks_package_clause(edit.path, current, new)
    partial = lost or headless
    merged = merge_definitions(current, new, edit.path) if partial and current else None
    if merged is not None:
        left_out = ", ".join(lost) or "the package clause"
        return BlockResult(
            index, edit.path, "applied", "merge",
            f"the reply left out {left_out}; read as the definitions it changes, "
            "the rest of the file kept",
        ), merged  # fmt: skip
    if lost:
        return _fail(
            index,
            edit,
            f"the new content of {edit.path} drops {', '.join(lost)}, which the file defines: "
            "send the whole file with every definition kept, or SEARCH/REPLACE blocks for "
            "the parts that change (to delete a definition on purpose, use a block whose "
            "REPLACE is empty)",
        )
    strategy = "create" if current is None or not current.strip() else "whole"
    return BlockResult(index, edit.path, "applied", strategy), new


def _apply_definitions(
    index: int, edit: Edit, current: str, new: str
) -> tuple[BlockResult, str | None]:
    """A block of definitions only (no path named): each replaces its namesake in the file."""
    merged = merge_definitions(current, new, edit.path)
    if merged is None:
        return _fail(index, edit, f"the code block's definitions could not be placed in "
                     f"{edit.path}: write the file path on a line by itself before the block")  # fmt: skip
    return BlockResult(index, edit.path, "applied", "merge"), merged


def _apply_empty_search(
    index: int, edit: Edit, current: str | None
) -> tuple[BlockResult, str | None]:
    if current is None or not current.strip():
        return BlockResult(index, edit.path, "applied", "create"), _content(edit.replace)
    lines, _ = to_lines(current)
    if already_present(lines, [], split_lines(edit.replace)):
        return BlockResult(
            index, edit.path, "already_applied", None, "REPLACE text already present"
        ), current
    return _fail(
        index,
        edit,
        f"the SEARCH block is empty but {edit.path} is not: an empty SEARCH only creates a "
        "file or fills an empty one. Put the lines to replace (or to insert after) in SEARCH.",
    )


def apply_one(index: int, edit: Edit, current: str | None) -> tuple[BlockResult, str | None]:
    """Apply one edit to ``current`` (None = absent); returns its result and the new text.

    Text with CRLF newlines (a caller that skipped the byte boundary) keeps them.
    """
    if current is not None and "\r\n" in current:
        result, new = _apply_read(index, edit, current.replace("\r\n", "\n"))
        return result, None if new is None else new.replace("\n", "\r\n")
    return _apply_read(index, edit, current)


def _apply_read(index: int, edit: Edit, current: str | None) -> tuple[BlockResult, str | None]:
    """A block with several ``=======`` lines applies by the one reading that fits the
    file; none fitting fails as its usual reading does, two that differ fail as ambiguous."""
    if not edit.readings:
        return _apply_one(index, edit, current)
    splits = [(edit.search, edit.replace), *edit.readings]
    tries = [_apply_one(index, replace(edit, search=s, replace=r, readings=()), current)
             for s, r in splits]  # fmt: skip
    fits = [t for t in tries if t[0].status != "failed"]
    if not fits:
        first, _ = tries[0]
        first.message = (
            f"{first.message} (the block has {len(splits)} ======= lines; no choice of "
            "divider among them matches the file)"
        )
        return tries[0]
    if len({new for _, new in fits}) > 1:
        return _fail(
            index,
            edit,
            f"the block has {len(splits)} ======= lines and more than one of them could "
            "divide SEARCH from REPLACE in a way that matches the file, so it cannot be told "
            "which is meant; resend the change as a unified diff or as the whole file",
        )
    return fits[0]


def _apply_one(index: int, edit: Edit, current: str | None) -> tuple[BlockResult, str | None]:
    if edit.kind != "replace":
        return _apply_whole(index, edit, current)
    if not edit.search.strip():
        return _apply_empty_search(index, edit, current)
    if current is None:
        return _fail(index, edit, f"{edit.path} does not exist (to create it, use an empty SEARCH)")
    lines, final = to_lines(current)
    search, replace = split_lines(edit.search), split_lines(edit.replace)
    res = locate(lines, search, replace, edit.hint_line)
    if isinstance(res, Found):
        if covers_match(lines, search, replace, res):
            msg = "REPLACE text is already in the file around the SEARCH lines"
            return BlockResult(
                index, edit.path, "already_applied", None, msg, res.start + 1
            ), current
        new_lines = [*lines[: res.start], *res.lines, *lines[res.end :]]
        new = from_lines(new_lines, final or not lines)
        return BlockResult(index, edit.path, "applied", res.strategy, None, res.start + 1), new
    if not res.ambiguous and already_present(lines, search, replace):
        msg = "SEARCH text not found but REPLACE text already present"
        return BlockResult(index, edit.path, "already_applied", None, msg), current
    message, near, line = explain_not_found(lines, search, res)
    result = BlockResult(index, edit.path, "failed", None, message, line, near)
    return result, None


def _preserve_imports(
    files: Mapping[str, str | None], state: dict[str, str | None], notes: list[str]
) -> None:
    for path, new in state.items():
        old = files.get(path)
        fixes = _FIXES.get(path.rsplit(".", 1)[-1])
        if fixes is None or old is None or new is None or old == new:
            continue
        if "\r\n" in new:  # a caller that skipped the byte boundary: CRLF stays CRLF
            fixed = fixes(path, old.replace("\r\n", "\n"), new.replace("\r\n", "\n"))
            state[path] = fixed[0].replace("\n", "\r\n")
        else:
            fixed = fixes(path, old, new)
            state[path] = fixed[0]
        notes.extend(fixed[1])


def _python_fixes(path: str, old: str, new: str) -> tuple[str, list[str]]:
    """Straighten curly quotes that broke the syntax; restore removed, still-used imports."""
    notes: list[str] = []
    straight, count = straighten_added_quotes(old, new)
    if count:
        new = straight
        notes.append(
            f"{path}: straightened typographic quotes in {count} added line(s) "
            "(they broke the Python syntax)"
        )
    fixed, restored = restore_imports(old, new)
    if restored:
        new = fixed
        names = "; ".join(restored)
        notes.append(f"{path}: restored {names} (the edit removed it but the code still uses it)")
    return new, notes


def _go_fixes(path: str, old: str, new: str) -> tuple[str, list[str]]:
    """Import the standard packages the change uses and the file does not import; leave out
    the imports it no longer uses and the test functions it writes outside a test file."""
    new, notes = tidy(path, old, new)
    fixed, added = add_std_imports(old, new)
    if not added:
        return new, notes
    names = ", ".join(f'"{p}"' for p in added)
    return fixed, [
        *notes,
        f"{path}: imported {names} (the change uses it; the file did not import it)",
    ]


_FIXES: dict[str, Callable[[str, str, str], tuple[str, list[str]]]] = {
    "py": _python_fixes,
    "go": _go_fixes,
}


def _keep_test_links(
    files: Mapping[str, str | None], state: dict[str, str | None], notes: list[str]
) -> None:
    """A Rust test module's link that a reply replaced by an inline copy, restored."""
    deleted = [p for p, t in state.items() if t is None and files.get(p) is not None]
    for path, new in state.items():
        old = files.get(path)
        if path.endswith(".rs") and old is not None and new is not None and old != new:
            state[path], said = keep_test_links(path, old, new, deleted)
            notes.extend(said)


_JOINED = (
    "edit block {n} and the block after it read either as two blocks or as one block whose "
    "REPLACE holds marker lines, and the second block only matches text the first one wrote "
    "in {path}, so it cannot be told which is meant; resend the change as a unified diff or "
    "as the whole file"
)


def _only_after(edits: Sequence[Edit], index: int, before: str | None) -> bool:
    """Block ``index`` (one that may be text of the previous block's REPLACE) does not apply
    to ``before``, the file as it was before the previous block: it matches only what that
    block wrote, so the two readings of the reply cannot be told apart."""
    if index == 0 or edits[index - 1].path != edits[index].path:
        return False
    return apply_one(index, edits[index], before)[0].status == "failed"


def apply_edits(edits: Sequence[Edit], files: Mapping[str, str | None]) -> ApplyResult:
    """Apply ``edits`` in order to ``files`` (path → text with "\\n" newlines, None = absent).

    All or nothing: ``ApplyResult.new_texts`` is filled only when every block applied or was
    already applied; it holds only changed files (None = delete).
    """
    state: dict[str, str | None] = {}
    results: list[BlockResult] = []
    before: str | None = None  # the previous block's file as it was before that block
    for index, edit in enumerate(edits):
        current = state[edit.path] if edit.path in state else files.get(edit.path)
        result, new = apply_one(index, edit, current)
        if edit.continues and result.status == "applied" and _only_after(edits, index, before):
            result, new = _fail(index, edit, _JOINED.format(n=index, path=edit.path))
        before = current
        results.append(result)
        if result.status == "applied":
            state[edit.path] = new
    ok = all(r.status != "failed" for r in results)
    notes: list[str] = []
    if not ok:
        return ApplyResult(False, results, {}, notes)
    # a whole file read as the definitions it changes: said, so the reply's author knows
    notes.extend(f"{r.path}: {r.message}" for r in results if r.strategy == "merge" and r.message)
    _preserve_imports(files, state, notes)
    _keep_test_links(files, state, notes)
    changed = {p: t for p, t in state.items() if t != files.get(p)}
    return ApplyResult(True, results, changed, notes)


def keep_applicable(
    edits: Sequence[Edit], outcome: ApplyResult, resent: Sequence[Edit] = ()
) -> list[Edit]:
    """The blocks of a failed attempt that would have applied, followed by ``resent`` ones.

    Pairs with ``render_retry_message``: the model resends only the failed blocks and
    the agent re-applies this merged list, still all or nothing.
    """
    good = {r.index for r in outcome.results if r.status != "failed"}
    return [e for i, e in enumerate(edits) if i in good] + list(resent)


def pick_by_content(edit: Edit, candidates: Mapping[str, str]) -> str | None:
    """The one candidate file (path → text) where ``edit`` applies, or None.

    Resolves an ambiguous path ("utils.py" when several exist) by where the SEARCH
    text actually is; two or more matching files stay ambiguous.
    """
    fits = [
        path
        for path, text in candidates.items()
        if apply_one(0, replace(edit, path=path), text)[0].status != "failed"
    ]
    return fits[0] if len(fits) == 1 else None


def must_exist(edit: Edit) -> bool:
    """Whether the file an edit names must already exist: it deletes, or has a SEARCH text
    to find (an empty SEARCH creates or fills a file)."""
    return edit.kind == "delete" or (edit.kind == "replace" and bool(edit.search.strip()))


def resolve_edit_path(
    edit: Edit, repo_files: Sequence[str], read: Callable[[str], str | None]
) -> str:
    """The repository path ``edit`` means — the one resolution ``WorkingCopy`` and
    ``patchwright apply`` share: :func:`resolve_path` (exact, suffix, fuzzy), requiring an
    existing file where :func:`must_exist`; a name shared by several files is settled by the
    one that holds the SEARCH text (``read``: a candidate's text, None when unreadable).
    Raises ``PathResolutionError``; confinement is the caller's."""
    if not must_exist(edit):
        return resolve_path(edit.path, repo_files)
    try:
        return resolve_path(edit.path, repo_files, must_exist=True)
    except PathResolutionError as exc:
        texts = {c: t for c in exc.candidates[:10] if (t := read(c)) is not None}
        picked = pick_by_content(edit, texts) if texts else None
        if picked is None:
            raise
        return picked
