"""Which findings a tool fixes without a model, and the fixed text of each file.

Three fixers, each only where the project asks for it:

* **ruff's safe fixes** (``ruff check --fix``, never the unsafe ones) for the rules the lint
  gate checks — the project's ruff configuration, or the fatal-error rules where it has none.
  Import sorting is one of them where that configuration selects ruff's ``I`` rules.
* **ruff format** where the project uses it: its configuration has a ``[tool.ruff.format]``
  (``pyproject.toml``) or ``[format]`` (``ruff.toml``) table, or its pre-commit hooks,
  Makefile, tox, nox, just or GitHub workflow files run ``ruff format`` (or the
  ``ruff-format`` hook).
* **ESLint** ``--fix`` where the project configures ESLint and has it installed
  (``node_modules/.bin/eslint``), as the lint gate finds it.

Only the review's candidates are fixed (never tests unless ``--target`` names them), never a
file the user has uncommitted changes in, and never again at a content whose tool fix was
already turned down (by the gates or the person). The fixes are computed in memory; the loop
writes them as one transaction (:mod:`.toolstep`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.modes.review.files import sha
from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline, GateContext
from patchwright.verify.fixers import (
    eslint_fixed,
    ruff_fixed,
    ruff_formatted,
    ruff_safe_fixes,
    ruff_unformatted,
)
from patchwright.verify.langs.javascript import eslint_for
from patchwright.verify.tools import ToolBroken, python_tool

MAX_BATCH = 100  # files in one transaction; the rest wait for the next iteration
_PY = (".py", ".pyi")
_JS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
_FORMAT_WORDS = ("ruff format", "ruff-format")
_FORMAT_FILES = (".pre-commit-config.yaml", "Makefile", "tox.ini", "noxfile.py", "justfile")


@dataclass(frozen=True)
class FileFix:
    """One file's tool fixes: its text before and after, the tools and the rules fixed."""

    path: str
    old: str
    new: str
    tools: tuple[str, ...]
    codes: tuple[str, ...] = ()

    def describe(self) -> str:
        codes = f" ({', '.join(self.codes)})" if self.codes else ""
        return f"{self.path}: " + "; ".join(
            t + (codes if t == "ruff --fix" else "") for t in self.tools
        )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def ruff_format_rule(root: Path) -> str | None:
    """Where the project says it uses ``ruff format`` (see the module docstring), or None."""
    if "[tool.ruff.format]" in _read(root / "pyproject.toml"):
        return "pyproject.toml [tool.ruff.format]"
    for name in ("ruff.toml", ".ruff.toml"):
        if "[format]" in _read(root / name):
            return f"{name} [format]"
    workflows = root / ".github" / "workflows"
    found = sorted(workflows.glob("*.y*ml")) if workflows.is_dir() else []
    for path in [*(root / n for n in _FORMAT_FILES), *found]:
        if any(word in _read(path) for word in _FORMAT_WORDS):
            return f"{path.relative_to(root).as_posix()} runs ruff format"
    return None


@dataclass
class ToolFixer:
    """Plans the tool fixes of the review's candidates (see the module docstring)."""

    root: Path
    sandbox: Sandbox
    declined: dict[str, str] = field(default_factory=dict)  # path -> content sha turned down
    notes: dict[str, None] = field(default_factory=dict)  # what could not be fixed, and why
    _clean: str = ""  # the candidates' state when there was nothing to fix

    def plan(
        self, baseline: Baseline, files: Sequence[str], texts: Mapping[str, str],
        skip: Collection[str] = (),
    ) -> list[FileFix]:  # fmt: skip
        """The fixes of ``files`` (``texts`` their contents; ``skip``: left alone), at most
        ``MAX_BATCH`` files."""
        eligible = [p for p in files if p in texts and p not in skip
                    and self.declined.get(p) != sha(texts[p])]  # fmt: skip
        key = sha("\n".join(f"{p} {sha(texts[p])}" for p in eligible))
        if key == self._clean:
            return []
        ctx = GateContext(root=self.root, sandbox=self.sandbox, baseline=baseline, touched=[])
        fixes = [
            *self._python([p for p in eligible if p.endswith(_PY)], texts),
            *self._eslint(ctx, [p for p in eligible if p.endswith(_JS)], texts),
        ]
        if not fixes:
            self._clean = key
        return sorted(fixes, key=lambda f: f.path)[:MAX_BATCH]

    def decline(self, fixes: Sequence[FileFix]) -> None:
        """These fixes were turned down: not proposed again at these contents."""
        self.declined.update({f.path: sha(f.old) for f in fixes})

    def _note(self, text: str) -> None:
        self.notes[text] = None

    def _python(self, paths: list[str], texts: Mapping[str, str]) -> list[FileFix]:
        ruff = python_tool("ruff")
        if not paths or ruff is None:
            if paths:
                self._note("ruff is not installed: no tool fixes for Python files")
            return []
        root, sandbox = self.root, self.sandbox
        fmt = ruff_format_rule(root)
        try:
            safe = ruff_safe_fixes(root, sandbox, ruff, paths)
            unformatted = set(ruff_unformatted(root, sandbox, ruff, paths)) if fmt else set()
        except ToolBroken as exc:
            self._note(f"no ruff fixes: {exc}")
            return []
        out = []
        for path in sorted((set(safe) | unformatted) & set(paths)):
            text = new = texts[path]
            tools = []
            try:
                if path in safe:
                    new = ruff_fixed(root, sandbox, ruff, path, text)
                    tools += ["ruff --fix"] if new != text else []
                if fmt and (path in unformatted or new != text):
                    formatted = ruff_formatted(root, sandbox, ruff, path, new)
                    tools += ["ruff format"] if formatted != new else []
                    new = formatted
            except ToolBroken as exc:
                self._note(f"{path} left to the model: {exc}")
                continue
            if new != text and new.strip():
                codes = tuple(dict.fromkeys(safe.get(path, []))) if "ruff --fix" in tools else ()
                out.append(FileFix(path, text, new, tuple(tools), codes))
        return out

    def _eslint(
        self, ctx: GateContext, paths: list[str], texts: Mapping[str, str]
    ) -> list[FileFix]:
        groups: dict[tuple[Path, Path], list[str]] = defaultdict(list)
        for path in paths:
            if (found := eslint_for(ctx, path)) is None:
                continue
            folder, eslint = found
            if eslint is None:
                self._note(f"ESLint is configured but not installed for {path}: not fixed")
                continue
            groups[folder, eslint].append(path)
        out = []
        for (folder, eslint), group in sorted(groups.items()):
            try:
                fixed = eslint_fixed(self.root, self.sandbox, eslint, folder, group)
            except ToolBroken as exc:
                self._note(f"no ESLint fixes under {folder.name or '.'}: {exc}")
                continue
            for path, new in sorted(fixed.items()):
                old = texts.get(path)
                if old is not None and path in group and new != old and new.strip():
                    out.append(FileFix(path, old, new, ("eslint --fix",)))
        return out
