"""Read-only tools: list, find, search, read, outline, locate — over the index and the
working copy (so the agent reads the files as its change leaves them)."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any

from rapidfuzz import fuzz, process

from patchwright.agent.tools.base import FunctionTool, Observation, ToolError, arg, schema
from patchwright.agent.tools.bench import Workbench

MAX_LIST = 300
MAX_READ_LINES = 400
SEARCH_MODES = ("auto", "exact", "regex", "bm25", "semantic")


def _index(bench: Workbench) -> Any:
    index = bench.index()
    if index is None:
        raise ToolError("the code index is not available; use list_files and read_file")
    return index


def list_files(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    pattern = arg(args, "glob", str, "")
    files = bench.files()
    if pattern:
        files = [
            f for f in files if fnmatch.fnmatch(f, pattern) or fnmatch.fnmatch(f, f"*/{pattern}")
        ]
    more = (
        f"\n... and {len(files) - MAX_LIST} more (narrow the glob)" if len(files) > MAX_LIST else ""
    )
    return Observation("\n".join(files[:MAX_LIST]) + more if files else "no file matches")


def find_file(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    query = arg(args, "query", str)
    hits = process.extract(query, bench.files(), scorer=fuzz.WRatio, limit=10, score_cutoff=50)
    return Observation("\n".join(h[0] for h in hits) if hits else f"no file name like {query!r}")


def search(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    query = arg(args, "query", str)
    mode = arg(args, "mode", str, "auto")
    if mode not in SEARCH_MODES:
        raise ToolError(f"mode must be one of {', '.join(SEARCH_MODES)}")
    k = max(1, min(arg(args, "k", int, 20), 50))
    try:
        hits = _index(bench).search(query, mode=mode, k=k)
    except ValueError as exc:  # SearchError: a bad regex, semantic search unavailable
        raise ToolError(str(exc)) from exc
    lines = [f"{h.path}:{h.line}: {(h.text or h.name).strip()}" for h in hits]
    return Observation("\n".join(lines) if lines else f"nothing found for {query!r}")


def read_file(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    path = arg(args, "path", str).strip().removeprefix("./")
    text = bench.working.text(path)
    if text is None:
        close = process.extractOne(path, bench.files(), scorer=fuzz.WRatio, score_cutoff=60)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise ToolError(f"{path} does not exist{hint}")
    lines = text.splitlines()
    start = max(1, arg(args, "start", int, 1))
    end = min(len(lines), arg(args, "end", int, start + MAX_READ_LINES - 1))
    end = min(end, start + MAX_READ_LINES - 1)
    body = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(start, end + 1))
    more = (
        f"\n[lines {start}-{end} of {len(lines)}; read on with start={end + 1}]"
        if end < len(lines)
        else ""
    )
    return Observation(f"{path}\n{body}{more}" if lines else f"{path} is empty")


def symbols(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    path = arg(args, "path", str)
    defs = _index(bench).definitions(path)
    lines = [f"{d.line}-{d.end_line} {d.kind} {d.qualname or d.name}: {d.signature}" for d in defs]
    return Observation("\n".join(lines) if lines else f"no definitions found in {path}")


def locate(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    text = arg(args, "text", str)
    found = _index(bench).locate(text, k=max(1, min(arg(args, "k", int, 5), 20)))
    files = [f"{f.path} ({f.score:.3f})" for f in found.files]
    funcs = [f"{s.path}:{s.line} {s.name} ({s.score:.3f})" for s in found.symbols[:10]]
    return Observation("Files:\n" + "\n".join(files) + "\nFunctions:\n" + "\n".join(funcs))


def reading_tools(bench: Workbench) -> list[FunctionTool]:
    s, i = {"type": "string"}, {"type": "integer"}
    return [
        FunctionTool("list_files", "List the repository's files, optionally matching a glob.",
                     schema((), glob=s), lambda a: list_files(bench, a)),
        FunctionTool("find_file", "Find files by an approximate name.",
                     schema(["query"], query=s), lambda a: find_file(bench, a)),
        FunctionTool("search", "Search the code: exact text, regex, bm25 or semantic (auto: exact, "
                     "else bm25). Returns path:line: text.",
                     schema(["query"], query=s, mode={"type": "string", "enum": list(SEARCH_MODES)},
                            k=i), lambda a: search(bench, a)),
        FunctionTool("read_file", "Read a file with line numbers (at most 400 lines per call).",
                     schema(["path"], path=s, start=i, end=i), lambda a: read_file(bench, a)),
        FunctionTool("symbols", "The definitions (functions, classes, methods) of a file.",
                     schema(["path"], path=s), lambda a: symbols(bench, a)),
        FunctionTool("locate", "The files and functions most likely involved in a problem "
                     "description.", schema(["text"], text=s, k=i), lambda a: locate(bench, a)),
    ]  # fmt: skip
