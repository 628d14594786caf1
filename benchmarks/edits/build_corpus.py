"""Build the edit-matching corpus: SEARCH/REPLACE blocks cut from real code, with defects.

Each case takes a unique slice of a real Python file (the stdlib of this interpreter
and the packages installed next to patchwright), makes a realistic change to it (insert
a line, change a line, delete a line, split a line in two) and writes the block the
way models get it wrong: indentation shifted, trailing whitespace, tabs for spaces,
blank lines missing or added, curly quotes, the middle elided with
``# ... existing code ...``, CRLF, a path given as a bare basename. The ground truth
(the file-space change) is stored with the case; the file itself is read at run time.

    uv run --no-sync python benchmarks/edits/build_corpus.py [--n 600] [--seed 7] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sysconfig
from dataclasses import asdict, dataclass, field
from pathlib import Path

DEFAULT_OUT = Path("/tmp/patchwright-edit-corpus.jsonl")
STDLIB_PACKAGES = ["json", "email", "asyncio", "http", "logging", "importlib", "unittest", "xml"]
SITE_PACKAGES = ["rich", "click", "typer", "httpx", "jinja2", "pydantic", "pygments", "networkx"]
DEFECTS = [
    "indent_shift",
    "trailing_ws",
    "tabs",
    "blank_lines",
    "curly_quotes",
    "elided",
    "crlf",
    "basename",
]
CURLY = str.maketrans({"'": "\u2019", '"': "\u201d"})


@dataclass
class Case:
    """One block: where it was cut from, what the model wrote, what the file should become."""

    id: int
    root: str
    path: str
    raw_path: str
    search: str
    replace: str
    start: int
    end: int
    new_lines: list[str]
    change: str
    defects: list[str] = field(default_factory=list)
    crlf_file: bool = False


def repos() -> list[tuple[Path, list[str]]]:
    """(root, python files) for each package tree used as a repository."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    site = Path(sysconfig.get_paths()["purelib"])
    out = []
    for base, names in ((stdlib, STDLIB_PACKAGES), (site, SITE_PACKAGES)):
        for name in names:
            root = base / name
            if not root.is_dir():
                continue
            files = sorted(
                p.relative_to(root).as_posix()
                for p in root.rglob("*.py")
                if 2_000 < p.stat().st_size < 200_000 and "test" not in p.name
            )
            if files:
                out.append((root, files))
    return out


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _unique(lines: list[str], start: int, end: int) -> bool:
    piece = lines[start:end]
    hits = [i for i, x in enumerate(lines) if x == piece[0] and lines[i : i + len(piece)] == piece]
    return hits == [start]


def _change(rng: random.Random, piece: list[str], k: int) -> tuple[str, list[str]]:
    """Apply a realistic change at line k of ``piece`` (file space)."""
    line = piece[k]
    kind = rng.choice(["insert", "modify", "delete", "split"])
    if kind == "insert":
        new = _indent(line) + f'log.debug("checkpoint {rng.randint(1, 999)}")'
        return kind, [*piece[:k], new, *piece[k:]]
    if kind == "modify":
        names = re.findall(r"\b[a-z_][a-z0-9_]{2,}\b", line.strip())
        if names:
            name = rng.choice(names)
            return kind, [
                *piece[:k],
                re.sub(rf"\b{name}\b", name + "_v2", line, count=1),
                *piece[k + 1 :],
            ]
        return kind, [*piece[:k], line + "  # reviewed", *piece[k + 1 :]]
    if kind == "delete":
        return kind, [*piece[:k], *piece[k + 1 :]]
    first = _indent(line) + "# TODO(patchwright): check this"
    return kind, [*piece[:k], first, line, *piece[k + 1 :]]


def _model_space(lines: list[str], defects: list[str], common: str) -> list[str]:
    out = list(lines)
    if "indent_shift" in defects:
        out = [x[len(common) :] if x.startswith(common) else x.lstrip() for x in out]
        if not common:
            out = ["    " + x if x.strip() else x for x in out]
    if "tabs" in defects:
        out = [
            "\t" * (len(_indent(x)) // 4) + " " * (len(_indent(x)) % 4) + x.lstrip(" ") for x in out
        ]
    if "curly_quotes" in defects:
        out = [x.translate(CURLY) for x in out]
    return out


def make_case(rng: random.Random, n: int, root: Path, files: list[str]) -> Case | None:
    rel = rng.choice(files)
    lines = (root / rel).read_text(encoding="utf-8").split("\n")
    size = rng.randint(3, 12)
    start = rng.randrange(0, max(1, len(lines) - size))
    end = start + size
    piece = lines[start:end]
    if not piece[0].strip() or not piece[-1].strip() or "\t" in "".join(piece):
        return None
    if not _unique(lines, start, end):
        return None
    defects = sorted(rng.sample(DEFECTS, rng.choice([0, 1, 1, 2])))
    if "tabs" in defects and "indent_shift" in defects:
        defects.remove("tabs")
    body = [i for i, x in enumerate(piece) if x.strip()]
    ends = [i for i in body if i < 2 or i >= size - 2]
    if "elided" in defects and size >= 8 and ends:
        k = rng.choice(ends)
    else:
        if "elided" in defects:
            defects.remove("elided")
        k = rng.choice(body)
    change, new_piece = _change(rng, piece, k)
    common = _common_indent(piece)
    search = _model_space(piece, defects, common)
    replace = _model_space(new_piece, defects, common)
    if "elided" in defects:
        search, replace = _elide(search, replace, k, change)
    if "blank_lines" in defects:
        search, replace = _blanks(rng, search, replace)
    if "trailing_ws" in defects:
        search = [
            x + rng.choice(["  ", " ", "\t"]) if x.strip() and rng.random() < 0.5 else x
            for x in search
        ]
    nl = "\r\n" if "crlf" in defects and rng.random() < 0.5 else "\n"
    raw = rel.rsplit("/", 1)[-1] if "basename" in defects else rel
    return Case(
        n, str(root), rel, raw, nl.join(search) + nl, nl.join(replace) + nl,
        start, end, new_piece, change, defects, "crlf" in defects and nl == "\n",
    )  # fmt: skip


def _common_indent(piece: list[str]) -> str:
    indents = [_indent(x) for x in piece if x.strip()]
    common = indents[0]
    for ind in indents[1:]:
        while not ind.startswith(common):
            common = common[:-1]
    return common


def _elide(
    search: list[str], replace: list[str], k: int, change: str
) -> tuple[list[str], list[str]]:
    """Keep 2 lines at each end, elide the middle in both (the change sits in an end)."""
    grow = {"insert": 1, "split": 1, "delete": -1}.get(change, 0)
    head, tail = 2, 2
    if k >= len(search) - tail:  # change in the tail: the replace tail is longer/shorter
        r_tail = tail + grow
        r_head = head
    else:
        r_head, r_tail = head + grow, tail
    marker = _indent(search[head]) + "# ... existing code ..."
    s = [*search[:head], marker, *search[len(search) - tail :]]
    r = [*replace[:r_head], marker, *replace[len(replace) - r_tail :]]
    return s, r


def _blanks(
    rng: random.Random, search: list[str], replace: list[str]
) -> tuple[list[str], list[str]]:
    how = rng.choice(["drop", "lead", "trail"])
    if how == "drop":
        return [x for x in search if x.strip()], [x for x in replace if x.strip()]
    if how == "lead":
        return ["", *search], ["", *replace]
    return [*search, ""], [*replace, ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    pool = repos()
    cases: list[Case] = []
    while len(cases) < args.n:
        root, files = rng.choice(pool)
        case = make_case(rng, len(cases), root, files)
        if case is not None:
            cases.append(case)
    with args.out.open("w", encoding="utf-8") as fh:
        for case in cases:
            fh.write(json.dumps(asdict(case)) + "\n")
    print(f"wrote {len(cases)} cases from {len(pool)} package trees to {args.out}")


if __name__ == "__main__":
    main()
