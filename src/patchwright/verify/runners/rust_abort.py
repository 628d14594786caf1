"""A Rust test process that aborts: which test it was running, why, and where in the code.

A test that runs out of memory (``memory allocation of 4294967296 bytes failed``: a loop that
pushes forever) or overflows its stack takes its whole test process down with SIGABRT, before
libtest prints that test's result or any failure section. The run then named no failing test,
and the repair showed the tail of the backtrace: a dozen frames of the standard library
(HumanEvalFix Rust-25, whose second reply started the divisor at 1). Read here instead: the
abort's own line, the test it happened in (the backtrace's frame whose ``{{closure}}`` libtest
called, or the thread an overflow names), and the frames of the code itself with their
places, so the failure is a failed test like any other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ABORT = re.compile(
    r"^(memory allocation of \d+ bytes failed"
    r"|thread '(?P<thread>[^']+)'(?: \(\d+\))? has overflowed its stack"
    r"|fatal runtime error: .+)$"
)
_FRAME = re.compile(r"^\s*\d+: (\S.*)$")
_AT = re.compile(r"^\s*at (\S+?):(\d+)(?::\d+)?$")
_LIBRARY = ("/rustc/", "/.cargo/registry/", "/.rustup/")


@dataclass
class Abort:
    """One abort: its message, the test it ended (its path in the target, without the crate:
    ``tests::test_factorize``; None when nothing names it) and the code's own frames."""

    message: str
    test: str | None = None
    frames: list[tuple[str, str]] = field(default_factory=list)  # (function, "file:line")

    def lines(self) -> list[str]:
        """The failure section this abort stands for: its message, then where it happened."""
        said = f"{self.message} (the test process aborted)"
        own = [f"in {name} at {place}" for name, place in self.frames if "{{closure}}" not in name]
        return [said, *own[:6]]


@dataclass
class AbortReader:
    """Reads a test target's output line by line; ``found`` holds each abort seen."""

    found: list[Abort] = field(default_factory=list)
    _open: bool = False  # reading an abort: its message, then its backtrace
    _frame: str | None = None  # the frame whose ``at`` line comes next
    _names: list[str] = field(default_factory=list)  # the frames of the abort being read

    def feed(self, line: str) -> bool:
        """True when ``line`` belongs to an abort (its message or its backtrace)."""
        body = line.strip()
        if m := _ABORT.match(body):
            if self._open and not self._names:  # "has overflowed", then "fatal runtime error"
                self.found[-1].message += f"; {m.group(1)}"
            else:
                self.found.append(Abort(m.group(1), m.group("thread")))
            self._open, self._frame, self._names = True, None, []
            return True
        if not self._open:
            return False
        if m := _FRAME.match(line):
            self._framed(m.group(1).strip())
        elif m := _AT.match(line):
            self._placed(m.group(1), m.group(2))
        elif body != "stack backtrace:":
            self._open = False
        return self._open

    def _framed(self, name: str) -> None:
        abort = self.found[-1]
        self._frame = name
        self._names.append(name)
        test = name.removesuffix("::{{closure}}")
        if abort.test is None and test != name and test in self._names:
            abort.test = test.split("::", 1)[-1]  # the test libtest called through a closure

    def _placed(self, path: str, line: str) -> None:
        if self._frame is not None and not (path.startswith(_LIBRARY) or "/library/" in path):
            self.found[-1].frames.append((self._frame, f"{path.removeprefix('./')}:{line}"))
        self._frame = None
