"""patchwright.edits: model replies → verified, all-or-nothing text changes.

Pure text, no disk I/O: ``parse_reply`` finds the edits in a reply, ``resolve_path``
maps the paths written by the model onto repository files, ``apply_edits`` applies
them in memory (layered matching, strictest first; all or nothing) and
``render_retry_message`` turns failures into a ready-to-send "did you mean" message;
``unified_diff`` renders a change as git would.
"""

from __future__ import annotations

from patchwright.edits.apply import (
    apply_edits,
    keep_applicable,
    must_exist,
    pick_by_content,
    resolve_edit_path,
)
from patchwright.edits.diff import file_diff, unified_diff
from patchwright.edits.explain import describe_no_edits, render_retry_message
from patchwright.edits.match import STRATEGY_NAMES
from patchwright.edits.parse import parse_reply
from patchwright.edits.paths import resolve_path
from patchwright.edits.types import (
    ApplyResult,
    BlockResult,
    Edit,
    EditError,
    ParsedReply,
    PathResolutionError,
)

__all__ = [
    "STRATEGY_NAMES",
    "ApplyResult",
    "BlockResult",
    "Edit",
    "EditError",
    "ParsedReply",
    "PathResolutionError",
    "apply_edits",
    "describe_no_edits",
    "file_diff",
    "keep_applicable",
    "must_exist",
    "parse_reply",
    "pick_by_content",
    "render_retry_message",
    "resolve_edit_path",
    "resolve_path",
    "unified_diff",
]
