"""The tool seam: what a tool is, what it returns, and the box that holds a role's tools.

A tool is a name, a description, a JSON schema of its arguments and ``run(args)``. It is a
thin wrapper over a package the plumbing commands also use. Whatever happens, a tool returns
an ``Observation``: bad arguments and failures are observations the model can act on, never
exceptions that stop the agent.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from patchwright.llm import ToolCall, ToolSpec

OBSERVATION_CHARS = 6000


@dataclass(frozen=True)
class Observation:
    """What a tool call produced. ``control`` marks a role's hand-over (finish, approve,
    reject, submit_plan) with its arguments in ``data``."""

    text: str
    ok: bool = True
    control: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


class ToolError(Exception):
    """A call the tool cannot serve (bad arguments, missing file): becomes an observation."""


class Tool(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def parameters(self) -> Mapping[str, Any]: ...

    def run(self, args: Mapping[str, Any]) -> Observation: ...


@dataclass(frozen=True)
class FunctionTool:
    """A tool made of a function: the common case."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    fn: Callable[[Mapping[str, Any]], Observation]

    def run(self, args: Mapping[str, Any]) -> Observation:
        return self.fn(args)


def schema(required: Iterable[str] = (), **props: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-schema object: ``schema(["path"], path={"type": "string"})``."""
    return {"type": "object", "properties": dict(props), "required": list(required)}


def truncate(text: str, limit: int = OBSERVATION_CHARS) -> str:
    """Head and tail of ``text`` within ``limit`` characters, with a marker between."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
    return f"{head}\n[... {len(text) - len(head) - len(tail)} characters omitted ...]\n{tail}"


def arg(args: Mapping[str, Any], name: str, kind: type, default: Any = ...) -> Any:
    """Argument ``name`` checked against ``kind`` (ints accept numeric strings)."""
    if name not in args or args[name] is None:
        if default is ...:
            raise ToolError(f"missing argument {name!r}")
        return default
    value = args[name]
    if kind is int and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if kind is list and isinstance(value, str):
        return [value]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ToolError(f"argument {name!r} must be {kind.__name__}, got {type(value).__name__}")
    return value


def wire_name(name: str) -> str:
    """Provider APIs allow ``[A-Za-z0-9_-]`` in tool names: ``git.status`` → ``git__status``."""
    return name.replace(".", "__")


class ToolBox:
    """The tools one role may call, by name; a call outside them is refused in code."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools: dict[str, Tool] = {t.name: t for t in tools}
        self._by_wire = {wire_name(n): n for n in self.tools}

    def specs(self) -> list[ToolSpec]:
        return [
            {
                "name": wire_name(t.name),
                "description": t.description,
                "parameters": dict(t.parameters),
            }
            for t in self.tools.values()
        ]

    def resolve(self, name: str) -> str | None:
        if name in self.tools:
            return name
        return self._by_wire.get(name)

    def call(self, call: ToolCall) -> Observation:
        name = self.resolve(call.name)
        if name is None:
            allowed = ", ".join(sorted(self.tools))
            return Observation(
                f"{call.name} is not available here; use one of: {allowed}", ok=False
            )
        try:
            obs = self.tools[name].run(call.arguments)
        except ToolError as exc:
            return Observation(f"{name}: {exc}", ok=False)
        except Exception as exc:  # a tool bug is reported to the model, never a crash
            return Observation(f"{name} failed: {type(exc).__name__}: {exc}", ok=False)
        return Observation(truncate(obs.text), obs.ok, obs.control, obs.data)


def call_key(call: ToolCall) -> str:
    """A stable identity of a call (name and arguments), for loop detection."""
    return call.name + json.dumps(call.arguments, sort_keys=True, default=str)
