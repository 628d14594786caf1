"""What a repository shows about itself, for ``/init``: languages, manifests, the test,
lint and type-check commands, entry points, package layout, main dependencies, README."""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from patchwright.grammars import language_for_path
from patchwright.verify.detect import detect_test_command
from patchwright.workspace.files import list_files

_MANIFESTS = ("pyproject.toml", "setup.py", "setup.cfg", "package.json", "go.mod", "Cargo.toml",
              "Makefile", "Dockerfile", "tox.ini", "noxfile.py")  # fmt: skip
_LOCKS = ("uv.lock", "poetry.lock", "Pipfile.lock", "package-lock.json", "yarn.lock",
          "pnpm-lock.yaml", "Cargo.lock", "go.sum")  # fmt: skip


@dataclass
class ProjectFacts:
    name: str
    files: int = 0
    languages: list[tuple[str, int]] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)
    locks: list[str] = field(default_factory=list)
    test_cmd: str | None = None
    lint_cmds: list[str] = field(default_factory=list)
    run_cmds: list[str] = field(default_factory=list)  # entry points and how to start them
    layout: list[tuple[str, int]] = field(default_factory=list)  # top-level folders, files
    packages: list[str] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    test_dirs: list[str] = field(default_factory=list)
    readme: str = ""


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _make_targets(root: Path) -> set[str]:
    try:
        text = (root / "Makefile").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    return set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.MULTILINE))


# a path bare, or as shlex.quote writes it: in '...', a ' inside it written '"'"'
_INTERPRETER = re.compile(r"""^(?:'(?:[^']|'"'"')*python[\d.]*'|\S*python[\d.]*)\s+-m\s+""")


def portable_test_cmd(detected: str | None) -> str | None:
    """The detected command without this machine's interpreter path (bare, or quoted by
    :func:`shlex.quote` where it has spaces or other shell characters)."""
    if detected is None:
        return None
    return _INTERPRETER.sub("python -m ", detected)


def _python(root: Path, facts: ProjectFacts) -> None:
    py = _toml(root / "pyproject.toml")
    tool = py.get("tool", {}) if isinstance(py.get("tool"), dict) else {}
    project = py.get("project", {}) if isinstance(py.get("project"), dict) else {}
    if "ruff" in tool or (root / "ruff.toml").is_file() or (root / ".ruff.toml").is_file():
        facts.lint_cmds += ["ruff check .", "ruff format --check ."]
    setup_cfg = root / "setup.cfg"
    if (root / ".flake8").is_file() or (
        setup_cfg.is_file() and "[flake8]" in setup_cfg.read_text(errors="replace")
    ):
        facts.lint_cmds.append("flake8")
    mypy = tool.get("mypy")
    if mypy is not None or (root / "mypy.ini").is_file():
        strict = isinstance(mypy, dict) and mypy.get("strict")
        facts.lint_cmds.append("mypy --strict" if strict else "mypy")
    scripts = project.get("scripts") or {}
    if isinstance(scripts, dict):
        facts.run_cmds += [f"{name}  (→ {target})" for name, target in scripts.items()]
    deps = project.get("dependencies") or []
    if isinstance(deps, list):
        facts.dependencies += [re.split(r"[\s<>=!~;\[]", str(d), maxsplit=1)[0] for d in deps]


def _node(root: Path, facts: ProjectFacts) -> None:
    pkg = _json(root / "package.json")
    scripts = pkg.get("scripts")
    if not isinstance(scripts, dict):
        scripts = {}
    for name in ("lint", "typecheck", "format"):
        if name in scripts:
            facts.lint_cmds.append(f"npm run {name}")
    for name in ("start", "dev", "build"):
        if name in scripts:
            facts.run_cmds.append(f"npm run {name}  (→ {scripts[name]})")
    deps = pkg.get("dependencies")
    if isinstance(deps, dict):
        facts.dependencies += list(deps)


def _go_rust(root: Path, facts: ProjectFacts, paths: list[str]) -> None:
    if (root / "go.mod").is_file():
        facts.lint_cmds.append("go vet ./...")
        mains = sorted({str(PurePosixPath(p).parent) for p in paths if p.endswith("main.go")})
        facts.run_cmds += [f"go run ./{m}" if m != "." else "go run ." for m in mains[:5]]
    if (root / "Cargo.toml").is_file():
        facts.lint_cmds.append("cargo clippy")
        facts.run_cmds.append("cargo run")
        deps = _toml(root / "Cargo.toml").get("dependencies")
        if isinstance(deps, dict):
            facts.dependencies += list(deps)


def gather_facts(root: Path) -> ProjectFacts:
    root = Path(root).resolve()
    paths = [f.path for f in list_files(root)]
    facts = ProjectFacts(name=root.name, files=len(paths))
    langs = Counter(lang for p in paths if (lang := language_for_path(p)))
    facts.languages = langs.most_common(6)
    facts.manifests = [m for m in _MANIFESTS if (root / m).is_file()]
    facts.locks = [m for m in _LOCKS if (root / m).is_file()]
    targets = _make_targets(root)
    facts.test_cmd = portable_test_cmd(detect_test_command(root))
    _python(root, facts)
    _node(root, facts)
    _go_rust(root, facts, paths)
    for target in ("lint", "check", "typecheck"):
        if target in targets:
            facts.lint_cmds.insert(0, f"make {target}")
    if "test" in targets and facts.test_cmd:
        facts.test_cmd = f"make test  (or: {facts.test_cmd})"
    # a __main__.py at the top (or directly in src/) belongs to no package: no -m runs it
    mains = [m for p in paths if p.endswith("__main__.py") and (m := _module(p))]
    facts.run_cmds += [f"python -m {m}" for m in mains][:3]
    tops = Counter(p.split("/", 1)[0] for p in paths if "/" in p)
    facts.layout = tops.most_common(10)
    facts.packages = sorted({str(PurePosixPath(p).parent) for p in paths
                             if p.endswith("__init__.py") and p.count("/") <= 2 and "test" not in p})[:10]  # fmt: skip
    facts.test_dirs = [d for d, _ in facts.layout if d in ("tests", "test", "spec", "__tests__")]
    facts.dependencies = list(dict.fromkeys(d for d in facts.dependencies if d))[:15]
    facts.readme = _readme(root)
    return facts


def _module(path: str) -> str:
    parts = PurePosixPath(path).parent.parts
    return ".".join(parts[1:] if parts and parts[0] == "src" else parts)


def _readme(root: Path) -> str:
    for name in ("README.md", "README.rst", "README.txt", "README"):
        try:
            text = (root / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        return text.strip()[:1200]
    return ""
