"""``/plan GOAL`` and ``/apply``: a structured plan — intent, files to read, edits (path,
action create|patch|replace|delete, justification), post-checks — asked of the model,
validated with pydantic (one retry with the error), shown; ``/apply`` carries it out as a
task through the same gates, with the post-checks as its definition of done."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from rich.markup import escape
from rich.table import Table

from patchwright.agent.prompts import render
from patchwright.llm import Message
from patchwright.modes.chat.commands.base import ChatParts, CommandError, CommandSet
from patchwright.modes.chat.context import gather
from patchwright.modes.chat.state import ChatState
from patchwright.modes.chat.turns import do_task, task_request, timed
from patchwright.verify.detect import detect_test_command
from patchwright.workspace.files import list_files

command = CommandSet()

Action = Literal["create", "patch", "replace", "delete"]
_PATHS_SHOWN = 80


def _relative(path: str) -> str:
    clean = path.strip().removeprefix("./")
    parts = PurePosixPath(clean).parts
    if not clean or clean.startswith(("/", "~")) or ".." in parts or "\\" in clean:
        raise ValueError(f"{path!r} is not a path inside the repository")
    return clean


class PlannedEdit(BaseModel):
    model_config = ConfigDict(extra="ignore")
    path: str
    action: Action
    justification: str = ""

    @field_validator("path")
    @classmethod
    def inside_repository(cls, value: str) -> str:
        return _relative(value)


class Plan(BaseModel):
    model_config = ConfigDict(extra="ignore")
    intent: str = Field(min_length=3)
    files_to_read: list[str] = Field(default_factory=list)
    edits: list[PlannedEdit] = Field(min_length=1)
    post_checks: list[str] = Field(default_factory=list)

    @field_validator("files_to_read")
    @classmethod
    def all_inside_repository(cls, value: list[str]) -> list[str]:
        return [_relative(p) for p in value]


class PlanError(ValueError):
    """The reply is not a valid plan; the message is what the model is told."""


def parse_plan(reply: str, state: ChatState) -> Plan:
    """The plan in a reply (JSON, fenced or not), checked against the repository: files to
    patch, replace or delete must exist, files to create must not."""
    match = re.search(r"\{.*\}", reply, re.DOTALL)
    if match is None:
        raise PlanError("no JSON object in the reply")
    try:
        plan = Plan.model_validate(json.loads(match.group(0)))
    except json.JSONDecodeError as exc:
        raise PlanError(f"the JSON does not parse ({exc.msg} at character {exc.pos})") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise PlanError(f"{where}: {first['msg']}") from exc
    for edit in plan.edits:
        exists = (state.root / edit.path).is_file()
        if edit.action == "create" and exists:
            raise PlanError(f"{edit.path} exists: use patch or replace, not create")
        if edit.action != "create" and not exists:
            raise PlanError(f"{edit.path} does not exist: use create for a new file")
    plan.files_to_read = [p for p in plan.files_to_read if (state.root / p).is_file()]
    return plan


def make_plan(chat: ChatParts, goal: str) -> Plan:
    state = chat.state
    ctx = gather(state)
    paths = [f.path for f in list_files(state.root)][:_PATHS_SHOWN]
    test_cmd = (
        state.options.test_cmd or state.settings.run.test_cmd or detect_test_command(state.root)
    )
    error = ""
    for attempt in range(2):
        prompt = render("plan", goal=goal, memory=ctx.memory, memory_sources=ctx.memory_sources,
                        repo_map=ctx.repo_map, files=ctx.files, paths=paths, test_cmd=test_cmd, error=error)  # fmt: skip
        messages: list[Message] = [
            *state.conversation.messages(),
            {"role": "user", "content": prompt},
        ]
        chat.ui.console.print(f"[dim]· planning{' again' if attempt else ''}…[/]")
        try:
            reply = state.session.model.complete(
                messages, on_token=timed(chat.ui.stream, {}), max_tokens=900
            )
        finally:
            chat.ui.end_stream()
        try:
            return parse_plan(reply.text, state)
        except PlanError as exc:
            error = str(exc)
    raise CommandError(f"the model's plan is not valid ({error}); rephrase the goal or /plan again")


def show_plan(chat: ChatParts, plan: Plan) -> None:
    say = chat.ui.console.print
    say(f"[bold]plan[/] · {escape(plan.intent)}")
    if plan.files_to_read:
        say(f"  read: {escape(', '.join(plan.files_to_read))}")
    table = Table(show_header=True, box=None, padding=(0, 2))
    for column in ("action", "path", "why"):
        table.add_column(column, overflow="fold")
    for edit in plan.edits:
        table.add_row(edit.action, edit.path, edit.justification)
    say(table)
    for check in plan.post_checks:
        say(f"  then: [bold]{escape(check)}[/]")
    say("[dim]/apply carries it out (verified, shown before it is kept); /plan again to replan[/]")


@command(
    "plan", "GOAL", "a structured plan for a goal (intent, files, edits, checks); /apply runs it"
)
def plan_cmd(chat: ChatParts, args: str) -> None:
    if not args.strip():
        raise CommandError("give a goal, e.g. /plan add a --dry-run flag to the CLI")
    state = chat.state
    state.record("user", text=f"/plan {args.strip()}", mode="plan")
    plan = make_plan(chat, args.strip())
    state.plan = plan
    state.record("plan", plan=plan.model_dump())
    state.conversation.add("assistant", "[plan] " + plan.model_dump_json())
    show_plan(chat, plan)


def runnable(check: str, state: ChatState) -> bool:
    """A post-check that is a command (its program exists), not a sentence."""
    try:
        first = shlex.split(check)[0] if check.strip() else ""
    except ValueError:
        return False
    return bool(first) and (shutil.which(first) is not None or (state.root / first).is_file())


@command("apply", "", "carry out the last /plan through the gates")
def apply_cmd(chat: ChatParts, args: str) -> None:
    state = chat.state
    plan = state.plan
    if not isinstance(plan, Plan):
        raise CommandError("no plan to apply: make one with /plan GOAL")
    checks = [c for c in plan.post_checks if runnable(c, state)]
    request = render("plan_task", plan=plan, checks=plan.post_checks).strip()
    include = [p for p in [*(e.path for e in plan.edits if e.action != "create"), *plan.files_to_read]
               if p not in state.files]  # fmt: skip
    task = task_request(state, request, done_when=checks, include=include)
    summary = do_task(state, chat.ui, request, task)
    if summary.outcome in ("solved", "unverified"):
        state.plan = None
