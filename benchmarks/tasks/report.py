"""The figures of a run, one column per tool, side by side."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

Row = dict[str, Any]
TOOLS = ("patchwright", "aider")
NA = "—"


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} s" if values else NA


def _ratio(num: float, den: float, fmt: str = "{:.0f}") -> str:
    return fmt.format(num / den) if den else NA


def _served(rows: list[Row]) -> list[Row]:
    """Rows whose tokens the server counted (server mode)."""
    return [r for r in rows if r.get("token_source") == "server"]


def figures(rows: list[Row]) -> dict[str, str]:
    """One tool's column."""
    n = len(rows)
    solved = [r for r in rows if r["passed"]]
    first = [r for r in solved if r.get("first_try", r.get("iterations") == 1)]
    # rows of before the Aider columns name no claim: patchwright's is its "solved"
    claims = [r for r in rows if r.get("claimed", r.get("outcome") == "solved") is not None]
    claimed = [r for r in claims if r.get("claimed", r.get("outcome") == "solved")]
    wrong = [r for r in claimed if not r["passed"]]
    unverified = [r for r in rows if r.get("outcome") == "unverified"]
    tokens = [int(r.get("tokens") or 0) for r in rows]
    served = _served(rows)
    ttfts = [float(t) for r in served for t in r.get("ttfts") or ()]
    prompt = sum(int(r.get("prompt_tokens") or 0) for r in served)
    temps = sorted({float(t) for r in served for t in r.get("temperatures") or ()})
    out = {
        "tasks": str(n),
        "solved": f"{len(solved)}/{n} ({100 * len(solved) / n:.1f}%)",
        "solved first attempt": f"{len(first)}/{n}",
        "claimed solved": f"{len(claimed)}/{len(claims)}" if claims else NA,
        "claimed but rejected": f"{len(wrong)}/{len(claimed)}" if claims else NA,
        "unverified (pass judge)": (
            f"{len(unverified)} ({sum(bool(r['passed']) for r in unverified)})"
            if unverified
            else "0"
        ),
        "median wall": _median([float(r["seconds"]) for r in rows]),
        "median wall, solved": _median([float(r["seconds"]) for r in solved]),
        "total wall": f"{sum(float(r['seconds']) for r in rows):.0f} s",
        "tokens per task (mean)": f"{statistics.mean(tokens):.0f}",
        "tokens per solved (all / solved)": _ratio(sum(tokens), len(solved)),
        "model calls per task": _ratio(
            sum(int(r.get("calls") or 0) for r in served), len(served), "{:.1f}"
        ),
        "attempts per task": _ratio(sum(int(r.get("iterations") or 0) for r in rows), n, "{:.1f}"),
        "time to first token": f"{statistics.median(ttfts):.1f} s (median)" if ttfts else NA,
        "prefill": _ratio(
            sum(int(r.get("prefilled_tokens") or 0) for r in served),
            sum(float(r.get("prefill_s") or 0) for r in served),
            "{:.1f} tok/s",
        ),
        "generation": _ratio(
            sum(int(r.get("gen_tokens") or 0) for r in served),
            sum(float(r.get("gen_s") or 0) for r in served),
            "{:.1f} tok/s",
        ),
        "prompt re-prefilled": _ratio(
            100 * sum(int(r.get("prefilled_tokens") or 0) for r in served), prompt, "{:.0f}%"
        ),
        "temperatures sent": ", ".join(f"{t:g}" for t in temps) if temps else NA,
        "outcomes": ", ".join(
            f"{k} {v}" for k, v in Counter(str(r["outcome"]) for r in rows).most_common()
        ),
    }
    steps = [int(r["steps"]) for r in rows if r.get("steps")]
    if steps:
        out["agent steps per task"] = f"{statistics.mean(steps):.1f}"
    return out


def overlap(by_tool: dict[str, list[Row]]) -> str | None:
    """Which tasks each of two tools solved, on the tasks both ran."""
    if len(by_tool) != 2:
        return None
    (a, rows_a), (b, rows_b) = by_tool.items()
    passed_a = {r["task_id"]: bool(r["passed"]) for r in rows_a}
    passed_b = {r["task_id"]: bool(r["passed"]) for r in rows_b}
    both = passed_a.keys() & passed_b.keys()

    def count(x: bool, y: bool) -> int:
        return sum(passed_a[t] is x and passed_b[t] is y for t in both)

    return (
        f"on the {len(both)} tasks both ran: solved by both {count(True, True)}, "
        f"only {a} {count(True, False)}, only {b} {count(False, True)}, "
        f"neither {count(False, False)}"
    )


def paired_time(by_tool: dict[str, list[Row]]) -> str | None:
    """The median over the tasks both tools ran of one's wall time over the other's: each pair
    ran on one machine, one after the other, so the ratio holds when rows of a resumed run came
    from machines of different speeds (their medians alone would not)."""
    if len(by_tool) != 2:
        return None
    (a, rows_a), (b, rows_b) = by_tool.items()
    secs_b = {r["task_id"]: float(r["seconds"]) for r in rows_b}
    ratios = [
        float(r["seconds"]) / secs_b[r["task_id"]]
        for r in rows_a
        if secs_b.get(r["task_id"], 0) > 0
    ]
    if not ratios:
        return None
    return (
        f"wall time of {a} over {b}, task by task: median {statistics.median(ratios):.2f} "
        f"({len(ratios)} tasks)"
    )


def report(rows: list[Row]) -> None:
    if not rows:
        print("no results")
        return
    tools = sorted({str(r.get("tool", "patchwright")) for r in rows}, key=_tool_order)
    by_tool = {t: [r for r in rows if r.get("tool", "patchwright") == t] for t in tools}
    columns = {t: figures(rs) for t, rs in by_tool.items()}
    names = list(dict.fromkeys(k for col in columns.values() for k in col))
    width = max(len(n) for n in names) + 2
    widths = {t: max(len(t), *(len(c.get(n, NA)) for n in names)) + 2 for t, c in columns.items()}
    print(("".ljust(width) + "".join(t.ljust(widths[t]) for t in tools)).rstrip())
    for name in names:
        cells = "".join(columns[t].get(name, NA).ljust(widths[t]) for t in tools)
        print(name.ljust(width) + cells.rstrip())
    for line in (overlap(by_tool), paired_time(by_tool)):
        if line:
            print(line)
    if any(r.get("token_source") != "server" for r in rows):
        print("tokens: as the tool itself reported them (no server); speeds need the server")


def _tool_order(tool: str) -> tuple[int, str]:
    return (TOOLS.index(tool) if tool in TOOLS else len(TOOLS), tool)
