"""Translate errors of the official SDKs (openai, anthropic; same shape) into
:class:`ProviderError` with the ``kind`` the router acts on."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from patchwright.llm.errors import ErrorKind, ProviderError
from patchwright.llm.providers import is_loopback


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date)."""
    if not headers:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _kind_for_status(status: int) -> ErrorKind:
    if status == 429:
        return "rate_limit"
    if status == 408:
        return "timeout"
    if status in (401, 403):
        return "auth"
    if status >= 500:
        return "server"
    return "bad_request"


def _is_transport_error(exc: BaseException) -> bool:
    """httpx/httpcore errors escaping a stream mid-way (the SDKs do not wrap those)."""
    mod = type(exc).__module__
    return mod.startswith(("httpx", "httpcore", "h11")) or isinstance(exc, ConnectionError)


def translate(
    exc: BaseException, *, provider: str, base_url: str, start_hint: str = ""
) -> ProviderError | None:
    """The ProviderError for an SDK/transport exception, or None if it is not one."""
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    if isinstance(status, int):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        detail = str(getattr(exc, "message", "") or exc)[:300]
        if status == 404 and start_hint:  # a local server without that model
            detail += f"; {start_hint}"
        return ProviderError(
            f"{provider} answered HTTP {status}: {detail}",
            kind=_kind_for_status(status),
            status=status,
            retry_after=parse_retry_after(headers),
            provider=provider,
        )
    if name in {"APITimeoutError", "ReadTimeout", "ConnectTimeout", "TimeoutException"} or (
        "Timeout" in name and _is_transport_error(exc)
    ):
        return ProviderError(
            f"{provider}: no answer from {base_url} in time", kind="timeout", provider=provider
        )
    if name == "APIConnectionError" or _is_transport_error(exc):
        cause = exc.__cause__ or exc.__context__
        refused = (
            "refused" in f"{exc} {cause}".lower()
            or "connecterror" in f"{type(cause).__name__}".lower()
        )
        if refused and is_loopback(base_url):
            hint = f"; {start_hint}" if start_hint else ""
            return ProviderError(
                f"{provider}: nothing is listening at {base_url}{hint}",
                kind="unreachable",
                provider=provider,
            )
        return ProviderError(
            f"{provider}: connection to {base_url} failed ({name}: {exc})",
            kind="connection",
            provider=provider,
        )
    return None


@contextmanager
def translated(
    *,
    provider: str,
    base_url: str,
    start_hint: str = "",
    catch: type[Exception] | tuple[type[Exception], ...] = Exception,
) -> Iterator[None]:
    """Run a provider call so that an SDK/transport exception (of type ``catch``) leaves it
    as the :class:`ProviderError` :func:`translate` makes of it; a ProviderError and any
    exception it does not recognise pass through unchanged."""
    try:
        yield
    except ProviderError:
        raise
    except catch as exc:
        err = translate(exc, provider=provider, base_url=base_url, start_hint=start_hint)
        if err is None:
            raise
        raise err from exc
