"""Aider run the way ``aider ARGS --message TEXT`` runs it, then how it ended: run by the
Aider virtualenv's interpreter (see ``tool_aider.py``), never imported by the benchmark.

    aider_driver.py OUTCOME_JSON MESSAGE_FILE [aider arguments ...]

``aider.main.main(argv, return_coder=True)`` builds the very coder the command line builds;
``coder.run(with_message=...)`` is what ``--message`` then calls. What the command line
cannot say, this writes to OUTCOME_JSON: ``test_outcome`` (its last ``--auto-test`` passed:
true; failed: false; never ran because no edit applied: null), ``reflections`` (retries after
the first reply, at most ``max_reflections``), ``gave_up`` (it stopped with a retry still due).
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any


def main() -> int:
    outcome_path, message_path, *argv = sys.argv[1:]
    from aider.commands import SwitchCoder
    from aider.main import main as aider_main

    coder: Any = aider_main(argv, return_coder=True)
    outcome: dict[str, Any]
    if not hasattr(coder, "run"):
        outcome = {"error": f"aider stopped before the task (returned {coder!r})"}
        Path(outcome_path).write_text(json.dumps(outcome))
        return 2
    message = Path(message_path).read_text()
    with contextlib.suppress(SwitchCoder):
        coder.run(with_message=message)
    if coder.summarizer_thread is not None:  # the chat summary in the background
        coder.summarizer_thread.join()
    outcome = {
        "test_outcome": coder.test_outcome,
        "lint_outcome": coder.lint_outcome,
        "reflections": coder.num_reflections,
        "max_reflections": coder.max_reflections,
        "gave_up": coder.reflected_message is not None,
        "edited": sorted(coder.aider_edited_files),
        "tokens_sent": coder.total_tokens_sent,
        "tokens_received": coder.total_tokens_received,
    }
    Path(outcome_path).write_text(json.dumps(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main())
