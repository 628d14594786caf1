"""Shared helpers for the gate tests: small real repositories in tmp dirs, a real sandbox."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import install_node_modules

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


@pytest.fixture
def js_modules(repo: Path) -> Callable[[], Path]:
    """``js_modules()``: the repository's ``node_modules`` holding jest, vitest, mocha,
    typescript and eslint (see ``install_node_modules``)."""
    return lambda: install_node_modules(repo)
