"""``cargo test``: every test of every target — unit tests, integration tests, doc tests — by
the file it lives in, from the stable text output.

libtest's JSON output is nightly-only, so the text is read: ``test NAME ... ok|FAILED|ignored``
lines, the ``---- NAME stdout ----`` sections that say why a test failed, and cargo's
``Running <src> (<executable>)`` / ``Doc-tests <crate>`` lines that say which target the lines
after them belong to. The command gets ``--no-fail-fast`` (else cargo stops at the first
target that fails and the others report nothing), ``--message-format=json-render-diagnostics``
(cargo then names each test executable with its source file, in JSON on stdout, so a workspace
member's ``tests/it.rs`` is told from another's) and ``2>&1`` (the ``Running`` lines are on
stderr, the test lines on stdout: merged, they stay in order). Compiler errors are rendered
as usual; a crate that does not compile becomes one ``crate-dir::[build]`` error. A test
process that aborts (out of memory, a stack overflow) fails the test it was running
(``rust_abort``).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.sandbox import ExecResult
from patchwright.verify.runners.common import (
    add_case,
    clip,
    printed_apart,
    printed_note,
    relative,
    simple_words,
)
from patchwright.verify.runners.plan import Plan
from patchwright.verify.runners.rust_abort import AbortReader
from patchwright.verify.runners.value_diff import sides_line
from patchwright.verify.testmodel import TestCase, TestOutcome, TestRun

_CARGO_TEST = re.compile(r"(?<![\w-])cargo\s+test(?=\s|$)")
_RUNNING = re.compile(r"^\s*Running (?:unittests )?(\S+)(?: \((\S+)\))?\s*$")
_DOC_TESTS = re.compile(r"^\s*Doc-tests (\S+)\s*$")
_RESULT = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored)\b")
_SECTION = re.compile(r"^---- (.+?) stdout ----\s*$")
_DOC_NAME = re.compile(r"^(\S+) - (.+?) \(line (\d+)\)(?: - .+)?$")
_ERROR = re.compile(r"^error(?:\[(E\d+)\])?: (.+)$")
_LOCATION = re.compile(r"^\s*--> (\S+?):(\d+):\d+")
_NOT_COMPILED = re.compile(r"^error: could not compile `([^`]+)`")
_OUTCOMES: dict[str, TestOutcome] = {"ok": "passed", "FAILED": "failed", "ignored": "skipped"}
_WRAPUP = re.compile(
    r"^error: (?:could not compile|test failed|doctest failed|\d+ targets? failed|aborting)"
)


def plan(root: Path, cmd: str, scratch: Path) -> Plan | None:
    """``cargo test`` with ``--no-fail-fast``, JSON build messages and stderr merged (a plain
    ``cargo test ...`` command); another command line that runs ``cargo test`` is read by
    test name alone."""
    words = simple_words(cmd)
    if words is None or words[:2] != ["cargo", "test"]:
        if words is None and _CARGO_TEST.search(cmd):
            return Plan(cmd, "cargo", read=lambda run, result: _read(run, result, root, False))
        return None
    flags = [] if "--no-fail-fast" in words else ["--no-fail-fast"]
    if not any(w.startswith("--message-format") for w in words):
        flags.append("--message-format=json-render-diagnostics")
    full = _CARGO_TEST.sub(" ".join(["cargo test", *flags]), cmd, count=1) + " 2>&1"
    # a panic's backtrace says which test line led to it, unless the user chose otherwise
    env = {} if "RUST_BACKTRACE" in os.environ else {"RUST_BACKTRACE": "1"}
    return Plan(
        full, "cargo", env=env, read=lambda run, result: _read(run, result, root, True),
        output=_text,
    )  # fmt: skip


def _text(result: ExecResult) -> str:
    """The output less cargo's JSON build messages."""
    lines = [x for x in result.stdout.splitlines() if not x.startswith('{"reason":')]
    text = "\n".join(lines)
    return (text + ("\n" + result.stderr if result.stderr.strip() else "")).strip()


@dataclass
class _Target:
    file: str = ""  # the source file of the test target, relative to the repository
    doc: bool = False


@dataclass
class _State:
    target: _Target = field(default_factory=_Target)
    section: str | None = None  # the test whose failure section is being read
    sections: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    results: list[tuple[_Target, str, str]] = field(default_factory=list)
    errors: list[tuple[str, list[str]]] = field(default_factory=list)  # (crate, lines)
    pending: list[str] = field(default_factory=list)  # the compiler error being read
    ran: bool = False
    aborts: AbortReader = field(default_factory=AbortReader)  # a test process that aborted
    aborted: list[tuple[_Target, int]] = field(default_factory=list)  # (target, abort index)


def _read(run: TestRun, result: ExecResult, root: Path, merged: bool) -> None:
    text = result.stdout if merged else result.stdout + "\n" + result.stderr
    executables = _executables(text, root)
    state = _State()
    for line in text.splitlines():
        if line.startswith('{"reason":'):
            continue
        _step(state, line.rstrip(), executables, root)
    _aborted(state)
    crates = _crate_dirs(root) if state.errors else {}
    for crate, lines in state.errors:
        folder = crates.get(crate, crate)
        message = f"build failed: {lines[0]}" if lines else "build failed"  # the rest: detail
        add_case(run, TestCase(f"{folder or '.'}::[build]", "error", folder, None, message,
                               clip(lines[1:], 14, 1800)))  # fmt: skip
    for target, name, status in state.results:
        add_case(run, _case(target, name, status, state.sections, root))
    run.per_test = state.ran or bool(run.cases)


def _aborted(state: _State) -> None:
    """Each test a test process aborted in, as failed with the abort's lines (unless a
    result line already says how it ended)."""
    for target, index in state.aborted:
        abort = state.aborts.found[index]
        name = abort.test or "[aborted]"
        if any(t.file == target.file and n == name for t, n, _ in state.results):
            continue
        state.sections[(target.file, name)] = abort.lines()
        state.results.append((target, name, "FAILED"))


def _step(state: _State, line: str, executables: dict[str, str], root: Path) -> None:
    seen = len(state.aborts.found)
    if state.section is None and state.aborts.feed(line):
        if len(state.aborts.found) > seen:
            state.aborted.append((state.target, seen))
        return
    if m := _RUNNING.match(line):
        exe = os.path.basename(m.group(2) or m.group(1))
        file = executables.get(exe) or (relative(m.group(1), root) if m.group(2) else "") or ""
        state.target, state.section = _Target(file), None
    elif m := _DOC_TESTS.match(line):
        state.target, state.section = _Target(doc=True), None
    elif line.startswith("running ") and line.endswith((" test", " tests")):
        state.ran, state.section = True, None
    elif m := _RESULT.match(line):
        state.results.append((state.target, m.group(1), m.group(2)))
    elif m := _SECTION.match(line):
        state.section = m.group(1)
        state.sections[(state.target.file, state.section)] = []
    elif line == "failures:" or line.startswith("test result:"):
        state.section = None
    elif state.section is not None:
        state.sections[(state.target.file, state.section)].append(line)
    elif m := _NOT_COMPILED.match(line):
        state.errors.append((m.group(1), state.pending))
        state.pending = []
    elif (m := _ERROR.match(line)) and not _WRAPUP.match(line):
        state.pending.append(line)
    elif state.pending and (m := _LOCATION.match(line)):
        rel = relative(m.group(1), root) or m.group(1)
        state.pending[-1] += f" ({rel}:{m.group(2)})"


def _case(
    target: _Target,
    name: str,
    status: str,
    sections: dict[tuple[str, str], list[str]],
    root: Path,
) -> TestCase:
    outcome = _OUTCOMES[status]
    lines = sections.get((target.file, name), [])
    message, detail = _failure(lines, root) if outcome == "failed" else ("", "")
    if target.doc and (m := _DOC_NAME.match(name)):
        file = relative(m.group(1), root) or m.group(1)
        return TestCase(f"{file}::{m.group(2)} (doc test)", outcome, file, int(m.group(3)),
                        message, detail, inline=True)  # fmt: skip
    plain = name.removesuffix(" - should panic")
    test_id = f"{target.file}::{plain}" if target.file else plain
    if not target.file:
        return TestCase(test_id, outcome, "", None, message, detail)
    file, inline = _module_file(root, target.file, plain)
    line = _fn_line(root, file, plain.rsplit("::", 1)[-1])
    return TestCase(test_id, outcome, file, line, message, detail, inline=inline)


def _module_file(root: Path, crate_root: str, name: str) -> tuple[str, bool]:
    """The file the test function ``a::b::test_x`` of the target rooted at ``crate_root`` is
    in (``a/b.rs`` or ``a/b/mod.rs`` beside the root, else inline in the last file found), and
    whether it sits in a file with other code: a module of its path is inline (``#[cfg(test)]
    mod tests { ... }``), or it is at the top of ``src/lib.rs`` rather than of an integration
    test (``tests/``)."""
    segments = name.split("::")[:-1]
    file = Path(crate_root)
    if not segments:
        return crate_root, "tests" not in file.parts
    folder = file.parent
    for segment in segments:
        for candidate in (folder / f"{segment}.rs", folder / segment / "mod.rs"):
            if (root / candidate).is_file():
                file, folder = candidate, folder / segment
                break
        else:
            return file.as_posix(), True  # `mod segment { ... }` inside ``file``
    return file.as_posix(), False


def _fn_line(root: Path, file: str, name: str) -> int | None:
    """The line of ``fn name`` in ``file`` (the first one; a test module's is usually it)."""
    try:
        text = (root / file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"\bfn\s+{re.escape(name)}\s*[(<]", text)
    return text.count("\n", 0, m.start()) + 1 if m else None


_PANIC_NEW = re.compile(r"^thread '.*?'(?: \(\d+\))? panicked at (\S+?):(\d+):\d+:$")
_PANIC_OLD = re.compile(r"^thread '.*?' panicked at '(.*)', (\S+?):(\d+):\d+$")


def _failure(lines: list[str], root: Path) -> tuple[str, str]:
    """(message, detail) from a failure section: the panic's message and where it happened,
    with the values an assertion compared; a doc test that does not compile: its error."""
    message, kept = "", list[str]()
    lines, printed = printed_apart(lines, _panics)
    for i, line in enumerate(lines):
        if line.startswith(("note: run with", "stack backtrace:")):
            kept += _callers(lines[i + 1 :], root, kept)
            break
        if m := _PANIC_NEW.match(line.strip()):
            where = f"{relative(m.group(1), root) or m.group(1)}:{m.group(2)}"
            kept.append(f"panicked at {where}")
            rest = [x for x in lines[i + 1 :] if x.strip()]
            message = message or (rest[0].strip() if rest else "")
            continue
        if m := _PANIC_OLD.match(line.strip()):
            where = f"{relative(m.group(2), root) or m.group(2)}:{m.group(3)}"
            kept.append(f"panicked at {where}")
            message = message or m.group(1)
            continue
        if not message and (m := _ERROR.match(line.strip())):
            message = line.strip()
        kept.append(line)
    if not message:
        message = next((x.strip() for x in lines if x.strip()), "")
    if part := sides_line("\n".join(kept)):  # after `right:`, where clip keeps it
        at = next(i for i, x in enumerate(kept) if x.strip().startswith("right:"))
        kept.insert(at + 1, part)
    return message[:300], clip([*kept, *printed_note(printed)], 14, 1800)


def _panics(line: str) -> bool:
    return bool(_PANIC_NEW.match(line.strip()) or _PANIC_OLD.match(line.strip()))


_FRAME_FN = re.compile(r"^\s*\d+: (.+)$")
_FRAME_AT = re.compile(r"^\s+at (\S+?):(\d+):\d+$")
CALLERS = 2


def _callers(backtrace: list[str], root: Path, kept: list[str]) -> list[str]:
    """``called from path:line`` for the frames of a panic's backtrace that lie in the
    repository, below the place it panicked (closures aside; at most ``CALLERS``): a panic
    in the code (``unwrap()`` on ``None``, HumanEvalFix Rust-47) says which test line led
    there, as pytest's traceback does."""
    found: list[str] = []
    symbol = ""
    for line in backtrace:
        if m := _FRAME_FN.match(line):
            symbol = m[1]
            continue
        m = _FRAME_AT.match(line)
        rel = relative(m[1], root) if m and not symbol.endswith("{{closure}}") else None
        if not m or not rel or not (root / rel).is_file():
            continue
        said = f"called from {rel}:{m[2]}"
        if f"panicked at {rel}:{m[2]}" not in kept and said not in found:
            found.append(said)
        if len(found) == CALLERS:
            break
    return found


def _executables(text: str, root: Path) -> dict[str, str]:
    """Test executable (file name) -> its target's source file, from cargo's JSON."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith('{"reason":"compiler-artifact"'):
            continue
        try:
            data = json.loads(line)
        except ValueError:
            continue
        exe = data.get("executable")
        src = (data.get("target") or {}).get("src_path")
        if isinstance(exe, str) and isinstance(src, str):
            found[os.path.basename(exe)] = relative(src, root) or src
    return found


def _crate_dirs(root: Path) -> dict[str, str]:
    """Package name -> its folder (relative), from the Cargo.toml files of the repository."""
    found: dict[str, str] = {}
    for manifest in _manifests(root):
        try:
            data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        name = (data.get("package") or {}).get("name")
        if isinstance(name, str):
            folder = relative(str(manifest.parent), root) or ""
            found.setdefault(name, folder)
    return found


def _manifests(root: Path, depth: int = 4) -> list[Path]:
    found: list[Path] = []
    skip = {"target", "node_modules", ".git", ".patchwright"}
    for folder, dirs, files in os.walk(root):
        rel = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if d not in skip and len(rel.parts) < depth]
        if "Cargo.toml" in files:
            found.append(Path(folder) / "Cargo.toml")
    return found
