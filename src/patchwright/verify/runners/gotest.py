"""``go test``: run with ``-json`` and read its events (test2json), one case per test.

Each event names its package (import path) and test; a package maps to its folder through
the module path in ``go.mod`` (or, in GOPATH mode outside GOPATH, the ``_/abs/dir`` form), and
a test to the ``_test.go`` file that declares it. What a person reads (``run.output``) is the
text the events carry, as ``go test -v`` prints it, plus the compiler's errors.

A package that does not build has no test events: it becomes one ``pkg::[build]`` error with
the compiler's first error; a package that fails outside any test (a panic in ``init``,
``TestMain``, a timeout) one ``pkg::[package]`` error.
"""

from __future__ import annotations

import json
import re
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
from patchwright.verify.runners.value_diff import with_parting
from patchwright.verify.testmodel import TestCase, TestOutcome, TestRun
from patchwright.verify.tools import with_continuations

_GO_TEST = re.compile(r"(?<![\w-])go\s+test(?=\s|$)")
_FUNC = re.compile(r"^func\s+((?:Test|Example|Fuzz)\w*)\s*\(", re.M)
_NOISE = re.compile(r"^\s*(?:=== (?:RUN|PAUSE|CONT|NAME)|--- (?:PASS|FAIL|SKIP):)")
_LOCATION = re.compile(r"^\s*([\w./-]+\.go):(\d+): ?")
_COMPILE_ERROR = re.compile(r"^(\S+\.go):(\d+)(?::\d+)?: (.+)$")
_OUTCOMES: dict[str, TestOutcome] = {"pass": "passed", "fail": "failed", "skip": "skipped"}


def plan(root: Path, cmd: str, scratch: Path) -> Plan | None:
    """``go test`` with ``-json`` added (a plain ``go test ...`` command only)."""
    words = simple_words(cmd)
    if words is None or words[:2] != ["go", "test"]:
        return None
    full = cmd if "-json" in words else _GO_TEST.sub("go test -json", cmd, count=1)

    def read(run: TestRun, result: ExecResult) -> None:
        read_events(run, result.stdout, result.stderr, root)

    return Plan(full, "go", read=read, output=_text)


def _text(result: ExecResult) -> str:
    """What ``go test -v`` would have printed: the events' output, then stderr."""
    parts: list[str] = []
    for line in result.stdout.splitlines():
        event = _event(line)
        if event is None:
            parts.append(line + "\n")
        elif isinstance(output := event.get("Output"), str):
            parts.append(output)
    text = "".join(parts)
    return (text + ("\n" + result.stderr if result.stderr.strip() else "")).strip()


def _event(line: str) -> dict[str, object] | None:
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@dataclass
class _Test:
    outcome: TestOutcome | None = None
    lines: list[str] = field(default_factory=list)


@dataclass
class _Package:
    outcome: str | None = None
    lines: list[str] = field(default_factory=list)
    tests: dict[str, _Test] = field(default_factory=dict)


def read_events(run: TestRun, stdout: str, stderr: str, root: Path) -> None:
    """Fill ``run`` from ``go test -json`` events (see the module docstring)."""
    packages: dict[str, _Package] = {}
    for line in stdout.splitlines():
        event = _event(line)
        if event is None:
            continue
        name = str(event.get("Package") or event.get("ImportPath") or "")
        if not name:
            continue
        pkg = packages.setdefault(name.split(" ")[0], _Package())
        action, test, output = event.get("Action"), event.get("Test"), event.get("Output")
        if isinstance(test, str) and test:
            entry = pkg.tests.setdefault(test, _Test())
            if isinstance(output, str):
                entry.lines.append(output)
            if action in _OUTCOMES:
                entry.outcome = _OUTCOMES[str(action)]
        elif isinstance(output, str):
            pkg.lines.append(output)
        elif action in ("pass", "fail", "skip", "build-fail"):
            pkg.outcome = str(action)
    module = _module_path(root)
    build_errors = _compile_errors(stderr, root)
    for name, pkg in packages.items():
        folder = _folder(name, module, root)
        files = _test_files(root / folder) if folder is not None else {}
        where = folder if folder is not None else name
        for test, entry in pkg.tests.items():
            _add_test(run, root, where, files, test, entry)
        failed_inside = any(t.outcome == "failed" for t in pkg.tests.values())
        if pkg.outcome in ("fail", "build-fail") and not failed_inside:
            _add_package(run, root, where, pkg, build_errors.get(where, []))
    for folder, errors in build_errors.items():  # packages go reported no event for
        key = f"{folder or '.'}::[build]"
        if key not in run.cases and not any(_folder(n, module, root) == folder for n in packages):
            add_case(run, _build_case(folder, errors))
    run.per_test = bool(run.cases) or bool(packages)


def _add_test(
    run: TestRun, root: Path, folder: str, files: dict[str, str], test: str, entry: _Test
) -> None:
    file = files.get(test.split("/")[0])
    path = f"{folder}/{file}".lstrip("/") if file and folder else (file or folder)
    outcome = entry.outcome or "error"  # started and never finished: the binary died
    message, detail = ("", "")
    if outcome in ("failed", "error"):
        message, detail = _failure(entry.lines, root, folder)
        if entry.outcome is None and not message:
            message = "the test binary stopped before this test finished"
    line = _declared_line(root / path, test.split("/")[0]) if file else None
    add_case(run, TestCase(f"{path}::{test}", outcome, path, line, message, detail))


def _add_package(run: TestRun, root: Path, folder: str, pkg: _Package, errors: list[str]) -> None:
    text = "".join(pkg.lines)
    if (
        errors
        or "[build failed]" in text
        or "[setup failed]" in text
        or pkg.outcome == "build-fail"
    ):
        add_case(run, _build_case(folder, errors or _compile_lines(text, root, folder)))
        return
    message, detail = _failure(pkg.lines, root, folder)
    add_case(run, TestCase(f"{folder or '.'}::[package]", "error", folder,
                           message=message or "the package's tests failed", detail=detail))  # fmt: skip


def _build_case(folder: str, errors: list[str]) -> TestCase:
    """The first compile error in the message, the rest in the detail (a repair prompt shows
    both: the first error once, not twice)."""
    message = f"build failed: {errors[0]}" if errors else "build failed"
    return TestCase(f"{folder or '.'}::[build]", "error", folder, None, message, clip(errors[1:]))


def _failure(lines: list[str], root: Path, folder: str) -> tuple[str, str]:
    """(message, detail) of a failing test: its own output, less go's RUN/FAIL lines, with
    file references made relative to the repository."""
    kept: list[str] = []
    in_diff = False
    said = [x for x in "".join(lines).splitlines() if x.strip() and not _NOISE.match(x)]
    said, printed = printed_apart(said, _reports)
    for raw in said:
        words = raw.strip()
        in_diff = (in_diff or words == "Diff:") and not words.startswith(("Test:", "Messages:"))
        if in_diff:  # testify's diff repeats what its expected:/actual lines said
            continue
        line = raw.rstrip().removeprefix("    ")  # go indents what a test logs
        kept.append(_relative_refs(line, root, folder))
    texts = [
        re.sub(r"^Error:\s*", "", _LOCATION.sub("", x).replace("\t", " ").strip()) for x in kept
    ]
    texts = [re.sub(r"\s+", " ", t) for t in texts if t and not t.startswith("Error Trace:")]
    message = texts[0] if texts else ""
    if message.endswith(":"):  # testify: "Not equal:" then "expected: 5", "actual : -1"
        message = " ".join([message, *(t for t in texts[1:3] if not t.startswith("Test:"))])
    shown = [with_parting(x) for x in _folded(kept)]
    return message[:300], clip([*shown, *printed_note(printed)], 14, 1800)


def _reports(line: str) -> bool:
    """Where a test's failure report begins: a ``t.Error``/``t.Log`` line (indented, at a
    ``file.go:N:``) or a panic; what comes before is what the test printed."""
    return bool(line[:1].isspace() and _LOCATION.match(line)) or line.startswith("panic: ")


def _folded(kept: list[str]) -> list[str]:
    """One line per logged failure: go indents the lines a ``t.Log`` or testify assertion
    continues with, and they join the ``file.go:N:`` line they follow (testify's ``Error
    Trace:`` and ``Test:`` lines say again what that line and the case's name say)."""
    lines: list[str] = []
    for line in kept:
        text = re.sub(r"\s*\t\s*", " ", line).strip()
        if not line[:1].isspace() or not lines:
            lines.append(text)
        elif not text.startswith(("Error Trace:", "Test:")):
            lines[-1] = f"{lines[-1]} {text.removeprefix('Error: ')}".strip()
    return lines


_ABS_GO = re.compile(r"(/[^\s:]+\.go):(\d+)")


def _relative_refs(line: str, root: Path, folder: str) -> str:
    """``calc_test.go:7`` (as go prints it, relative to the package) and absolute paths in
    panics become repository paths (``pkg/calc_test.go:7``)."""

    def absolute(match: re.Match[str]) -> str:
        rel = relative(match.group(1), root)
        return f"{rel}:{match.group(2)}" if rel else match.group(0)

    line = _ABS_GO.sub(absolute, line)
    if folder:
        line = re.sub(r"^(\s*)([\w.-]+\.go):(\d+)", rf"\g<1>{folder}/\g<2>:\g<3>", line)
    return line


def _compile_errors(stderr: str, root: Path) -> dict[str, list[str]]:
    """The compiler's errors by package folder (``# example.com/p`` blocks on stderr)."""
    found: dict[str, list[str]] = {}
    for error in with_continuations(stderr, _COMPILE_ERROR):
        m = _COMPILE_ERROR.match(error)
        rel = relative(m.group(1), root) if m else None
        if m is None or rel is None:
            continue
        folder = "" if Path(rel).parent == Path(".") else Path(rel).parent.as_posix()
        found.setdefault(folder, []).append(f"{rel}:{m.group(2)}: {m.group(3)}")
    return found


def _compile_lines(text: str, root: Path, folder: str) -> list[str]:
    lines = []
    for error in with_continuations(text, _COMPILE_ERROR):
        m = _COMPILE_ERROR.match(error)
        if m:
            rel = relative(m.group(1), root) or m.group(1)
            lines.append(f"{rel}:{m.group(2)}: {m.group(3)}")
    return lines


def _module_path(root: Path) -> str | None:
    try:
        text = (root / "go.mod").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    m = re.search(r"^module\s+(\S+)", text, re.M)
    return m.group(1).strip('"') if m else None


def _folder(package: str, module: str | None, root: Path) -> str | None:
    """The package's folder relative to ``root``, or None when it is not in the repository."""
    if module and (package == module or package.startswith(module + "/")):
        return package[len(module) :].lstrip("/")
    if package.startswith("_/"):  # GOPATH mode outside GOPATH: _/abs/dir
        return relative(package[1:], root)
    return None


def _test_files(folder: Path) -> dict[str, str]:
    """Test function name -> the ``_test.go`` file (name only) in ``folder`` declaring it."""
    found: dict[str, str] = {}
    try:
        files = sorted(folder.glob("*_test.go"))
    except OSError:
        return found
    for file in files:
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for name in _FUNC.findall(text):
            found.setdefault(name, file.name)
    return found


def _declared_line(path: Path, name: str) -> int | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"^func\s+{re.escape(name)}\s*\(", text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None
