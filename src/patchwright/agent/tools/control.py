"""Hand-over tools: the coder's ``finish``, the reviewer's ``approve`` / ``reject`` and the
planner's ``submit_plan``. They change nothing; the state machine acts on their ``control``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from patchwright.agent.tools.base import FunctionTool, Observation, ToolError, arg, schema


def _finish(args: Mapping[str, Any]) -> Observation:
    summary = arg(args, "summary", str, "").strip() or "(no summary)"
    return Observation("handed over to the reviewer", control="finish", data={"summary": summary})


def _approve(args: Mapping[str, Any]) -> Observation:
    message = arg(args, "commit_message", str, "").strip()
    return Observation("approved", control="approve", data={"commit_message": message})


def _reject(args: Mapping[str, Any]) -> Observation:
    reasons = arg(args, "reasons", str).strip()
    if not reasons:
        raise ToolError("say what must change: reasons is empty")
    return Observation("sent back to the coder", control="reject", data={"reasons": reasons})


def _submit_plan(args: Mapping[str, Any]) -> Observation:
    steps = [str(s).strip() for s in arg(args, "steps", list) if str(s).strip()]
    if not steps:
        raise ToolError("a plan needs at least one step")
    files = [str(f).strip() for f in arg(args, "files", list, []) if str(f).strip()]
    return Observation("plan recorded", control="plan", data={"steps": steps, "files": files})


def control_tools() -> list[FunctionTool]:
    s, strings = {"type": "string"}, {"type": "array", "items": {"type": "string"}}
    return [
        FunctionTool("finish", "Your change is complete: hand it to the reviewer with a summary.",
                     schema(["summary"], summary=s), _finish),
        FunctionTool("approve", "The change is correct and complete: keep it, with this commit "
                     "message (Conventional Commits, one line).",
                     schema(["commit_message"], commit_message=s), _approve),
        FunctionTool("reject", "The change is wrong or incomplete: send it back with what must "
                     "change.", schema(["reasons"], reasons=s), _reject),
        FunctionTool("submit_plan", "Submit the plan: the steps, and the files to change.",
                     schema(["steps"], steps=strings, files=strings), _submit_plan),
    ]  # fmt: skip
