"""Before and after in one table: two ``run.py --out`` results side by side.

    python benchmarks/review/compare.py before.json after.json

Prints a Markdown table: defects fixed (and which), regressions, accepted changes (of them,
tool fixes made with no model), proposals the gates rejected, tokens and minutes in all and
per accepted change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _row(name: str, before: object, after: object) -> str:
    return f"| {name} | {before} | {after} |"


def _formats(table: dict[str, dict[str, int]]) -> str:
    cells = [
        f"{key} {row.get('accepted', 0)}/{sum(row.values())}" for key, row in sorted(table.items())
    ]
    return ", ".join(cells) or "-"


def _figures(r: dict[str, Any]) -> dict[str, object]:
    kinds = [kind for _, kind in r.get("targets", [])]
    regressions = len(r.get("regressions", [])) + len(r.get("new_static_problems", []))
    return {
        "repository": r.get("fixture", "inventory"),
        "model": r.get("model"),
        "review flags": " ".join(r.get("review_args") or []) or "-",
        "iterations": r.get("iterations"),
        "defects fixed": f"{r.get('defects_fixed')}/{r.get('defects')}",
        "regressions": regressions,
        "accepted changes": r.get("accepted"),
        "of them tool fixes (no model)": kinds.count("lint"),
        "of them cascade updates": kinds.count("cascade"),
        "rejected by the gates": r.get("rejected_by_gates"),
        "skipped / failed / clean": f"{r.get('skipped')} / {r.get('failed')} / {r.get('clean')}",
        "model proposals by kind/format (accepted/all)": _formats(r.get("edit_formats") or {}),
        "tokens": r.get("tokens"),
        "tokens per accepted": r.get("tokens_per_accepted"),
        "minutes": r.get("minutes"),
        "minutes per accepted": r.get("minutes_per_accepted"),
    }


def table(before: dict[str, Any], after: dict[str, Any]) -> str:
    b, a = _figures(before), _figures(after)
    lines = ["| | before | after |", "|---|---|---|"]
    lines += [_row(name, b[name], a[name]) for name in b]
    for defect in before.get("fixed", {}):
        mark = {True: "fixed", False: "left"}
        was, now = before["fixed"].get(defect), after.get("fixed", {}).get(defect)
        lines.append(_row(f"  {defect}", mark.get(was, "?"), mark.get(now, "?")))
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    before, after = (json.loads(Path(p).read_text()) for p in sys.argv[1:])
    print(table(before, after))


if __name__ == "__main__":
    main()
