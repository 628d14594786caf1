"""Parsing model replies (free text with prose around it) into edits.

Formats: conflict-marker SEARCH/REPLACE blocks (marker variants, fenced or not, path
on a preceding line or in the fence info string), PyOB's ``<EDIT>`` XML form, unified
diffs, whole-file replies (a path line, then a fenced block), file deletion lines.
Paths are kept as written; ``resolve_path`` maps them onto the repository later.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from patchwright.edits.infer import owner_of_definitions, owner_of_search, owner_of_whole
from patchwright.edits.markers import DIVIDER, HEAD, TAIL, BlockError, BlockReader
from patchwright.edits.paths import clean_path, path_from_info, path_from_line
from patchwright.edits.types import Edit, ParsedReply
from patchwright.edits.udiff import is_file_header, parse_diff_file, parse_hunks

FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^`]*)$")
EDIT_OPEN = re.compile(r"^\s*<EDIT\b([^>]*)>", re.I)
DELETE = re.compile(
    r"^\s*(?:#+\s*)?(?:DELETE(?:\s+FILE)?|Delete file|delete file)\s*:?\s+(\S+)\s*$"
)
_ATTR = re.compile(r"""\b(?:file|path|filename)\s*=\s*["']([^"']+)["']""", re.I)
_TAG_PATH = re.compile(r"<(?:FILE|PATH)>\s*(.*?)\s*</(?:FILE|PATH)>", re.I | re.S)
_TAG = {t: re.compile(rf"<{t}>(.*?)</{t}>", re.I | re.S) for t in ("SEARCH", "REPLACE")}
_PROSE_PATH = re.compile(r"`([^`\s]+)`")
_SHELL_INFOS = frozenset({"sh", "bash", "zsh", "shell", "console", "terminal", "shell-session"})
_SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh")
_XML_TAGS = ("<search>", "</search>", "<replace>", "</replace>")


def _headless_block(body: Sequence[str]) -> bool:
    """A SEARCH/REPLACE block that lost its head (small models drop it): taken as a whole
    file, its markers would be written into the file."""
    return any(DIVIDER.match(x) for x in body) and any(TAIL.match(x) for x in body)


def _replace_half(body: Sequence[str]) -> str | None:
    """The code of a headless block that is all REPLACE half (nothing before its ``=======``),
    as small models write "the new function" (HumanEvalFix Go-1 with SEARCH/REPLACE: six such
    replies in a row); None when lines stand before the divider or nothing after it."""
    at = next(n for n, x in enumerate(body) if DIVIDER.match(x) or TAIL.match(x))
    stop = next((n for n, x in enumerate(body) if TAIL.match(x)), len(body))
    new = body[at + 1 : stop]
    if any(x.strip() for x in body[:at]) or not DIVIDER.match(body[at]) or not any(new):
        return None
    return _text(new)


def _text(lines: Sequence[str]) -> str:
    return "".join(x + "\n" for x in lines)


def _tag_body(raw: str) -> str:
    if raw.startswith("\n"):
        raw = raw[1:]
    if raw.strip() == "":
        return ""
    return raw if raw.endswith("\n") else raw + "\n"


@dataclass
class _Parser:
    lines: list[str]
    known: Sequence[str]
    edits: list[Edit] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    path: str = ""
    diff_path: str = ""
    fence: tuple[str, int, int] | None = None  # marker char, length, closing line
    unnamed: list[tuple[str, str]] = field(default_factory=list)  # (info, code) naming no file
    headless: dict[str, str] = field(default_factory=dict)  # a REPLACE half alone -> its error
    open_ended: bool = False  # a later tail could also end the last block read

    def __post_init__(self) -> None:
        self.blocks = BlockReader(self.lines)

    def run(self) -> None:
        i = 0
        while i < len(self.lines):
            i = self._step(i)

    def _step(self, i: int) -> int:
        line = self.lines[i]
        if HEAD.match(line):
            return self._search_replace(i)
        if EDIT_OPEN.match(line):
            return self._xml(i)
        if is_file_header(self.lines, i):
            part = parse_diff_file(self.lines, i)
            self.edits.extend(part.edits)
            self.diff_path = part.path
            return max(part.end, i + 2)
        if line.startswith("@@") and self.diff_path:
            part = parse_hunks(self.lines, i, self.diff_path, self.diff_path)
            self.edits.extend(part.edits)
            return max(part.end, i + 1)
        deleted = DELETE.match(line)
        if deleted and path_from_line(deleted.group(1), self.known):
            self.edits.append(Edit(clean_path(deleted.group(1)), "delete", "", "", "delete"))
            return i + 1
        fence = FENCE.match(line)
        if fence:
            return self._fence(i, fence.group(1), fence.group(2))
        return i + 1

    def _look_back(self, i: int, prose: bool = True) -> str | None:
        """The path named just above line ``i`` (skipping blanks and fence openers).

        With ``prose``, a sentence ending in ``:`` that names exactly one `path` counts.
        """
        for j in range(i - 1, max(-1, i - 6), -1):
            line = self.lines[j]
            fence = FENCE.match(line)
            if fence:
                found = path_from_info(fence.group(2), self.known)
                if found:
                    return found
                continue
            if not line.strip():
                continue
            found = path_from_line(line, self.known)
            if found:
                return found
            if prose and line.rstrip().endswith(":"):
                named = [p for p in _PROSE_PATH.findall(line) if path_from_line(p, self.known)]
                if len(named) == 1:
                    return clean_path(named[0])
            return None
        return None

    def _block_path(self, i: int) -> str:
        found = self._look_back(i)
        if found:
            self.path = found
        return self.path

    def _search_replace(self, i: int) -> int:
        continues = self.open_ended and self._look_back(i) is None
        self.open_ended = False
        path = self._block_path(i)
        limit = self.fence[2] if self.fence is not None else len(self.lines)
        block = self.blocks.block(i, limit)
        if isinstance(block, BlockError):
            self.errors.append(block.message)
            return block.resume
        first, *others = block.dividers
        search, replace = self._split(i, first, block.tail)
        readings = tuple(self._split(i, d, block.tail) for d in others)
        self.edits.append(
            Edit(path, "replace", search, replace, "search_replace", None, readings, continues)
        )
        self.open_ended = block.longer
        return block.tail + 1

    def _split(self, head: int, divider: int, tail: int) -> tuple[str, str]:
        return _text(self.lines[head + 1 : divider]), _text(self.lines[divider + 1 : tail])

    def _xml_end(self, i: int) -> int:
        """The ``</EDIT>`` line closing the edit at ``i``: the first one after its
        ``</REPLACE>`` (a REPLACE may mention ``</EDIT>``), else simply the first one."""
        stop = next(
            (k for k in range(i + 1, len(self.lines)) if EDIT_OPEN.match(self.lines[k])),
            len(self.lines),
        )
        lower = [x.lower() for x in self.lines[i:stop]]
        closes = [k for k, x in enumerate(lower) if "</edit>" in x]
        done = next((k for k, x in enumerate(lower) if "</replace>" in x), None)
        after = [k for k in closes if done is not None and k >= done]
        return i + (after or closes)[0] if closes else len(self.lines)

    def _xml(self, i: int) -> int:
        n = len(self.lines)
        k = self._xml_end(i)
        if k >= n:
            self.errors.append(f"<EDIT> at reply line {i + 1} has no closing </EDIT>")
            return n
        chunk = "\n".join(self.lines[i : k + 1])
        twice = [t for t in _XML_TAGS if chunk.lower().count(t) > 1]
        if twice:
            self.errors.append(
                f"<EDIT> at reply line {i + 1} holds {twice[0]} more than once, so where its "
                "SEARCH or REPLACE ends cannot be told; resend the change as a unified diff "
                "or as the whole file"
            )
            return k + 1
        head = EDIT_OPEN.match(self.lines[i])
        attr = _ATTR.search(head.group(1)) if head else None
        tag = _TAG_PATH.search(chunk)
        path = (
            clean_path(attr.group(1))
            if attr
            else clean_path(tag.group(1))
            if tag
            else self._block_path(i)
        )
        if attr or tag:
            self.path = path
        search, replace = _TAG["SEARCH"].search(chunk), _TAG["REPLACE"].search(chunk)
        if search is None or replace is None:
            self.errors.append(
                f"<EDIT> at reply line {i + 1} needs both <SEARCH>...</SEARCH> and <REPLACE>...</REPLACE>"
            )
            return k + 1
        body_s, body_r = _tag_body(search.group(1)), _tag_body(replace.group(1))
        self.edits.append(Edit(path, "replace", body_s, body_r, "xml"))
        return k + 1

    def _fence_end(self, i: int, marker: str) -> int:
        depth = 0
        for j in range(i + 1, len(self.lines)):
            m = FENCE.match(self.lines[j])
            if not m or m.group(1)[0] != marker[0] or len(m.group(1)) < len(marker):
                continue
            if m.group(2).strip():
                depth += 1
            elif depth:
                depth -= 1
            else:
                return j
        return len(self.lines)

    def _fence(self, i: int, marker: str, info: str) -> int:
        if self.fence is not None:
            if not info.strip() and marker[0] == self.fence[0] and len(marker) >= self.fence[1]:
                self.fence = None
            return i + 1
        end = self._fence_end(i, marker)
        body = self.lines[i + 1 : end]
        if info.strip().lower() in ("diff", "patch", "udiff") or any(
            HEAD.match(x) or EDIT_OPEN.match(x) or x.startswith(("--- ", "@@")) for x in body
        ):
            self.fence = (marker[0], len(marker), end)
            return i + 1
        path = path_from_info(info, self.known) or self._look_back(i, prose=False)
        if _headless_block(body):
            self.errors.append(
                f"the code block at reply line {i + 1} has `=======` and `>>>>>>> REPLACE` "
                "lines but no `<<<<<<< SEARCH` line: give the lines to replace after "
                "`<<<<<<< SEARCH`, or send the whole file without the markers"
            )
            half = _replace_half(body)
            if half is not None and not path and end < len(self.lines):
                self.unnamed.append((info.strip().lower(), half))  # placed if it is code
                self.headless[half] = self.errors[-1]
            return end + 1
        if path and end < len(self.lines):
            self.edits.append(Edit(path, "whole", "", _text(body), "whole"))
            self.path = path
        elif end < len(self.lines) and any(x.strip() for x in body):
            self.unnamed.append((info.strip().lower(), _text(body)))
        return end + 1


def parse_reply(
    text: str,
    *,
    known_files: Sequence[str] = (),
    shown: Mapping[str, str] | None = None,
    editable: Sequence[str] = (),
) -> ParsedReply:
    """Find every edit in a model reply, in order; explain malformed pieces in ``errors``.

    A block with no path anywhere above it takes the previous block's path; with none at
    all it gets the only entry of ``known_files``, or the one file of ``shown`` (the files
    the model was shown, path → text) that it unambiguously belongs to (see
    :mod:`patchwright.edits.infer`), else the one file ``editable`` names (the one shown to
    edit: a SEARCH text found nowhere then fails against that file, with the lines nearest
    it, instead of as a block that names no file); ``notes`` say what was inferred. A block
    none of these places is reported in ``errors``.
    """
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    parser = _Parser(lines, known_files)
    parser.run()
    edits: list[Edit] = []
    notes: list[str] = []
    for n, edit in enumerate(parser.edits, 1):
        if edit.path:
            edits.append(edit)
            continue
        owner = known_files[0] if len(known_files) == 1 else owner_of_search(edit, shown)
        if owner:
            edits.append(dataclasses.replace(edit, path=owner))
            if len(known_files) != 1:
                notes.append(f"edit block {n} named no file; applied to {owner}, the only "
                             "shown file containing its SEARCH text")  # fmt: skip
        elif len(editable) == 1 and edit.kind == "replace":
            edits.append(dataclasses.replace(edit, path=editable[0]))
            notes.append(f"edit block {n} named no file; applied to {editable[0]}, the one "
                         "file shown to edit")  # fmt: skip
        else:
            parser.errors.append(
                f"edit block {n} names no file: put the file path on the line before it"
            )
    if not parser.edits:
        _place_unnamed(_code_blocks(parser.unnamed, shown), shown, edits, notes)
        for edit in edits:
            error = parser.headless.get(edit.replace)
            if error in parser.errors:  # the REPLACE half alone, placed as the code it holds
                parser.errors.remove(error)
                notes.append(
                    f"the block with no SEARCH part was read as the new code of {edit.path}"
                )
    return ParsedReply(edits, parser.errors, notes)


def _code_blocks(blocks: Sequence[tuple[str, str]], shown: Mapping[str, str] | None) -> list[str]:
    """The unnamed blocks that may be code for a file: a shell block (```sh ... the test
    command) is the reply's advice on running the tests — unless a shown file is a script."""
    scripts = any(path.endswith(_SCRIPT_SUFFIXES) for path in shown or {})
    return [code for info, code in blocks if scripts or info.partition(" ")[0] not in _SHELL_INFOS]


def _place_unnamed(
    blocks: Sequence[str], shown: Mapping[str, str] | None, edits: list[Edit], notes: list[str]
) -> None:
    """Code blocks that name no file, as edits of the shown file each unambiguously
    belongs to: blocks of definitions only (applied in order; the rest of the file kept),
    else one whole file."""
    owned = [(block, owner_of_definitions(block, shown)) for block in blocks]
    placed = [(block, owner) for block, owner in owned if owner]
    if blocks and len(placed) == len(blocks):
        # no note: asked for "the corrected function", a block without a path is the expected
        # reply, and a note in the repair prompt is copied back by a small model as its rationale
        edits += [Edit(owner, "whole", "", block, "definitions") for block, owner in placed]
        return
    owner = owner_of_whole(blocks[0], shown) if len(blocks) == 1 else None
    if owner:
        edits.append(Edit(owner, "whole", "", blocks[0], "whole"))
        notes.append(f"the code block named no file; taken as the new {owner}, the only "
                     "shown file whose functions and classes it all defines")  # fmt: skip
