"""The files a task changes, held in memory between the model's replies.

Replies are parsed and applied here, never on disk: only a complete, matched edit set becomes
a transaction. Successive replies build on the model's previous attempt (the conversation it
sees), while the disk is restored after every failed gate.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from patchwright.agent.lang_examples import EXAMPLES
from patchwright.edits import (
    ApplyResult,
    Edit,
    EditError,
    apply_edits,
    parse_reply,
    render_retry_message,
    resolve_edit_path,
    resolve_path,
    unified_diff,
)
from patchwright.edits.go_redeclared import drop_redeclared, in_package
from patchwright.workspace.errors import PathEscapeError, WorkspaceError
from patchwright.workspace.textfile import TextFile, encode_text

Reader = Callable[[str], TextFile | None]
Confiner = Callable[[str], None]


AttemptKind = Literal["applied", "no_edits", "failed", "unchanged", "repeated"]
# The worked example's paths in the edit prompt (calc/ops.py, src/ops.js, …): a small model
# answering about main.js sometimes writes its file under the example's name instead.
EXAMPLE_PATHS = frozenset(example.path for example in EXAMPLES.values())
SAME_FILE = 60  # rapidfuzz ratio: a new file's text this close to a shown file's is that file


@dataclass
class Attempt:
    """What became of one reply: ``applied`` paths, or the message to send back."""

    applied: list[str] = field(default_factory=list)
    feedback: str = ""
    kind: AttemptKind = "applied"
    outcome: ApplyResult | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.kind == "applied"


class WorkingCopy:
    """Original and current text of every file the model has edited so far."""

    def __init__(
        self,
        repo_files: Sequence[str],
        read: Reader,
        confine: Confiner,
        protected: Sequence[str] = (),
        shown: Sequence[str] = (),
    ) -> None:
        self._repo_files = list(repo_files)
        self._shown = list(shown)
        self._read = read
        self._confine = confine
        self.protected = set(protected)
        self.originals: dict[str, TextFile | None] = {}
        self.current: dict[str, str | None] = {}

    @property
    def repo_files(self) -> list[str]:
        return list(self._repo_files)

    def write(self, raw_path: str, text: str | None) -> str:
        """Set a file's whole new text (None deletes it) in memory; returns the resolved path.
        Raises ``EditError`` for a path outside the repository or a read-only test file."""
        path = resolve_path(
            raw_path, self.repo_files + sorted(self.current), must_exist=text is None
        )
        self._inside(path)
        if path in self.protected:
            raise EditError(f"{path} holds the tests the task must make pass; it is read-only")
        if text is None and self.text(path) is None:
            raise EditError(f"{path} does not exist")
        self._original_text(path)  # remember the original before the first change
        self.current[path] = text
        return path

    def _inside(self, path: str) -> None:
        """A path that leaves the repository is an edit error the model is told about."""
        try:
            self._confine(path)
        except PathEscapeError as exc:
            raise EditError(str(exc)) from exc

    def _original_text(self, path: str) -> str | None:
        if path not in self.originals:
            self.originals[path] = self._read(path)
        original = self.originals[path]
        return None if original is None else original.text

    def original(self, path: str) -> str | None:
        """The file's text before any change (None: it did not exist)."""
        return self._original_text(path)

    def text(self, path: str) -> str | None:
        return self.current[path] if path in self.current else self._original_text(path)

    def _resolve(self, edits: Sequence[Edit], notes: list[str]) -> list[Edit]:
        known = sorted(set(self._repo_files) | set(self.current))
        resolved: list[Edit] = []
        for edit in edits:
            path = resolve_edit_path(edit, known, self.text)
            if path in EXAMPLE_PATHS and path not in known:
                path = self._for_the_example(path, notes)
            elif path not in known:
                path = self._same_name_shown(path, edit, notes)
            self._inside(path)
            resolved.append(dataclasses.replace(edit, path=path))
        return resolved

    def _for_the_example(self, path: str, notes: list[str]) -> str:
        """The file meant by an edit written under the prompt's example path (a file this
        repository does not have): the one file shown to edit, else an error naming them."""
        editable = self._editable_shown()
        if len(editable) != 1:
            named = ", ".join(editable[:8]) or "the files shown"
            raise EditError(f"{path} is the instructions' example, not a file of this "
                            f"repository: write the path of the file you change ({named})")  # fmt: skip
        note = f"{path} is the instructions' example path: applied to {editable[0]}, the one file shown to edit"
        if note not in notes:  # once, however many blocks a reply wrote under it
            notes.append(note)
        return editable[0]

    def _same_name_shown(self, path: str, edit: Edit, notes: list[str]) -> str:
        """The file meant by a whole file written under a path this repository lacks: the one
        file shown to edit with that name, when the text written is mostly that file's (the
        prompt's example lives under ``src/``, and a small model answering about main.js
        wrote ``src/main.js``: a new file, and main.js left as it was, HumanEvalFix
        JavaScript-50 and 51); else ``path``, a new file."""
        from rapidfuzz import fuzz

        name = posixpath.basename(path)
        same = [p for p in self._editable_shown() if posixpath.basename(p) == name]
        shown = self.text(same[0]) if len(same) == 1 else None
        if shown is None or edit.kind != "whole" or fuzz.ratio(edit.replace, shown) < SAME_FILE:
            return path
        notes.append(f"{path} does not exist: applied to {same[0]}, the file of that name "
                     "shown to edit")  # fmt: skip
        return same[0]

    def apply_reply(self, reply: str) -> Attempt:
        parsed = parse_reply(reply, known_files=self._repo_files, shown=self._shown_texts(),
                             editable=self._editable_shown())  # fmt: skip
        errors = "\n".join(f"- {e}" for e in parsed.errors)
        if not parsed.edits:
            return Attempt(kind="no_edits", feedback=errors)
        if parsed.errors:  # a reply applies whole or not at all: no block is silently dropped
            return Attempt(
                kind="failed",
                feedback=f"Some edit blocks could not be read, so nothing was applied:\n{errors}\n"
                "Send all the edits again.",
            )
        remapped: list[str] = []
        try:
            edits = self._resolve(parsed.edits, remapped)
        except (EditError, OSError, ValueError) as exc:
            return Attempt(kind="failed", feedback=f"{exc}\nUse a path of the repository.")
        notes = remapped + self._drop_protected_changes(edits)
        kept = [e for e in edits if e.path not in self.protected]
        if not kept:
            said = " ".join(notes) or self._resent_only(edits)
            return Attempt(kind="failed", feedback=said + self._change_instead())
        edits = kept
        texts = {edit.path: self.text(edit.path) for edit in edits}
        outcome = apply_edits(edits, texts)
        if not outcome.ok:
            return Attempt(kind="failed", feedback=render_retry_message(outcome), outcome=outcome)
        notes += outcome.notes + self._drop_redeclared(outcome.new_texts, texts)
        self.current.update(outcome.new_texts)
        return Attempt(
            applied=sorted(outcome.new_texts), outcome=outcome, notes=[*parsed.notes, *notes]
        )

    def _drop_redeclared(
        self, new_texts: dict[str, str | None], before: Mapping[str, str | None]
    ) -> list[str]:
        """Go declarations the change copied in from another file of the package, left out
        of ``new_texts`` (the build takes each name once); a note for each file."""
        notes: list[str] = []
        for path, new in new_texts.items():
            if new is not None and path.endswith(".go"):
                others = self._package_texts(path, new_texts, before)
                new_texts[path], said = drop_redeclared(path, before.get(path), new, others)
                notes += said
        return notes

    def _package_texts(
        self, path: str, changed: Mapping[str, str | None], before: Mapping[str, str | None]
    ) -> dict[str, tuple[str | None, str]]:
        """Each other file of ``path``'s Go package: its text before the change and after."""
        texts: dict[str, tuple[str | None, str]] = {}
        for other in dict.fromkeys([*self._repo_files, *self.current, *changed]):
            if not in_package(path, other):
                continue
            try:
                now = changed[other] if other in changed else self.text(other)
            except (OSError, WorkspaceError):
                continue
            if now is not None:
                texts[other] = (before.get(other) if other in changed else now, now)
        return texts

    def _editable_shown(self) -> list[str]:
        return [p for p in self._shown if p not in self.protected]

    def _change_instead(self) -> str:
        """Where the change belongs when a reply only rewrote the tests: the files shown to
        edit, by name (a small model told "the code" wrote the test file three times more)."""
        editable = self._editable_shown()[:3]
        return f" Change the code in {' or '.join(editable)} instead." if editable else (
            " Change the code instead.")  # fmt: skip

    def _shown_texts(self) -> dict[str, str]:
        """The editable files the model has seen (and edited), to place edits that name none."""
        paths = dict.fromkeys([*self._shown, *self.current])
        texts = {p: self.text(p) for p in paths if p not in self.protected}
        return {p: t for p, t in texts.items() if t is not None}

    def refusal(self, path: str) -> str:
        """What a reply stopped as it began to rewrite a read-only file is told."""
        return (
            f"Your last reply (not kept here) began to rewrite {path} and was stopped there: "
            "it holds the tests the task must make pass and cannot be edited."
            + self._change_instead()
        )

    def _resent_only(self, edits: Sequence[Edit]) -> str:
        """What a reply that only sent read-only files back unchanged did (a small model asked
        to repair resent the test file verbatim, and read an instruction with no reason)."""
        paths = sorted({edit.path for edit in edits})
        which = "it holds" if len(paths) == 1 else "they hold"
        return (
            f"Your reply only sent {' and '.join(paths)} back unchanged, so nothing changed; "
            f"{which} the tests the task must make pass and cannot be edited."
        )

    def _drop_protected_changes(self, edits: Sequence[Edit]) -> list[str]:
        """Notes for edits that would change a protected file (the tests the task must pass)."""
        notes: list[str] = []
        for edit in edits:
            if edit.path in self.protected and edit.replace != (self.text(edit.path) or ""):
                notes.append(
                    f"{edit.path} holds the tests the task must make pass; it is read-only, "
                    "so your change to it was ignored."
                )
        return sorted(set(notes))

    def changed_paths(self) -> list[str]:
        return sorted(p for p, text in self.current.items() if text != self._original_text(p))

    def changes(self) -> dict[str, bytes | None]:
        """New bytes per changed file (None deletes), in each file's own encoding and newlines."""
        out: dict[str, bytes | None] = {}
        for path in self.changed_paths():
            text = self.current[path]
            out[path] = None if text is None else encode_text(text, self.originals.get(path))
        return out

    def touched(self) -> dict[str, bytes | None]:
        """Bytes of every file the model has touched, in its own encoding and newlines — a
        file changed back is its original again (None: the file does not exist)."""
        return {
            path: None if text is None else encode_text(text, self.originals.get(path))
            for path, text in self.current.items()
        }

    def diff(self) -> str:
        return unified_diff(
            (p, self._original_text(p), self.current[p]) for p in self.changed_paths()
        )

    def absorb(self, paths: Sequence[str]) -> None:
        """Take the files' current text from disk (after the user edited them)."""
        for path in paths:
            found = self._read(path)
            self.current[path] = None if found is None else found.text

    def reset(self) -> None:
        self.current.clear()

    def snapshot(self) -> dict[str, str | None]:
        """The in-memory state, to try another candidate reply from the same starting point."""
        return dict(self.current)

    def restore(self, state: dict[str, str | None]) -> None:
        self.current = dict(state)
