"""``patchwright swebench``: one SWE-bench instance end to end.

The checkout at the base commit in its environment; the groundwork — by default from the
issue and the repository alone (:mod:`.fair`: suspects from the index and the issue's
tracebacks, the repository's own tests, optionally a reproduction test the model writes),
with ``--oracle-tests`` from the hidden tests (:mod:`.oracle`); K candidates per round (or
the gold patch); validators; TNR over the finalists with the groundwork's checks; the
winner's diff is the prediction. Every step is an event in ``events.ndjson``;
``result.json`` keeps the figures.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.agent.session import Session
from patchwright.config import Settings
from patchwright.edits import unified_diff
from patchwright.envs import EnvironmentUnavailable
from patchwright.events import (
    CandidateValidated,
    EventBus,
    InstanceEnd,
    InstanceStart,
    JsonlWriter,
    LocaliseDone,
)
from patchwright.modes.swebench.agent_candidates import AgentUsage, agent_candidates
from patchwright.modes.swebench.checks import Checks, Groundwork
from patchwright.modes.swebench.fair import fair_groundwork
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.localise import describe
from patchwright.modes.swebench.oracle import oracle_groundwork
from patchwright.modes.swebench.propose import (
    Prompt,
    Reader,
    excerpt_format,
    gold_candidate,
    model_candidates,
    repo_files,
)
from patchwright.modes.swebench.repos import RepoError
from patchwright.modes.swebench.result import InstanceOutcome, InstanceResult
from patchwright.modes.swebench.setup import Prepared, Where, cleanup, prepare_instance
from patchwright.modes.swebench.tests import PatchError
from patchwright.modes.swebench.tnr import Candidate, Trial, tnr
from patchwright.modes.swebench.validate import Caps, validate

GOLD = "gold"
STRATEGIES = ("pipeline", "agent")


@dataclass
class SolveOptions:
    model: str | None = None  # a model spec, or "gold"
    strategy: str = "pipeline"
    candidates: int = 2  # candidates per round (agent: runs of the agent)
    max_iter: int = 2  # rounds of candidates
    plan: bool | None = None  # agent: run the planner (None: [agent] plan)
    test_timeout: float = 900.0
    caps: Caps = field(default_factory=Caps)
    suspects: int = 7
    oracle_tests: bool = False  # localise and choose with the hidden tests (not leaderboard-fair)
    reproduce: bool = False  # fair mode: the model first writes a test reproducing the issue


def model_label(opts: SolveOptions, settings: Settings) -> str:
    return opts.model or settings.model.name


def solve_instance(
    instance: Instance, where: Where, opts: SolveOptions, settings: Settings, out: Path
) -> InstanceResult:
    """Run one instance (see the module docstring); never raises for the instance's own
    problems — they become an ``error`` result with the reason."""
    started = time.monotonic()
    result = InstanceResult(instance.instance_id, model_label(opts, settings),
                            oracle_tests=opts.oracle_tests)  # fmt: skip
    folder = out / instance.instance_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "events.ndjson").unlink(missing_ok=True)
    bus = EventBus()
    bus.subscribe(JsonlWriter(folder / "events.ndjson"))
    bus.emit(InstanceStart(instance_id=instance.instance_id, model=result.model_name,
                           oracle_tests=opts.oracle_tests))  # fmt: skip
    prepared: Prepared | None = None
    try:
        prepared = prepare_instance(where, instance)
        result.environment = {"kind": prepared.env.kind, "notes": prepared.env.notes,
                              "spec": prepared.spec.to_json()}  # fmt: skip
        _solve(prepared, opts, settings, bus, result, folder)
    except (EnvironmentUnavailable, RepoError, PatchError) as exc:
        result.outcome, result.reason = "error", str(exc)
    except Exception as exc:  # one instance's crash must not end the batch
        result.outcome, result.reason = "error", f"{type(exc).__name__}: {exc}"
    finally:
        if prepared is not None:
            prepared.env.close()
            if not where.keep:
                cleanup(where, instance, prepared.home)
        result.seconds = time.monotonic() - started
        bus.emit(InstanceEnd(outcome=result.outcome, reason=result.reason[:500],
                             seconds=round(result.seconds, 2)))  # fmt: skip
        (folder / "result.json").write_text(json.dumps(result.to_json(), indent=2))
    return result


def _model_spec(opts: SolveOptions, instance: Instance, home: Path) -> str | None:
    """Gold needs no model: a script holding the patch keeps the session's model valid."""
    if opts.model != GOLD:
        return opts.model
    script = home / "gold.jsonl"
    script.write_text(json.dumps({"content": instance.patch}) + "\n", encoding="utf-8")
    return f"scripted:{script}"


def _solve(
    prepared: Prepared, opts: SolveOptions, settings: Settings, bus: EventBus,
    result: InstanceResult, folder: Path,
) -> None:  # fmt: skip
    instance = prepared.instance
    if opts.strategy not in STRATEGIES:
        raise EnvironmentUnavailable(f"--strategy {opts.strategy}: use pipeline or agent")
    agent_usage = AgentUsage()  # each agent run starts the session's ledger anew
    model = _model_spec(opts, instance, prepared.home)
    session = Session(settings, prepared.repo, model=model, bus=bus, environment=prepared.env)
    try:
        session.start_task()
        work = _groundwork(prepared, session, opts, bus)
        result.checks = work.record
        _record_localisation(result, bus, work, prepared)
        winner, trials, candidates = _propose_and_test(prepared, session, opts, work, bus,
                                                       agent_usage)  # fmt: skip
        result.candidates = [{"candidate": c.number, "source": c.source, "files": sorted(c.changes),
                              "refused": c.refused} for c in candidates]  # fmt: skip
        result.trials = [t.to_json() for t in trials]
        _conclude(result, winner, trials, work.checks)
    finally:
        usage = session.usage
        result.prompt_tokens = usage.usage.prompt_tokens
        result.completion_tokens = usage.usage.completion_tokens
        result.cost = usage.cost
        if opts.strategy == "agent" and opts.model != GOLD:
            result.prompt_tokens = agent_usage.prompt_tokens
            result.completion_tokens = agent_usage.completion_tokens
            result.agent_steps = agent_usage.steps
        session.close()


def _groundwork(
    prepared: Prepared, session: Session, opts: SolveOptions, bus: EventBus
) -> Groundwork:
    if opts.oracle_tests:
        return oracle_groundwork(prepared, session, limit=opts.suspects,
                                 timeout=opts.test_timeout, bus=bus)  # fmt: skip
    reproduce = opts.reproduce and opts.model != GOLD  # gold has no model to write a test
    if opts.reproduce and not reproduce:
        prepared.env.notes.append("--reproduce: no reproduction test with --model gold")
    return fair_groundwork(prepared, session, limit=opts.suspects, reproduce=reproduce,
                           timeout=opts.test_timeout, bus=bus)  # fmt: skip


def _record_localisation(
    result: InstanceResult, bus: EventBus, work: Groundwork, prepared: Prepared
) -> None:
    reader = Reader(prepared.repo)
    result.localisation = describe(work.suspects, work.signals, prepared.instance.patch,
                                   reader.text)  # fmt: skip
    bus.emit(LocaliseDone(suspects=[f"{s.path}::{s.name}" for s in work.suspects],
                          file_rank=result.localisation["file_rank"],
                          function_rank=result.localisation["function_rank"]))  # fmt: skip


def _propose_and_test(
    prepared: Prepared, session: Session, opts: SolveOptions, work: Groundwork, bus: EventBus,
    agent_usage: AgentUsage,
) -> tuple[Trial | None, list[Trial], list[Candidate]]:  # fmt: skip
    instance, suspects = prepared.instance, work.suspects
    if opts.model == GOLD:
        candidates = [gold_candidate(prepared.repo, instance.patch)]
        winner, trials = tnr(prepared.env, work.checks, candidates, bus=bus,
                             timeout=opts.test_timeout)  # fmt: skip
        return winner, trials, candidates
    reader = Reader(prepared.repo)
    allowed = {s.path for s in suspects}
    allowed |= {p for p in repo_files(session.root) if p in instance.problem_statement}
    all_trials: list[Trial] = []
    all_candidates: list[Candidate] = []
    feedback = ""
    for _round in range(opts.max_iter):
        prompt = Prompt(instance.problem_statement, suspects, work.failures, feedback)
        first = len(all_candidates) + 1
        if opts.strategy == "agent":
            candidates = agent_candidates(session, prompt, k=opts.candidates, first=first,
                                          test_cmd=work.agent_test_cmd,
                                          test_timeout=opts.test_timeout,
                                          plan=opts.plan, usage=agent_usage)  # fmt: skip
        else:
            fmt = excerpt_format(session.settings.run.edit_format)
            candidates = model_candidates(session, prompt, k=opts.candidates, first=first, fmt=fmt)
        for c in candidates:
            if c.changes and not c.refused:
                diff = _diff_text(reader, c)
                c.refused = validate(diff, c.changes, allowed=allowed, old_text=reader.text,
                                     task=instance.problem_statement, caps=opts.caps).reasons  # fmt: skip
            bus.emit(CandidateValidated(candidate=c.number, refused=c.refused))
        all_candidates += candidates
        winner, trials = tnr(prepared.env, work.checks, candidates, bus=bus,
                             timeout=opts.test_timeout)  # fmt: skip
        all_trials += trials
        if winner is not None:
            return winner, all_trials, all_candidates
        feedback = _feedback(trials, candidates)
    return None, all_trials, all_candidates


def _diff_text(reader: Reader, candidate: Candidate) -> str:
    return unified_diff(
        (path, reader.text(path), data.decode("utf-8", "replace") if data is not None else None)
        for path, data in sorted(candidate.changes.items())
    )


def _feedback(trials: list[Trial], candidates: list[Candidate]) -> str:
    if trials:
        best = max(trials, key=lambda t: t.rank())
        return f"{best.reason}\n{best.diff[-1200:]}"
    refused = [r for c in candidates for r in c.refused]
    return "; ".join(refused[:3])


def _conclude(
    result: InstanceResult, winner: Trial | None, trials: list[Trial], checks: Checks
) -> None:
    if winner is not None:
        result.model_patch, result.churn = winner.diff, winner.churn
        result.outcome, result.reason = _verdict(checks)
        return
    tried = [t for t in trials if t.diff]
    if not tried:
        result.outcome = "empty"
        result.reason = "no candidate could be applied" if not trials else trials[-1].reason
        return
    best = max(tried, key=lambda t: t.rank())
    result.outcome, result.model_patch, result.churn = "unverified", best.diff, best.churn
    result.reason = f"no candidate passed; submitted the closest: {best.reason}"


def _verdict(checks: Checks) -> tuple[InstanceOutcome, str]:
    """What a passing candidate is worth: ``verified`` only where a test that failed before
    any change now passes."""
    if checks.oracle:
        return "verified", "a candidate passed FAIL_TO_PASS and PASS_TO_PASS"
    if checks.proves_fix:
        return "verified", (
            "a candidate passed the reproduction test and broke none of the repository's tests"
        )
    return "unverified", (
        "a candidate broke none of the repository's own tests; no test of the issue was run"
    )
