"""What a task is asked with: one typed ``TaskRequest``, built in one place.

:func:`build_request` is the only place a request is made: the layered ``Settings`` (built-in
defaults < user config < repository config < environment) with what the command line or a
mode says over them (``Overrides``) on top. Every mode — ``run``, chat's tasks, ``review``,
SWE-bench's agent candidates — builds its request here, so a setting cannot be read by one
mode and dropped by another, and a default is written once (in ``patchwright.config``).

Which strategy runs is :func:`patchwright.agent.solve.solve`'s to say, from the model's
catalog entry; it refuses there, before anything runs, a setting that strategy cannot
honour.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar, get_args

from patchwright.agent.edit_format import FORMATS
from patchwright.config import Settings

Strategy = Literal["auto", "pipeline", "agent"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)
_STRATEGY: dict[str, Strategy] = {"auto": "auto", "pipeline": "pipeline", "agent": "agent"}
_T = TypeVar("_T")


class RunError(Exception):
    """A usage or configuration problem: the task did not start (exit code 2)."""


@dataclass(frozen=True)
class Overrides:
    """What the command line (or a mode) says over the settings. ``None`` (or empty) leaves
    the setting as configured; each field is named after its flag."""

    test_cmd: str | None = None
    done_when: Sequence[str] = ()
    strategy: str | None = None
    max_iter: int | None = None
    candidates: int | None = None  # None: auto
    plan: bool | None = None
    max_rejections: int | None = None
    edit_format: str | None = None
    include: Sequence[str] = ()
    test_timeout: float | None = None
    branch: bool | None = None
    no_git: bool = False
    commit: bool | None = None
    yes: bool = False
    approve_timeout: float | None = None
    push: bool = False
    pr: bool = False


@dataclass(frozen=True)
class Limits:
    """How much a strategy may try. No defaults here: they are the settings'."""

    max_iter: int  # pipeline: iterations; agent: coder rounds (a change judged each)
    candidates: int | None  # pipeline: replies sampled per iteration; None: auto
    plan: bool  # agent: the planner runs first
    max_rejections: int  # agent: times the change may be sent back to the coder
    test_timeout: float  # seconds one run of the tests may take


@dataclass(frozen=True)
class GitChoices:
    use_git: bool = True  # False: a plain directory, the journal only
    branch: bool = False  # work on a new patchwright/<task> branch
    commit: bool = True  # commit the kept change
    push: bool = False
    pr: bool = False


@dataclass(frozen=True)
class Approval:
    yes: bool = False  # apply verified changes without asking
    timeout: float | None = None  # apply after this many seconds without an answer


@dataclass(frozen=True)
class TaskRequest:
    """One task as asked (see the module docstring); make it with :func:`build_request`.

    ``hand_back``: the verified change is not kept — it comes back in the result (its bytes
    and diff) with the repository as it was (SWE-bench judges its candidates itself)."""

    task: str
    limits: Limits
    test_cmd: str | None = None
    done_when: tuple[str, ...] = ()
    strategy: Strategy = "auto"
    edit_format: str = "auto"
    include: tuple[str, ...] = ()
    git: GitChoices = field(default_factory=GitChoices)
    approval: Approval = field(default_factory=Approval)
    hand_back: bool = False
    skip_plan: bool = False  # the caller asked to skip the planner (--no-plan): agent only


def build_request(
    task: str, settings: Settings, overrides: Overrides | None = None, *, hand_back: bool = False
) -> TaskRequest:
    """The request for ``task``: ``settings`` with ``overrides`` on top. Raises
    :class:`RunError` for a value no strategy could use."""
    over = overrides or Overrides()
    run, agent = settings.run, settings.agent
    limits = Limits(
        max_iter=_at_least_one("--max-iter", _pick(over.max_iter, run.max_iter)),
        candidates=None if over.candidates is None else _at_least_one("--candidates", over.candidates),
        plan=_pick(over.plan, agent.plan),
        max_rejections=_pick(over.max_rejections, agent.max_rejections),
        test_timeout=_pick(over.test_timeout, run.test_timeout),
    )  # fmt: skip
    if limits.test_timeout <= 0:
        raise RunError(f"--test-timeout {limits.test_timeout:g}: give a positive number of seconds")
    return TaskRequest(
        task=task,
        limits=limits,
        test_cmd=over.test_cmd or run.test_cmd,
        done_when=tuple(over.done_when),
        strategy=_strategy(_pick(over.strategy, agent.strategy)),
        edit_format=_edit_format(_pick(over.edit_format, run.edit_format)),
        include=tuple(dict.fromkeys(over.include)),
        git=_git_choices(over, settings, hand_back=hand_back),
        approval=Approval(yes=over.yes, timeout=over.approve_timeout),
        hand_back=hand_back,
        skip_plan=over.plan is False,
    )


def _git_choices(over: Overrides, settings: Settings, *, hand_back: bool) -> GitChoices:
    """What git may do; a flag that asks for what another forbids is refused, not dropped."""
    commit = _pick(over.commit, settings.run.commit)
    landing = [flag for flag, on in (("--push", over.push), ("--pr", over.pr)) if on]
    if over.no_git and (landing or over.branch):
        flags = " and ".join([*(["--branch"] if over.branch else []), *landing])
        raise RunError(f"{flags} need git: drop --no-git, or {flags}")
    if landing and not commit:
        flags = " and ".join(landing)
        why = "--no-commit" if over.commit is False else "[run] commit = false"
        raise RunError(f"{flags} need a commit, and {why} makes none: drop one of them")
    return GitChoices(
        use_git=not over.no_git,
        branch=_pick(over.branch, settings.run.branch),
        commit=commit and not hand_back,
        push=over.push,
        pr=over.pr,
    )


def _pick(given: _T | None, setting: _T) -> _T:
    return setting if given is None else given


def _at_least_one(flag: str, value: int) -> int:
    if value < 1:
        raise RunError(f"{flag} {value}: give a positive number")
    return value


def _strategy(value: str) -> Strategy:
    strategy = _STRATEGY.get(value)
    if strategy is not None:
        return strategy
    raise RunError(f"--strategy {value}: use one of {', '.join(STRATEGIES)}")


def _edit_format(value: str) -> str:
    if value not in FORMATS:
        raise RunError(f"--edit-format {value}: use one of {', '.join(FORMATS)}")
    return value
