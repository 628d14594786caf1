"""SWE-bench instances: rows read from JSONL or parquet with the official columns, chosen
with ``--filter REGEX`` and ``--slice A:B``."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REQUIRED = ("instance_id", "repo", "base_commit", "problem_statement", "test_patch")


class InstanceError(ValueError):
    """The instances file cannot be used; the message says which row and why."""


@dataclass(frozen=True)
class Instance:
    """One task: a repository at a commit, the issue, the hidden tests and how to judge."""

    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str
    test_patch: str
    version: str = ""
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    environment_setup_commit: str = ""
    patch: str = ""  # the gold patch: never shown to a model
    eval_script: str = ""
    image: str = ""

    @classmethod
    def from_row(cls, row: Mapping[str, Any], where: str = "") -> Instance:
        missing = [k for k in REQUIRED if not row.get(k)]
        if missing:
            raise InstanceError(f"{where}: missing {', '.join(missing)}")
        return cls(
            instance_id=str(row["instance_id"]),
            repo=str(row["repo"]),
            base_commit=str(row["base_commit"]),
            problem_statement=str(row["problem_statement"]),
            test_patch=str(row["test_patch"]),
            version=str(row.get("version") or ""),
            fail_to_pass=_tests(row.get("FAIL_TO_PASS"), where),
            pass_to_pass=_tests(row.get("PASS_TO_PASS"), where),
            environment_setup_commit=str(row.get("environment_setup_commit") or ""),
            patch=str(row.get("patch") or ""),
            eval_script=str(row.get("eval_script") or ""),
            image=str(row.get("image") or ""),
        )


def _tests(value: Any, where: str) -> tuple[str, ...]:
    """FAIL_TO_PASS / PASS_TO_PASS: a JSON-encoded list (the official form) or a list."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InstanceError(f"{where}: test list is not JSON ({exc})") from exc
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InstanceError(f"{where}: a test list must be a list of test ids")
    return tuple(str(t) for t in value)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a ``.jsonl`` / ``.json`` or ``.parquet`` file."""
    if not path.is_file():
        raise InstanceError(f"{path}: no such file; give a SWE-bench JSONL or parquet file")
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return [dict(r) for r in pq.read_table(path).to_pylist()]
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json" and text.lstrip().startswith("["):
        return [dict(r) for r in json.loads(text)]
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InstanceError(f"{path}:{number}: not JSON ({exc})") from exc
    return rows


def parse_slice(text: str | None) -> slice | None:
    """``A:B`` (either side may be empty) as a slice; None for no slice."""
    if not text:
        return None
    m = re.fullmatch(r"\s*(-?\d*)\s*:\s*(-?\d*)\s*", text)
    if m is None:
        raise InstanceError(f"--slice {text!r}: use A:B, e.g. 0:10 or :5")
    start, stop = (int(g) if g else None for g in m.groups())
    return slice(start, stop)


def load_instances(
    path: Path, *, pattern: str | None = None, window: str | None = None
) -> list[Instance]:
    """The instances of ``path`` whose id matches ``pattern``, then cut to ``window``."""
    cut = parse_slice(window)  # a usage error is said before any file is read
    rows = read_rows(path)
    found = [Instance.from_row(r, f"{path.name} row {i + 1}") for i, r in enumerate(rows)]
    if pattern:
        try:
            wanted = re.compile(pattern)
        except re.error as exc:
            raise InstanceError(f"--filter {pattern!r}: {exc}") from exc
        found = [i for i in found if wanted.search(i.instance_id)]
    return found[cut] if cut is not None else found
