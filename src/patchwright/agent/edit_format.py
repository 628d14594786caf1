"""Choosing the edit format the model is asked to use.

``auto`` asks small local models for whole files when the files in play are small — Aider
measured Qwen2.5-Coder 0.5B–14B at 100% well-formed whole-file replies, while SEARCH/REPLACE
well-formedness drops with model size — and SEARCH/REPLACE otherwise, where resending whole
files would waste the context window.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

# "function": the one corrected definition, placed by its name — asked for only where the
# definition at fault is known (agent/relations/suspects.py): the review's failing-test
# proposals, and a small model's retries once a whole-file attempt failed
EditFormat = Literal["diff", "whole", "udiff", "function"]
FORMATS: tuple[str, ...] = ("auto", "diff", "whole", "udiff")

WHOLE_FILE_MAX_LINES = 250


def choose_format(requested: str, small: bool, file_line_counts: Sequence[int]) -> EditFormat:
    """Resolve ``auto`` to a concrete format (``small``: the catalog says the model is
    small); any other value must be a known format."""
    if requested not in FORMATS:
        raise ValueError(f"unknown edit format {requested!r}; choose one of {', '.join(FORMATS)}")
    if requested != "auto":
        return requested  # type: ignore[return-value]
    largest = max(file_line_counts, default=0)
    if small and largest <= WHOLE_FILE_MAX_LINES:
        return "whole"
    return "diff"
