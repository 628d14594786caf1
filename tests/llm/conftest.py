"""Fixtures: one loopback protocol server for the module, reset before each test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # test helpers live next to the tests

from llm_fakeserver import FakeServer


@pytest.fixture(scope="session")
def _server() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


@pytest.fixture()
def fake(_server: FakeServer) -> FakeServer:
    _server.reset()
    return _server
