"""Tool calling as text, for backends without native tool calls (the embedded model,
servers that reject ``tools``).

The tools are described in the system prompt and the model answers with
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks (Qwen2.5's own
convention, so the embedded model follows it readily). Tool results go back as user
messages. Parsing is lenient about whitespace and code fences, strict about JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from patchwright.llm.types import Message, ToolCall, ToolSpec, parse_arguments

_BLOCK = re.compile(r"<tool_call>\s*(?:```(?:json)?\s*)?(.*?)(?:```\s*)?</tool_call>", re.DOTALL)


def _example(tool: ToolSpec) -> str:
    props = tool.get("parameters", {}).get("properties", {})
    args = {name: "..." for name in list(props)[:2]}
    return json.dumps({"name": tool["name"], "arguments": args})


def tools_prompt(tools: Sequence[ToolSpec]) -> str:
    """The instructions appended to the system prompt (with a concrete example, which
    small models need)."""
    lines = [
        "You can call tools. To call one, reply with a block like this, JSON inside:",
        f"<tool_call>{_example(tools[0])}</tool_call>",
        "Fill in real argument values. You may write text before the block.",
        "The result comes back in the next message. Available tools:",
    ]
    for tool in tools:
        params = json.dumps(tool.get("parameters", {}), ensure_ascii=False)
        lines.append(f"- {tool['name']}: {tool.get('description', '')} Arguments: {params}")
    return "\n".join(lines)


def to_text_messages(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> list[Message]:
    """Rewrite a conversation with tool calls/results into plain system/user/assistant."""
    out: list[Message] = []
    instructions = tools_prompt(tools) if tools else ""
    for msg in messages:
        role = msg["role"]
        content = msg.get("content") or ""
        if role == "tool":
            ref = msg.get("tool_call_id") or msg.get("name") or "tool"
            out.append(
                {"role": "user", "content": f"<tool_result id={ref}>\n{content}\n</tool_result>"}
            )
        elif role == "assistant" and msg.get("tool_calls"):
            blocks = [
                "<tool_call>"
                + json.dumps({"name": c.name, "arguments": c.arguments}, ensure_ascii=False)
                + "</tool_call>"
                for c in (ToolCall.coerce(raw, i) for i, raw in enumerate(msg["tool_calls"]))
            ]
            out.append({"role": "assistant", "content": "\n".join([content, *blocks]).strip()})
        else:
            out.append({"role": role, "content": content})
    if instructions:
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": out[0]["content"] + "\n\n" + instructions}
        else:
            out.insert(0, {"role": "system", "content": instructions})
    # merge consecutive user messages (several tool results) for strict chat templates
    merged: list[Message] = []
    for msg in out:
        if merged and msg["role"] == "user" and merged[-1]["role"] == "user":
            merged[-1] = {
                "role": "user",
                "content": merged[-1]["content"] + "\n\n" + msg["content"],
            }
        else:
            merged.append(msg)
    return merged


def parse_tool_calls(text: str, known: Sequence[str] = ()) -> tuple[str, list[ToolCall]]:
    """Split a reply into its prose and the tool calls it contains.

    Blocks with bad JSON or (when ``known`` is given) unknown tool names stay in the text,
    so the agent can show the model what went wrong.
    """
    calls: list[ToolCall] = []
    kept: list[str] = []
    pos = 0
    for m in _BLOCK.finditer(text):
        kept.append(text[pos : m.start()])
        pos = m.end()
        try:
            obj = json.loads(m.group(1).strip())
        except json.JSONDecodeError:
            kept.append(m.group(0))
            continue
        name = obj.get("name") if isinstance(obj, dict) else None
        if not isinstance(name, str) or (known and name not in known):
            kept.append(m.group(0))
            continue
        args = obj.get("arguments", {})
        if isinstance(args, str):
            args = parse_arguments(args)
        calls.append(ToolCall(id=f"call_{len(calls)}", name=name, arguments=dict(args or {})))
    kept.append(text[pos:])
    if not calls and pos == 0:
        bare = _bare_call(text, known)
        if bare is not None:
            return "", [bare]
    return "".join(kept).strip(), calls


def _bare_call(text: str, known: Sequence[str]) -> ToolCall | None:
    """A reply that is nothing but the call's JSON (small models drop the tags)."""
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    try:
        obj = json.loads(body)
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or set(obj) - {"name", "arguments"}:
        return None
    name, args = obj.get("name"), obj.get("arguments", {})
    if not isinstance(name, str) or (known and name not in known):
        return None
    if isinstance(args, str):
        args = parse_arguments(args)
    return ToolCall(id="call_0", name=name, arguments=dict(args) if isinstance(args, dict) else {})
