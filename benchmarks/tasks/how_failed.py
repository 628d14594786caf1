"""How each task failed, read off a run's ``--keep-records`` folder: per patchwright attempt,
what became of the reply (not applied and why, a gate that refused it with its first
problem, the tests it left failing), and per Aider run, its attempts and its last test
output's verdict. The hard sets (Aider's polyglot exercises) are reported this way: few are
solved, so how the others ended is the figure.

    python benchmarks/tasks/how_failed.py .bench-cache/records-prust-570cac2
    python benchmarks/tasks/how_failed.py .bench-cache/records-prust-570cac2 --results \\
        benchmarks/results/polyglot-rust-570cac2.jsonl     # only the tasks a tool failed
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

_FAILED = "What failed:\n"
# A test run's verdict in the output Aider shows its model: cargo, go test, jest, node.
_VERDICTS = (
    re.compile(r"^test result: FAILED\..*$", re.M),
    re.compile(r"^error(?:\[E\d+\])?: .*$", re.M),
    re.compile(r"^Tests:\s+.*failed.*$", re.M),
    re.compile(r"^(?:FAIL|---\s*FAIL:?).*$", re.M),
    re.compile(r"^# fail \d+$", re.M),
)


_ROLE = re.compile(r"^(?:USER|ASSISTANT|SYSTEM) ", re.M)


def _said(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def patchwright_attempts(task_dir: Path) -> list[str]:
    """One line per reply of the run's trajectory: the feedback the reply got, shortened to
    its headline and first problem (the run's last reply: the summary's reason). Replies the
    conversation dropped (an echo, one cut off or looping) are not in the trajectory: the
    run's events.jsonl counts them (``edit.failed``)."""
    runs = sorted(task_dir.glob("*/trajectory.json"))
    if not runs:
        return ["(no record)"]
    messages = json.loads(runs[-1].read_text())["messages"]
    lines: list[str] = []
    for i, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        j = next((j for j in range(i + 1, len(messages)) if messages[j].get("role") == "user"), 0)
        feedback = str(messages[j].get("content", "")) if j else ""
        if j != i + 1:  # a new conversation began (it restates the failure), or the run ended
            feedback = feedback if j and _FAILED in feedback else _reason(runs[-1].parent)
        lines.append(_headline(feedback))
    return lines


def _reason(run: Path) -> str:
    """Why the run ended, from its summary; a run stopped at the time limit has none."""
    summary = run / "summary.json"
    if not summary.exists():
        return "(no summary: the run was stopped, at the benchmark's time limit or by hand)"
    return str(json.loads(summary.read_text()).get("reason"))


def _headline(feedback: str) -> str:
    if _FAILED in feedback:
        body = feedback.split(_FAILED, 1)[1].strip().splitlines()
        first = next((x for x in body[1:] if x.startswith("- ")), "")
        return _said(f"{body[0] if body else ''} {first}")
    return _said(feedback.strip().splitlines()[0] if feedback.strip() else "(no feedback)")


def aider_run(task_dir: Path) -> list[str]:
    """Aider's attempts, whether it claimed the tests pass, and the verdict of the last test
    output it was shown."""
    outcome_file = task_dir / "outcome.json"
    outcome = json.loads(outcome_file.read_text()) if outcome_file.exists() else {}
    chat = (task_dir / "chat.md").read_text() if (task_dir / "chat.md").exists() else ""
    applied = chat.count("> Applied edit to")
    replies = chat.count("> Tokens:")
    tests = "passed" if outcome.get("test_outcome") else "failed"
    head = (f"{outcome['reflections'] + 1} attempt(s), {replies} replies, {applied} applied, "
            f"tests {tests}" if "reflections" in outcome
            else f"{replies} replies, {applied} applied, stopped before its outcome (time limit)")  # fmt: skip
    history = (task_dir / "llm.history").read_text() if (task_dir / "llm.history").exists() else ""
    history = _ROLE.sub("", history)  # the log's lines begin with who sent them
    found = sorted((m for rx in _VERDICTS for m in rx.finditer(history)), key=lambda m: m.start())
    verdicts = [m.group(0) for m in found]
    return [head, *([f"last verdict seen: {_said(verdicts[-1])}"] if verdicts else [])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path, help="a run's --keep-records folder")
    parser.add_argument("--results", type=Path, help="the run's results: only failed tasks")
    args = parser.parse_args()
    failed: set[tuple[str, str]] | None = None
    if args.results:
        rows = [json.loads(x) for x in args.results.read_text().splitlines() if x.strip()]
        failed = {(r["tool"], r["task_id"]) for r in rows if not r.get("passed")}
    for tool, read in (("patchwright", patchwright_attempts), ("aider", aider_run)):
        for task_dir in sorted((args.records / tool).glob("*")):
            if failed is not None and (tool, task_dir.name) not in failed:
                continue
            print(f"{tool} {task_dir.name}:")
            for n, line in enumerate(read(task_dir), 1):
                print(f"  {n}. {line}" if tool == "patchwright" else f"  {line}")


if __name__ == "__main__":
    main()
