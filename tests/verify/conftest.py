"""Shared helpers for the gate tests: small real repositories in tmp dirs, a real sandbox."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline, GateResult, run_gates, take_baseline

Writer = Callable[[Mapping[str, str]], None]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return root


@pytest.fixture
def write(repo: Path) -> Writer:
    """Write files (relative path -> text) into the repository."""

    def _write(files: Mapping[str, str]) -> None:
        for rel, text in files.items():
            path = repo / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    return _write


@pytest.fixture
def sandbox(repo: Path) -> Iterator[Sandbox]:
    box = Sandbox(repo)
    yield box
    box.close()


Check = Callable[..., dict[str, GateResult]]


@pytest.fixture
def check(repo: Path, sandbox: Sandbox) -> Check:
    """``check(baseline, touched, **run_gates_kwargs)`` -> results by gate name."""

    def _check(baseline: Baseline, touched: Sequence[str], **kwargs: Any) -> dict[str, GateResult]:
        results = run_gates(repo, sandbox, baseline, touched=touched, **kwargs)
        return {r.name: r for r in results}

    return _check


@pytest.fixture
def baseline(repo: Path, sandbox: Sandbox) -> Callable[..., Baseline]:
    """``baseline(**take_baseline_kwargs)``: the tree as it is now."""

    def _take(**kwargs: Any) -> Baseline:
        return take_baseline(repo, sandbox, **kwargs)

    return _take


JS_RUNNERS = Path(__file__).resolve().parents[1] / "fixtures" / "js-runners"


@pytest.fixture
def js_modules(repo: Path) -> Callable[[], Path]:
    """``js_modules()``: the repository's ``node_modules`` holding jest, vitest, mocha,
    typescript and eslint — links into ``tests/fixtures/js-runners/node_modules``, which
    ``scripts/setup.sh`` installs with ``npm ci`` from the committed lock file (skipped with
    the reason when it is not installed). A real folder of links, so that a runner's own
    cache (``node_modules/.vite``) is written in the repository, as in a real checkout."""

    def _link() -> Path:
        source = JS_RUNNERS / "node_modules"
        if not (source / ".bin" / "jest").exists():
            pytest.skip(
                "the JavaScript test runners are not installed: run scripts/setup.sh "
                "(npm ci in tests/fixtures/js-runners)"
            )
        target = repo / "node_modules"
        target.mkdir(exist_ok=True)
        for entry in source.iterdir():
            if not (target / entry.name).exists():
                (target / entry.name).symlink_to(entry)
        return target

    return _link
