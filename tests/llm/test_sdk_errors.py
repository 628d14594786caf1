"""translated(): the one place where SDK and transport exceptions become ProviderError."""

from __future__ import annotations

import pytest

from patchwright.llm import ProviderError
from patchwright.llm.sdk_errors import translated


def test_a_dropped_connection_becomes_a_retryable_provider_error() -> None:
    cause = ConnectionResetError("peer went away")
    with (
        pytest.raises(ProviderError) as info,
        translated(provider="p", base_url="https://api.example.com"),
    ):
        raise cause
    assert info.value.kind == "connection" and info.value.retryable
    assert "https://api.example.com" in str(info.value)
    assert info.value.__cause__ is cause


def test_provider_errors_and_unknown_exceptions_pass_through_unchanged() -> None:
    own = ProviderError("p: cut", kind="connection")
    with pytest.raises(ProviderError) as info, translated(provider="p", base_url="u"):
        raise own
    assert info.value is own
    with pytest.raises(KeyError), translated(provider="p", base_url="u"):
        raise KeyError("a bug, not a provider failure")


def test_only_the_named_exception_types_are_translated() -> None:
    with (
        pytest.raises(ConnectionResetError),
        translated(provider="p", base_url="u", catch=TimeoutError),
    ):
        raise ConnectionResetError("not ours to translate")
