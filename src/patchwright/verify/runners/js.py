"""JavaScript test runners: which one a command runs, and how it is asked for a report.

A command runs a runner directly (``jest``, ``npx vitest run``, ``node --test``,
``node_modules/.bin/mocha``, the last command of a shell line) or through a ``package.json``
script (``npm test``, ``pnpm test``,
``yarn test``, ``bun run test``). A script is read as a shell line: its runner is the first
word of a command in it (past ``NAME=value``, ``cross-env``, ``npx``, coverage wrappers such as
``nyc`` and ``c8``), and a script that runs another script (``npm run test:unit``) is followed.

How each runner reports, without changing what it runs:

- node's runner: ``NODE_OPTIONS`` adds a reporter (``node_reporter.mjs``, written to the
  scratch folder) next to the usual ``spec`` output, wherever in the script ``node --test``
  runs (node 18.15 or later);
- jest: ``--json --outputFile=F --testLocationInResults``; vitest: a ``json`` reporter next
  to the default one, ``--outputFile.json=F``; mocha: ``--reporter json --reporter-option
  output=F``. These are arguments, so they are added only where they reach the runner: to a
  direct command, or through the package manager when the runner ends the script (npm needs
  ``--``; pnpm, yarn and bun pass them on). Elsewhere (``jest && node check.js``) the run is
  judged by its exit code and ``Plan.note`` says why. vitest gets ``CI=true``: otherwise it
  watches for changes after its run and never ends.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from patchwright.verify.runners.common import simple_words
from patchwright.verify.runners.jsreports import NODE_REPORTER, read_jest, read_mocha, read_node
from patchwright.verify.runners.plan import Plan

MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
RUNNERS = frozenset({"jest", "vitest", "mocha", "node"})
_WRAPPERS = frozenset({"cross-env", "npx", "pnpx", "bunx", "nyc", "c8", "env", "dotenv", "exec"})
_SPLIT = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")
_MAX_DEPTH = 3


@dataclass(frozen=True)
class Target:
    """The runner a command ends in: ``runner`` (``jest``, ``vitest``, ``mocha``, ``node``),
    ``forward`` (how extra arguments reach it: ``" --"`` through npm, ``""`` directly;
    None when they cannot), and ``script`` (the package.json script it went through)."""

    runner: str
    forward: str | None
    script: str = ""


def manager(root: Path) -> str:
    """The package manager the repository's lock file names (npm when none does, or when the
    one it names is not installed)."""
    for lock, name in (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun"),
                       ("bun.lock", "bun")):  # fmt: skip
        if (root / lock).is_file() and shutil.which(name):
            return name
    return "npm"


def scripts(root: Path) -> dict[str, str]:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    found = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}


def dev_dependencies(root: Path) -> set[str]:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return set()
    names: set[str] = set()
    for key in ("devDependencies", "dependencies"):
        deps = data.get(key) if isinstance(data, dict) else None
        if isinstance(deps, dict):
            names.update(k for k in deps if isinstance(k, str))
    return names


def _runner_of(words: list[str]) -> str | None:
    """The runner a simple command starts (past wrappers and assignments), or None."""
    i = 0
    while i < len(words):
        word = words[i]
        name = os.path.basename(word)
        if ("=" in word and not word.startswith("-")) or name in _WRAPPERS or word == "--":
            i += 1
            continue
        if name in ("_mocha", "mocha"):
            return "mocha"
        if name in ("jest", "vitest"):
            return name
        if name == "node":
            if any(w == "--test" or w.startswith("--test=") for w in words):
                return "node"
            return _runner_of(words[i + 1 :])  # node --experimental-vm-modules .bin/jest
        if word.startswith("-"):  # options of a wrapper (nyc --reporter=x) or of node
            i += 1
            continue
        if name.endswith(".js") and ("jest" in word or "mocha" in word or "vitest" in word):
            return next(r for r in ("vitest", "mocha", "jest") if r in word)  # jest/bin/jest.js
        return None
    return None


def _script_name(words: list[str]) -> str | None:
    """The package.json script a package-manager command runs, or None."""
    head = os.path.basename(words[0])
    rest = [w for w in words[1:] if not w.startswith("-")]
    if not rest:
        return None
    if head == "npm":
        if rest[0] in ("test", "t", "tst"):
            return "test"
        return rest[1] if rest[0] in ("run", "run-script", "rum", "urn") and len(rest) > 1 else None
    if head == "bun":
        return rest[1] if rest[0] == "run" and len(rest) > 1 else None  # `bun test`: bun's own
    if rest[0] == "run":
        return rest[1] if len(rest) > 1 else None
    if rest[0] in ("exec", "dlx", "add", "install", "remove"):
        return None
    return rest[0]


def target(root: Path, cmd: str, depth: int = 0) -> Target | None:
    """The JavaScript test runner ``cmd`` runs in ``root`` (see the module docstring)."""
    words = simple_words(cmd)
    if words is None:  # a shell line: options reach a runner that ends it
        return _script_target(root, cmd, depth)
    head = os.path.basename(words[0])
    if head not in MANAGERS or depth >= _MAX_DEPTH:
        runner = _runner_of(words)
        return Target(runner, "") if runner else None
    if head in ("pnpm", "yarn", "bun") and len(words) > 1 and words[1] in ("exec", "dlx", "x"):
        runner = _runner_of(words[2:])
        return Target(runner, "") if runner else None
    name = _script_name(words)
    script = scripts(root).get(name or "")
    if not script:  # yarn and pnpm also run a package's binary by its name: `yarn jest`
        runner = _runner_of(words[1:]) if head in ("pnpm", "yarn") else None
        return Target(runner, "") if runner else None
    inner = _script_target(root, script, depth)
    if inner is None:
        return None
    if inner.forward != "":  # options would reach the package manager, not the runner
        return Target(inner.runner, None, name or "")
    pass_on = " --" if head == "npm" and "--" not in words else ""
    return Target(inner.runner, pass_on, name or "")


def _script_target(root: Path, script: str, depth: int) -> Target | None:
    parts = [p for p in _SPLIT.split(script.strip()) if p]
    if not parts:
        return None
    simple = simple_words(parts[-1]) is not None
    if depth < _MAX_DEPTH and (simple or parts[-1] != script.strip()):  # else: no progress
        last = target(root, parts[-1], depth + 1)
        if last is not None:
            return last
    found = _in_line(script)
    return Target(found, None) if found else None


def _in_line(line: str) -> str | None:
    """A runner started anywhere in a shell line (its arguments cannot be reached)."""
    for part in _SPLIT.split(line):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        if words and (runner := _runner_of(words)):
            return runner
    return None


@functools.cache
def node_reports(node: str | None) -> bool:
    """node 18.15 or later: ``--test-reporter`` may be given in ``NODE_OPTIONS``."""
    if node is None:
        return False
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    m = re.match(r"v(\d+)\.(\d+)", out.stdout.strip())
    return m is not None and (int(m.group(1)), int(m.group(2))) >= (18, 15)


def plan(root: Path, cmd: str, scratch: Path) -> Plan | None:
    """The plan for a JavaScript test command, or None when ``cmd`` runs no known runner."""
    found = target(root, cmd)
    if found is None:
        return None
    report = scratch / f"{found.runner}-report.json"
    report.unlink(missing_ok=True)
    quoted = shlex.quote(str(report))
    if found.runner == "node":
        if not node_reports(shutil.which("node")):
            return Plan(cmd, "node", note="node is older than 18.15: no per-test reporter")
        reporter = scratch / "node_reporter.mjs"
        reporter.write_text(NODE_REPORTER, encoding="utf-8")
        options = (
            "--test-reporter=spec --test-reporter-destination=stdout "
            f'--test-reporter="{reporter}" --test-reporter-destination="{report}"'
        )
        return Plan(cmd, "node", env={"NODE_OPTIONS": options}, reports=True,
                    read=lambda run, result: read_node(run, report, root))  # fmt: skip
    # vitest watches for changes unless it sees CI (a bare `vitest` script would never end)
    env = {"CI": "true"} if found.runner == "vitest" else {}
    if found.forward is None:
        why = (
            f"options for `{found.runner}` cannot reach it through the `{found.script}` script "
            "(it is not the script's last command, or another script runs it)"
        )
        return Plan(cmd, found.runner, env=env, note=f"no per-test report: {why}")
    args = {
        "jest": f"--json --outputFile={quoted} --testLocationInResults",
        "vitest": f"--reporter=default --reporter=json --outputFile.json={quoted}",
        "mocha": f"--reporter=json --reporter-option output={quoted}",
    }[found.runner]
    full = f"{cmd}{found.forward} {args}"
    if found.runner == "mocha":
        read = lambda run, result: read_mocha(run, report, result.stdout, root)  # noqa: E731
    else:
        read = lambda run, result: read_jest(run, report, root)  # noqa: E731
    return Plan(full, found.runner, env=env, reports=True, read=read)
