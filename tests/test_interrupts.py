"""Stop requests survive Python swallowing the KeyboardInterrupt a signal raised."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from patchwright import interrupts

# the point of these tests: Python reports the lost KeyboardInterrupt as unraisable
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


class SignalWhenCollected:
    """Sends a signal to this process from a finaliser. Python reports "Exception ignored"
    and drops the KeyboardInterrupt, as it did in CI inside logging's at-fork hook."""

    def __init__(self, sig: signal.Signals) -> None:
        self.sig = sig

    def __del__(self) -> None:
        os.kill(os.getpid(), self.sig)


@pytest.fixture
def handlers() -> Iterator[None]:
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    yield
    for sig, handler in before.items():
        signal.signal(sig, handler)


def test_a_sigterm_swallowed_by_a_finaliser_is_raised_at_the_next_check(handlers: None) -> None:
    with interrupts.stop_on_signals():
        SignalWhenCollected(signal.SIGTERM)  # collected at once; its exception is lost
        assert interrupts.requested() == "signal SIGTERM"
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            interrupts.check()


def test_ctrl_c_is_recorded_as_the_users_own_interrupt(handlers: None) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with interrupts.stop_on_signals():
        SignalWhenCollected(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt) as stop:
            interrupts.check()
    assert stop.value.args == ()


def test_a_stop_inside_a_held_step_waits_for_the_step_to_finish(handlers: None) -> None:
    finished = False
    with interrupts.stop_on_signals():
        with interrupts.held():
            os.kill(os.getpid(), signal.SIGTERM)
            finished = True
        assert finished
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()


def test_an_inherited_ignored_sigint_stays_ignored(handlers: None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with interrupts.stop_on_signals():
        os.kill(os.getpid(), signal.SIGINT)
        interrupts.check()  # nothing was requested
        assert interrupts.requested() is None


def test_leaving_restores_the_handlers_and_forgets_the_request(handlers: None) -> None:
    before = signal.getsignal(signal.SIGTERM)
    with interrupts.stop_on_signals():
        interrupts.request("signal SIGTERM")
    assert signal.getsignal(signal.SIGTERM) == before
    interrupts.check()
