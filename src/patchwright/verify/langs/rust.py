"""Rust: ``cargo clippy`` (when installed) or ``cargo check``, with ``--all-targets`` and
``--message-format=json``, for the package or workspace a touched file belongs to.

Errors always count; warnings count only when the project configures clippy (``clippy.toml``,
``.clippy.toml``, or ``[lints.clippy]`` / ``[workspace.lints.clippy]`` in ``Cargo.toml``) and
then only clippy's own (``clippy::...``): a change must not fail for an unused variable in a
project that never asked. A message's place is its primary span, relative to the repository;
messages about files outside it (dependencies) are left out. rustc's first ``help:`` (with the
line as its suggestion would make it) is the problem's hint, shown in the repair prompt: told
only "cannot find function `trunc`", a small model tries another guess; told "use the `.`
operator to call the method `trunc` on `f32`: `number - number.trunc()`", it has the fix; a field
error, which has no ``help:``, is told where its struct is declared and with which fields
(``rust_decls``). A cargo that cannot load the
project (a dependency missing offline, a manifest it rejects) gives no verdict.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from patchwright.verify.context import GateContext
from patchwright.verify.langs.rust_decls import FIELD_ERRORS, field_hint
from patchwright.verify.model import Problem
from patchwright.verify.runners.common import relative
from patchwright.verify.tools import ToolBroken, scratch_dir, tail, unusable


def clippy_configured(root: Path, crate: str) -> bool:
    folder = root / crate
    for here in (folder, *folder.parents):
        if (here / "clippy.toml").is_file() or (here / ".clippy.toml").is_file():
            return True
        try:
            text = (here / "Cargo.toml").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        if "lints.clippy]" in text:
            return True
        if here == root:
            break
    return False


def has_clippy(ctx: GateContext, cargo: str) -> bool:
    """``cargo clippy`` runs here (rustup installs a proxy even without the component)."""
    key = ("probe:clippy", cargo)
    if key not in ctx.baseline.memo:
        result = ctx.sandbox.run([cargo, "clippy", "--version"], cwd=ctx.root, timeout=60)
        works = result.exit_code == 0 and "clippy" in result.stdout
        ctx.baseline.memo[key] = [Problem("probe", "", None, None, "yes")] if works else []
    return bool(ctx.baseline.memo[key])


def check_problems(
    ctx: GateContext, cargo: str, tree: Path, crate: str, *, clippy: bool, old: bool
) -> list[Problem]:
    """The compiler's (and clippy's) errors for ``tree/crate``, paths relative to ``tree``.
    The old tree builds into its own target folder in the private TMPDIR."""
    verb = "clippy" if clippy else "check"
    argv = [cargo, verb, "--all-targets", "--message-format=json"]
    env = {"CARGO_TARGET_DIR": str(scratch_dir(ctx.sandbox, "cargo-target-old"))} if old else {}
    result = ctx.sandbox.run(argv, cwd=tree / crate, timeout=ctx.test_timeout, extra_env=env)
    if why := unusable(f"cargo {verb}", result):
        raise ToolBroken(why)
    warnings = clippy and clippy_configured(tree, crate)
    problems: list[Problem] = []
    seen: set[tuple[str, int | None, str, str]] = set()
    messages = 0
    for line in result.stdout.splitlines():
        item = _message(line)
        if item is None:
            continue
        messages += 1
        problem = _problem(item, tree, tree / crate, warnings)
        if problem is None:
            continue
        key = (problem.path, problem.line, problem.code or "", problem.message)
        if key not in seen:
            seen.add(key)
            problems.append(problem)
    if result.exit_code not in (0, None) and not problems:
        said = tail(result.stderr, 6, 800)
        raise ToolBroken(f"cargo {verb} exited {result.exit_code}: {said}")
    return problems


def _message(line: str) -> dict[str, object] | None:
    if not line.startswith('{"reason":"compiler-message"'):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    message = data.get("message") if isinstance(data, dict) else None
    return message if isinstance(message, dict) else None


def _problem(item: dict[str, object], tree: Path, cwd: Path, warnings: bool) -> Problem | None:
    level = item.get("level")
    code_info = item.get("code")
    code = code_info.get("code") if isinstance(code_info, dict) else None
    is_clippy = isinstance(code, str) and code.startswith("clippy::")
    if level != "error" and not (level == "warning" and warnings and is_clippy):
        return None
    spans = [s for s in item.get("spans") or [] if isinstance(s, dict)]  # type: ignore[attr-defined]
    primary = next((s for s in spans if s.get("is_primary")), spans[0] if spans else None)
    if primary is None:
        return None  # "aborting due to N previous errors" and the like
    file = str(primary.get("file_name") or "")
    rel = _in_tree(file, tree, cwd)
    if rel is None:
        return None
    line = primary.get("line_start")
    message = _with_label(str(item.get("message") or "").strip(), primary.get("label"))
    rendered = str(item.get("rendered") or "")
    hint = _hint(item) or (field_hint(message, cwd, tree) if code in FIELD_ERRORS else "")
    return Problem("types", rel, line if isinstance(line, int) else None,
                   str(code) if code else "rustc", message, tail(rendered, 14, 1200),
                   hint, _fix(item, file, tree / rel))  # fmt: skip


# suggestions not to follow. One rustc calls machine-applicable changes what the code
# computes: E0308 on `vec![i as i32, j]` (a usize beside an i32) offers `vec![i as i32; j]`,
# j copies of i (HumanEvalFix Rust-87: applied unseen, and shown as the help to follow)
_UNSOUND = (
    "replace the comma with a semicolon to create a vector",
    # a method picked by its name's spelling alone, whose parameters differ: `le` for `len`,
    # `filter` for `iter` on a `Chars` (Rust-65: the repair was told both, twice)
    "with a similar name, but with different arguments",
)
_MISSING = re.compile(r"cannot find (?:value|function) `(\w+)`")


def _sound(child: dict[str, object], message: object) -> bool:
    """Whether ``child`` (a child of the error ``message``) is one to follow: not a
    suggestion that changes what the code computes or a method of another signature, nor a
    "similar name" for a one-letter one, which every other one-letter name is (Rust-45, its
    `b` gone from the parameters: "a local variable with a similar name exists: `if a + a >
    c …`")."""
    said = str(child.get("message") or "")
    missing = _MISSING.search(str(message or ""))
    guessed = "similar name" in said and missing is not None and len(missing.group(1)) == 1
    return not guessed and not any(text in said for text in _UNSOUND)


Replacements = tuple[tuple[int, int, int, int, str], ...]


def _fix(item: dict[str, object], file: str, source: Path) -> Replacements:
    """The replacements of the message's first suggestion that rustc calls machine-applicable
    (what ``cargo fix`` applies), all in the problem's own file (``source`` on disk), or the
    import it suggests where the file already imports from that module
    (:func:`_import_fix`); empty when there is none."""
    children = item.get("children")
    helps = [c for c in children if isinstance(c, dict)] if isinstance(children, list) else []
    imports = next(
        (c for c in helps if str(c.get("message")).startswith("consider importing")), None
    )
    if imports is not None and (made := _import_fix(_edits(imports), file, source)):
        return made  # before a similar name (`main` for `min`: Rust-163), as told (_first_help)
    for child in helps:
        if not _sound(child, item.get("message")):
            continue
        edits = _edits(child)
        if not edits:
            continue
        if any(s.get("suggestion_applicability") != "MachineApplicable"
               or s.get("file_name") != file for s in edits):  # fmt: skip
            return ()
        return tuple(map(_replacement, edits))
    return ()


def _replacement(span: dict[str, object]) -> tuple[int, int, int, int, str]:
    """A suggestion's span as ``(line, column, end line, end column, text)``."""
    at = (span["line_start"], span["column_start"], span["line_end"], span["column_end"])
    first, col, last, end = (int(str(x)) for x in at)
    return first, col, last, end, str(span["suggested_replacement"])


def _edits(child: dict[str, object]) -> list[dict[str, object]]:
    """The spans of a suggestion ``child`` that say what to write."""
    spans = [s for s in child.get("spans") or [] if isinstance(s, dict)]  # type: ignore[attr-defined]
    return [s for s in spans if isinstance(s.get("suggested_replacement"), str)]


def _import_fix(edits: list[dict[str, object]], file: str, source: Path) -> Replacements:
    """The `use` line rustc suggests for a missing name — its one standard-library candidate
    (`use crate::cmp::min;` is the same function re-exported) — when the file already imports
    from that module: `use std::{cmp::{max, self}}` and `min` not found (HumanEvalFix
    Rust-163: three repairs that sent one function back, with no place for a `use` line,
    called `min` again, told the import and the path). rustc only calls it maybe right: a
    name from a module the code does not use (`max(v)` for a slice's maximum) stays a hint."""
    std = [s for s in edits if s.get("file_name") == file
           and str(s["suggested_replacement"]).startswith(("use std::", "use core::"))]  # fmt: skip
    if len(std) != 1:
        return ()
    path = str(std[0]["suggested_replacement"]).strip().removeprefix("use ").removesuffix(";")
    parts = path.split("::")
    try:
        text = source.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    if len(parts) < 3 or not re.search(rf"^\s*(?:pub\s+)?use\b[^;]*\b{parts[-2]}\b", text, re.M):
        return ()
    return (_replacement(std[0]),)


def _with_label(message: str, label: object) -> str:
    """``message`` with its primary span's label where that says what the message does not:
    rustc's E0308 is only "mismatched types"; its label, "expected `&String`, found `&str`",
    is what a repair needs (polyglot Rust grade-school's repairs were told the former only).
    E0277's "the type `[{integer}]` cannot be indexed by `i32`" leaves the fix to its label,
    "slice indices are of type `usize` …" (HumanEvalFix Rust-130: two repairs in a row indexed
    with the `i32` again); a label that names nothing new ("not found in this scope") is not
    told."""
    if not isinstance(label, str) or not label.strip() or label in message:
        return message
    if "`" not in message or "expected" in label or _names(label) - _names(message):
        return f"{message}: {label.strip()}"
    return message


def _names(text: str) -> set[str]:
    """The identifiers quoted in ``text`` (types, items), paths and lifetimes aside."""
    quoted = " ".join(re.findall(r"`([^`]+)`", text))
    return set(re.findall(r"[A-Za-z]\w*", quoted))


def _hint(item: dict[str, object]) -> str:
    """The first ``help:`` child, with the line its suggestion makes when it rewrites one,
    then where a method chain changed the items' type (:func:`_chain_changed`)."""
    help_, chain = _first_help(item), _chain_changed(item)
    if help_ and chain and len(help_) + len(chain) < 400:
        return f"{help_}; {chain}"
    return help_ if len(help_) <= 400 else ""


def _first_help(item: dict[str, object]) -> str:
    """rustc's first help worth following; an import it suggests comes before a name of
    similar spelling (Rust-114: `main` offered for `min`, `use std::cmp::min;` second)."""
    children = item.get("children")
    helps = [c for c in children if isinstance(c, dict) and c.get("level") == "help"
             and _sound(c, item.get("message"))] if isinstance(children, list) else []  # fmt: skip
    imports = next(filter(None, map(_imports, helps)), "")
    if imports or not helps:
        return imports
    text = " ".join(str(helps[0].get("message") or "").split())
    line = _suggested_line([s for s in helps[0].get("spans") or [] if isinstance(s, dict)])
    if "\n" in line:  # `}` and a `/* `i32` value */` placeholder on the next: no line
        line = ""
    return "" if not text else f"help: {text}: `{line}`" if line else f"help: {text}"


def _imports(child: dict[str, object]) -> str:
    """A "consider importing" help with the `use` lines it suggests (two at most, the standard
    library's first), and the path to write where the name is used — a repair that sends one
    function back has no place for a `use` line (Rust-114 called `min` again); empty for any
    other help."""
    text = " ".join(str(child.get("message") or "").split())
    spans = child.get("spans")
    uses = [str(s.get("suggested_replacement")).strip() for s in spans if isinstance(s, dict)
            ] if isinstance(spans, list) else []  # fmt: skip
    if not text.startswith("consider importing") or not uses:
        return ""
    if not all(u.startswith("use ") and "\n" not in u for u in uses):
        return ""
    uses = sorted(uses, key=lambda u: not u.startswith(("use std::", "use core::")))[:2]
    told = f"help: {text}: " + " or ".join(f"`{u}`" for u in uses)
    path = uses[0].removeprefix("use ").removesuffix(";").strip()
    plain = re.fullmatch(r"[A-Za-z_]\w*(::[A-Za-z_]\w*)+", path)
    return f"{told}; or write its path where it is used: `{path}`" if plain else told


_CHANGED = re.compile(r"changed to `[^`]+` here$")


def _chain_changed(item: dict[str, object]) -> str:
    """Where a method chain's item type became the one the error is about — rustc's "the
    method call chain might not have had the expected associated types" note — as
    "`Iterator::Item` changed to `u32` here: `map(…)`"; empty without such a note. The help
    before it only restates the error (E0277: "the trait `Sum<u32>` is not implemented for
    `i32`"); this names the call to change (HumanEvalFix Rust-94)."""
    children = item.get("children")
    for child in children if isinstance(children, list) else []:
        spans = child.get("spans") if isinstance(child, dict) else None
        for span in spans if isinstance(spans, list) else []:
            label = span.get("label") if isinstance(span, dict) else None
            if isinstance(label, str) and _CHANGED.search(label):
                code = _highlighted(span)
                return f"{label}: `{code}`" if code else label
    return ""


def _highlighted(span: dict[str, object]) -> str:
    """The code a one-line span marks, empty when it spans lines."""
    if span.get("line_start") != span.get("line_end"):
        return ""
    first = _first_text(span)
    source, start, end = first.get("text"), first.get("highlight_start"), first.get("highlight_end")
    if not (isinstance(source, str) and isinstance(start, int) and isinstance(end, int)):
        return ""
    return source[start - 1 : end - 1].strip()


def _first_text(span: dict[str, object]) -> dict[str, object]:
    """The first source line rustc quotes for ``span`` (``text``, ``highlight_start``,
    ``highlight_end``); empty when it quotes none."""
    texts = span.get("text")
    first = texts[0] if isinstance(texts, list) and texts else None
    return first if isinstance(first, dict) else {}


def _suggested_line(spans: list[dict[str, object]]) -> str:
    """The source line with every suggested replacement applied, when all of them fall on
    one line; empty otherwise."""
    edits = [s for s in spans if isinstance(s.get("suggested_replacement"), str)]
    lines = {(s.get("file_name"), s.get("line_start"), s.get("line_end")) for s in edits}
    if len(lines) != 1 or next(iter(lines))[1] != next(iter(lines))[2]:
        return ""
    source = _first_text(edits[0]).get("text")
    if not isinstance(source, str):
        return ""
    for span in sorted(edits, key=lambda s: int(str(s.get("column_start"))), reverse=True):
        start, end = int(str(span["column_start"])) - 1, int(str(span["column_end"])) - 1
        source = source[:start] + str(span["suggested_replacement"]) + source[end:]
    return source.strip()


def _in_tree(file: str, tree: Path, cwd: Path) -> str | None:
    """``file`` (absolute, or relative to the workspace root: ``cwd`` or a folder above it)
    relative to ``tree``; None outside it."""
    if Path(file).is_absolute():
        return relative(file, tree)
    for base in (cwd, *cwd.parents):
        if (base / file).is_file():
            return relative(str(base / file), tree)
        if base == tree:
            break
    return None
