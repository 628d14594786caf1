"""One role at work: model call → its tool calls, in order, through the role's jail →
observations back in the next call, until the role hands over, runs out of steps, or loops.

A reply with no tool call is nudged (a coder's reply holding edit blocks is taken as an
``edit`` call: small models often answer in the edit format without the tool wrapper).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from patchwright import events as ev
from patchwright import interrupts
from patchwright.agent.prompts import render
from patchwright.agent.roles import Role, toolbox
from patchwright.agent.stall import EDITS, StallWatch
from patchwright.agent.tools.base import Observation, Tool, ToolBox
from patchwright.events import AgentLoop, EventBus, ToolRefused
from patchwright.llm import Message, Model, Reply, ToolCall

_EDIT_MARKERS = ("<<<<<<< SEARCH", "\n--- a/", "+++ b/")


@dataclass
class Handover:
    """How a role ended: ``control`` is finish / approve / reject / plan, or None (out of
    steps), or "stop" (a loop the intervention did not break)."""

    control: str | None
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class RoleUsage:
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: int = 0

    def to_json(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass
class RoleRunner:
    model: Model
    tools: Mapping[str, Tool]
    bus: EventBus
    external: Mapping[Role, list[Tool]] = field(default_factory=dict)
    reply_tokens: int = 1024  # a step is a few tool calls; an edit block fits easily
    on_token: Callable[[str], None] | None = None
    on_step: Callable[[], None] = lambda: None
    read: set[str] = field(default_factory=set)
    usage: dict[str, RoleUsage] = field(default_factory=dict)
    watch: StallWatch = field(default_factory=StallWatch)

    def run(self, role: Role, messages: list[Message], budget: int) -> Handover:
        box = toolbox(role, self.tools, self.external.get(role, ()))
        usage = self.usage.setdefault(role, RoleUsage())
        for _ in range(budget):
            interrupts.check()
            reply = self._ask(role, messages, box, usage)
            messages.append(reply.as_message())
            calls = reply.tool_calls or self._implicit(role, reply.text)
            progressed = False
            for call in calls:
                obs = self._call(role, box, call, usage)
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "name": call.name,
                        "content": obs.text,
                    }
                )
                progressed |= self._progress(call, obs)
                if obs.control:
                    self.on_step()
                    return Handover(obs.control, obs.data)
                if (stop := self._watch(role, messages, self.watch.call(call, obs))) is not None:
                    return stop
            if not calls:
                messages.append(
                    {
                        "role": "user",
                        "content": render("agent_nudge", role=role, tools=sorted(box.tools)),
                    }
                )
            self.on_step()
            said = None if calls else reply.text
            if (stop := self._watch(role, messages, self.watch.step(progressed, said))) is not None:
                return stop
        return Handover(
            None, {"reason": f"the {role} used its {budget} steps without handing over"}
        )

    def _ask(self, role: Role, messages: list[Message], box: ToolBox, usage: RoleUsage) -> Reply:
        reply = self.model.complete(
            messages,
            tools=box.specs(),
            on_token=self._token,
            max_tokens=self.reply_tokens,
            phase=role,
        )
        usage.steps += 1
        usage.prompt_tokens += reply.usage.prompt_tokens
        usage.completion_tokens += reply.usage.completion_tokens
        return reply

    def _token(self, piece: str) -> None:
        interrupts.check()
        if self.on_token is not None:
            self.on_token(piece)

    @staticmethod
    def _implicit(role: Role, text: str) -> list[ToolCall]:
        if role == "coder" and any(m in text for m in _EDIT_MARKERS):
            return [ToolCall(id="implicit_edit", name="edit", arguments={"edits": text})]
        return []

    def _call(self, role: Role, box: ToolBox, call: ToolCall, usage: RoleUsage) -> Observation:
        usage.tool_calls += 1
        if box.resolve(call.name) is None:
            self.bus.emit(ToolRefused(role=role, tool=call.name, allowed=sorted(box.tools)))
        obs = box.call(call)
        self.bus.emit(
            ev.ToolCall(
                role=role,
                tool=call.name,
                arguments={k: str(v)[:200] for k, v in call.arguments.items()},
                ok=obs.ok,
                observation=obs.text[:500],
            )
        )
        return obs

    def _progress(self, call: ToolCall, obs: Observation) -> bool:
        if call.name in EDITS:
            return obs.ok
        if call.name == "read_file" and obs.ok:
            path = str(call.arguments.get("path", ""))
            new = path not in self.read
            self.read.add(path)
            return new
        return False

    def _watch(self, role: Role, messages: list[Message], sign: str) -> Handover | None:
        verdict = self.watch.judge(sign)
        if verdict == "ok":
            return None
        self.bus.emit(AgentLoop(role=role, reason=sign, action=verdict))
        if verdict == "stop":
            return Handover("stop", {"reason": f"stopped: {sign}"})
        messages.append(
            {"role": "user", "content": render("agent_intervene", reason=sign, role=role)}
        )
        return None
