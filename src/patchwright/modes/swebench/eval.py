"""``patchwright swebench eval``: grade predictions the way the official harness does — the
checkout at the base commit in its environment, the predicted patch applied (``git apply``,
then ``patch --fuzz=5``), the test patch applied, the official test command, the log read
with the repository's official parser — and say per instance why it is or is not resolved.
Grading is the one step that uses the hidden tests by design; a prediction that was itself
chosen with them (``"oracle_tests": true``, from ``--oracle-tests``) stays marked so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from patchwright.envs import EnvironmentUnavailable
from patchwright.envs.docker import image_for, run_eval_script
from patchwright.modes.swebench.grading import grade, parse_log
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.repos import RepoError
from patchwright.modes.swebench.setup import Where, cleanup, prepare_instance
from patchwright.modes.swebench.tests import PatchError, git_apply, run_instance_tests


@dataclass
class Graded:
    instance_id: str
    resolved: bool = False
    reason: str = ""
    report: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    oracle_tests: bool = False  # the prediction was chosen with the hidden tests

    def to_json(self) -> dict[str, Any]:
        data = {"instance_id": self.instance_id, "resolved": self.resolved,
                "reason": self.reason, "report": self.report, "notes": self.notes}  # fmt: skip
        if self.oracle_tests:
            data["oracle_tests"] = True
        return data


def grade_local(instance: Instance, patch: str, where: Where, timeout: float) -> Graded:
    """Grade one prediction in the ``local`` (or ``host``) environment."""
    graded = Graded(instance.instance_id)
    if not patch.strip():
        graded.reason = "empty patch"
        return graded
    try:
        prepared = prepare_instance(where, instance)
    except (EnvironmentUnavailable, RepoError) as exc:
        graded.reason = f"environment: {exc}"
        return graded
    try:
        graded.notes = list(prepared.env.notes)
        try:
            git_apply(prepared.repo, patch)
        except PatchError as exc:
            graded.reason = f"the patch does not apply: {exc}"
            return graded
        report = run_instance_tests(prepared.env, instance, prepared.spec, timeout=timeout)
        result = report.grade(instance)
        graded.resolved, graded.report = result.resolved, result.to_json()
        graded.reason = report.problem or result.reason()
    except PatchError as exc:
        graded.reason = f"the test patch does not apply over the prediction: {exc}"
    finally:
        prepared.env.close()
        if not where.keep:
            cleanup(where, instance, prepared.home)
    return graded


def grade_docker(instance: Instance, patch: str, timeout: float) -> Graded:
    """Grade one prediction in the official image: the patch, then the eval script."""
    graded = Graded(instance.instance_id)
    if not instance.eval_script:
        graded.reason = "no eval_script in the instance row (needed by the docker environment)"
        return graded
    apply = f"cd /testbed\ngit apply -v - <<'PATCHWRIGHT_EOF'\n{patch}\nPATCHWRIGHT_EOF\n"
    code, log = run_eval_script(
        image_for(instance.instance_id, instance.image), apply + instance.eval_script, timeout
    )
    if code is None:
        graded.reason = log.splitlines()[0] if log else "timed out"
        return graded
    status, _ = parse_log(instance.repo, log)
    result = grade(status, instance.fail_to_pass, instance.pass_to_pass)
    graded.resolved, graded.report, graded.reason = (
        result.resolved,
        result.to_json(),
        result.reason(),
    )
    return graded


def evaluate(
    instances: Sequence[Instance], predictions: Mapping[str, Mapping[str, Any]], where: Where,
    *, timeout: float = 900.0, on_graded: Callable[[Graded], None] = lambda _g: None,
) -> list[Graded]:  # fmt: skip
    """Grade every instance that has a prediction."""
    out = []
    for instance in instances:
        row = predictions.get(instance.instance_id)
        if row is None:
            continue
        patch = str(row.get("model_patch") or "")
        if where.env == "docker":
            graded = grade_docker(instance, patch, timeout)
        else:
            graded = grade_local(instance, patch, where, timeout)
        graded.oracle_tests = bool(row.get("oracle_tests"))
        out.append(graded)
        on_graded(graded)
    return out
