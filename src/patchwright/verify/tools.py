"""Finding the external tools the gates run (ruff, mypy, node, bash, go, cargo, npm).

Python tools come from the environment patchwright runs in (the ``ruff`` next to
``sys.executable``, or ``python -m mypy``), so that the versions are the locked ones. Other
tools are looked up on ``PATH`` at call time.

A tool the gate needs that is missing, cannot start, or ends in a way the gate cannot read
(a crash, a configuration it rejects) makes the gate ``could_not_run`` with the tool's own
error — never a pass. Only the optional checkers (``node --check``, ``bash -n``, PyYAML,
tree-sitter grammars) leave a note instead when they are not installed: without them the
check does not apply here, and other checks of the same files still run.
"""

from __future__ import annotations

import configparser
import importlib.util
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from patchwright.sandbox import ExecResult, Sandbox
from patchwright.verify.lint_noise import without_lint_noise


class ToolBroken(Exception):
    """A tool ran but produced no usable report, or could not start (the message says why,
    in the tool's own words where it gave any)."""


def which(name: str) -> str | None:
    """Absolute path of ``name`` on the current ``PATH`` (read now, not at import)."""
    return shutil.which(name, path=os.environ.get("PATH", os.defpath))


def python_tool(module: str, script: str | None = None) -> list[str] | None:
    """Argv prefix that runs a Python tool of our environment, or None when it is missing.

    Prefers the console script next to ``sys.executable`` (no interpreter start-up cost for
    ruff, which is a native binary), else ``python -m module``.
    """
    script = script or module
    beside = Path(sys.executable).parent / script
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    if importlib.util.find_spec(module) is not None:
        return [sys.executable, "-m", module]
    found = which(script)
    return [found] if found else None


def pyproject_tool(root: Path, name: str) -> bool:
    """True when the repository's ``pyproject.toml`` has a ``[tool.<name>]`` table."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return False
    try:
        tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
    except (OSError, ValueError):
        return False
    return isinstance(tool, dict) and name in tool


def ini_section(path: Path, section: str) -> bool:
    """True when the INI file at ``path`` (``setup.cfg``, ``tox.ini``) has ``[section]``."""
    if not path.is_file():
        return False
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, OSError, UnicodeDecodeError):
        return False
    return parser.has_section(section)


def repo_venv(root: Path) -> Path | None:
    """The repository's own virtualenv (``.venv`` or ``venv`` with a runnable python)."""
    for name in (".venv", "venv"):
        candidate = root / name / "bin" / "python"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return root / name
    return None


def repo_python(root: Path) -> str:
    """The interpreter that sees the repository's dependencies: its own ``.venv`` or
    ``venv`` when present, otherwise the one patchwright runs in."""
    venv = repo_venv(root)
    return str(venv / "bin" / "python") if venv is not None else sys.executable


def cache_dir(root: Path, name: str) -> Path:
    """A scratch directory under ``.patchwright/cache/`` (ignored by git and the walker)."""
    path = root / ".patchwright" / "cache" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def scratch_dir(sandbox: Sandbox, name: str) -> Path:
    """A directory that tools run in the sandbox may write (its private TMPDIR): reports and
    caches. The repository's ``.patchwright/`` is read-only to them."""
    path = Path(sandbox.tmpdir) / "patchwright" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def scratch_copies(root: Path, texts: Mapping[str, str]) -> Iterator[dict[str, Path]]:
    """Write ``texts`` (relative path -> old text) under ``.patchwright/cache/old/`` for tools
    that need a file on disk, and remove them afterwards (so that no test runner or linter
    walking the repository ever meets them)."""
    base = cache_dir(root, "old")
    made: dict[str, Path] = {}
    try:
        for rel, text in texts.items():
            copy = base / rel
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(text, encoding="utf-8")
            made[rel] = copy
        yield made
    finally:
        shutil.rmtree(base, ignore_errors=True)


def describe_failure(result: ExecResult) -> str | None:
    """Why a tool run produced nothing usable (blocked, timed out, killed), or None."""
    if result.blocked_by:
        return f"the sandbox blocked it ({result.blocked_by})"
    if result.timed_out:
        return f"timed out after {result.seconds:.0f}s"
    if result.killed_by:
        return f"killed ({result.killed_by})"
    return None


_EXEC_FAILED = re.compile(r"^(?:bwrap: execvp .*|cannot run '.*': .*)$", re.M)


def could_not_start(result: ExecResult) -> str | None:
    """Why a command never started (not found, not executable), from its exit code 126/127
    or the sandbox wrapper's exec error; None when it started."""
    found = _EXEC_FAILED.search(result.stderr)
    if found:
        return found.group(0).strip()
    if result.exit_code in (126, 127):
        lines = [x for x in result.stderr.strip().splitlines() if x.strip()]
        what = "not executable" if result.exit_code == 126 else "not found"
        return lines[-1].strip() if lines else f"{what} (exit {result.exit_code})"
    return None


def unusable(tool: str, result: ExecResult) -> str | None:
    """``"<tool> <why>: <its stderr>"`` when a tool run was blocked, timed out, killed or never
    started — nothing it printed can be read as a report; None otherwise."""
    why = describe_failure(result) or could_not_start(result)
    if why is None:
        return None
    said = tail(result.stderr, 3, 600)
    return f"{tool} {why}" + (f": {said}" if said and said not in why else "")


# GNU timeout's own exit status when it stopped its command (124), and its `-s KILL` one (137)
_TIMEOUT_WRAPPER = re.compile(
    r"""(?:^|[;&|("']\s*|\s)timeout\s+(?:(?:-[sk]|--signal|--kill-after)\s+\S+\s+|-\S+\s+)*"""
    r"(\d+(?:\.\d+)?)([smhd]?)\s"
)


def exited(command: str, code: int | None) -> str:
    """``exited N``, and when the command's own ``timeout`` wrapper stopped it (exit 124 or
    137), that it did not finish in time: a run stopped by ``timeout 20`` prints nothing, and
    "exited 124" alone left the model no clue that the code loops forever (HumanEvalFix
    JavaScript-10: four repairs without it)."""
    found = _TIMEOUT_WRAPPER.search(command + " ")
    if found is None or code not in (124, 137):
        return f"exited {code}"
    limit = found.group(1) + (found.group(2) or "s")
    return (f"exited {code}: its `timeout` stopped it after {limit} — the code did not finish "
            "(a loop that never ends?)")  # fmt: skip


def tail(text: str, lines: int = 30, chars: int = 4000) -> str:
    """The last ``lines`` lines of ``text``, at most ``chars`` characters."""
    kept = "\n".join(text.rstrip().splitlines()[-lines:])
    return kept[-chars:]


_SESSION_HEADER = re.compile(
    r"=+ test session starts =+$|platform \S+ -- Python |(rootdir|plugins|cachedir|configfile"
    r"|testpaths|cacheprovider): |hypothesis profile |collecting \.\.\.(\s*$| collected)"
)


_ADDRESS = re.compile(r"(?<= at )0x[0-9a-fA-F]{4,16}(?=>)")


def with_continuations(text: str, error: re.Pattern[str]) -> list[str]:
    """``text``'s lines, stripped, each that ``error`` matches with the tab-indented lines
    after it joined on — go's "not enough arguments in call to ParseOctal (have (string);
    want (string, int64, bool))": the first line alone does not say what the call should be
    (polyglot Go octal's stubs took three arguments where its tests pass one, and four
    repairs kept all three)."""
    lines: list[str] = []
    more: dict[int, list[str]] = {}
    for raw in text.splitlines():
        if raw.startswith("\t") and raw.strip() and lines and error.match(lines[-1]):
            more.setdefault(len(lines) - 1, []).append(raw.strip())
        else:
            lines.append(raw.strip())
    return [f"{x} ({'; '.join(more[i])})" if i in more else x for i, x in enumerate(lines)]


def stable(text: str) -> str:
    """``text`` with what changes from one run of the same tests to the next taken out:
    object addresses in reprs (``<function f at 0x7f3a…>``), so the same failure gives the
    model the same prompt — and a greedy model the same reply — on every run."""
    return _ADDRESS.sub("0x…", text)


# node's own frames and banners in a failure: ``at Module._compile (node:internal/…)``, the
# ``node:internal/assert/utils:281`` site (echoed with its source line and a caret) and
# ``Node.js v20.20.2`` — half of a failed ``node`` script's output, none of it the user's
_NODE_FRAME = re.compile(r"\s*at (?:.*\()?node:internal/")
_NODE_SITE = re.compile(r"node:internal/\S+:\d+$")
_NODE_VERSION = re.compile(r"Node\.js v[\d.]+")
# V8's fatal error banner: `#` lines around the message, an address that differs on every
# run (`#FailureMessage Object: 0x7fff4c2a9620`) and a native stack (` 1: 0xd32b41  [node]`)
# — JavaScript-25's prompt held 13 such lines for one that said something
_V8_NOISE = re.compile(
    r"#|#FailureMessage Object: 0x[0-9a-fA-F]+|-+ Native stack trace -+|\d+: 0x[0-9a-fA-F]+(?: .*)?"
)


def said(output: str) -> str:
    """A test run's output without what says nothing about what failed — pytest's session
    header (platform, rootdir, plugins…), node's internal frames and banner, V8's fatal-error
    banner and native stack, rustc's warnings about unused or deprecated imports: what a
    prompt should carry of it."""
    kept: list[str] = []
    echo = 0  # lines of an internal site's source echo still to drop
    for line in output.splitlines():
        bare = line.strip()
        if echo:
            echo -= 1
        elif _NODE_SITE.fullmatch(bare):
            echo = 2  # its source line and the caret under it
        elif _NODE_FRAME.match(line):
            if bare.endswith("{") and kept:  # the error's own fields follow: keep the brace
                kept[-1] += " {"
        elif not (
            _SESSION_HEADER.match(bare)
            or _NODE_VERSION.fullmatch(bare)
            or _V8_NOISE.fullmatch(bare)
        ):
            kept.append(line)
    return "\n".join(without_lint_noise(kept))


TREE_MAX_FILES = 20_000
TREE_MAX_BYTES = 512 * 1024 * 1024
TREE_SKIP = frozenset({
    ".git", ".patchwright", "target", ".venv", "venv", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", ".next", ".turbo", ".cache",
})  # fmt: skip


class TooLarge(Exception):
    """The repository is too large to copy into a scratch folder."""


def copy_tree(
    root: Path, dest: Path, *, max_files: int = TREE_MAX_FILES, max_bytes: int = TREE_MAX_BYTES
) -> None:
    """A scratch copy of ``root`` in ``dest`` (emptied first) without VCS folders, build
    output and caches; ``node_modules`` linked, not copied. Raises ``TooLarge`` (``dest``
    removed) past ``max_files`` files or ``max_bytes`` bytes."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    files = total = 0
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        rel = here.relative_to(root)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        if "node_modules" in dirs:
            (dest / rel / "node_modules").symlink_to(here / "node_modules")
        dirs[:] = [d for d in dirs if d not in TREE_SKIP and d != "node_modules"]
        for name in names:
            source = here / name
            if source.is_symlink():
                continue
            files += 1
            try:
                total += source.stat().st_size
            except OSError:
                continue
            if files > max_files or total > max_bytes:
                shutil.rmtree(dest, ignore_errors=True)
                raise TooLarge(f"{files} files, {total} bytes")
            shutil.copy2(source, dest / rel / name)
