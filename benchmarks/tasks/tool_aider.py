"""Aider on a task, through the benchmark's llama_cpp.server.

Aider 0.86.2 lives in its own virtualenv (``.bench-cache/aider-venv``, made once with uv,
reused), never in the project's. It runs in the task's repository as a user would run it
with a local OpenAI-compatible server:

    aider SOURCE_FILES --model openai/MODEL --openai-api-base URL --openai-api-key dummy
          --model-settings-file S --model-metadata-file M --edit-format whole
          --test-cmd CMD --auto-test --yes-always --message TASK ...

* **Files**: the task's source files (not its tests) are added to the chat, as Aider's own
  benchmark does; Aider cannot edit a file it was not given. The tests reach it through its
  repository map (on by default: 1,024 tokens, the outline of the files not in the chat) and
  through ``--auto-test``'s failure output. ``--aider-read-tests`` adds them read-only.
* **Attempts**: one reply, then ``--auto-test`` (and its lint, and malformed edits) feed back
  up to ``max_reflections`` = 3 times: 4 replies at most. patchwright gets ``--max-iter 4``.
* **Model settings**: ``whole`` edits, the same model as the weak model (chat summaries,
  commit messages), ``use_temperature`` true — Aider then sends temperature 0 — no reasoning
  tag, no ``max_tokens`` (Aider sends none); the metadata file gives the context window
  (the server's ``n_ctx``) and zero prices, so Aider knows the model and warns of nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from llama_server import make_venv
from taskdefs import Task, run_bounded

AIDER_VERSION = "0.86.2"
HERE = Path(__file__).resolve().parent
DRIVER = HERE / "aider_driver.py"


def aider_python(cache: Path) -> Path:
    return make_venv(
        cache / "aider-venv", [f"aider-chat=={AIDER_VERSION}"], why=f"Aider {AIDER_VERSION}"
    )


def write_model_files(into: Path, model: str, n_ctx: int) -> tuple[Path, Path]:
    """Aider's model settings (YAML; JSON is YAML) and litellm model metadata."""
    name = f"openai/{model}"
    settings = [
        {
            "name": name,
            "edit_format": "whole",
            "weak_model_name": name,
            "use_temperature": True,
            "streaming": True,
            "reasoning_tag": None,
            "extra_params": None,
        }
    ]
    metadata = {
        name: {
            "max_tokens": n_ctx,
            "max_input_tokens": n_ctx,
            "max_output_tokens": n_ctx,
            "input_cost_per_token": 0.0,
            "output_cost_per_token": 0.0,
            "litellm_provider": "openai",
            "mode": "chat",
            "supports_reasoning": False,
        }
    }
    settings_file = into / "aider-model-settings.yml"
    metadata_file = into / "aider-model-metadata.json"
    settings_file.write_text(json.dumps(settings, indent=2))
    metadata_file.write_text(json.dumps(metadata, indent=2))
    return settings_file, metadata_file


def aider_args(
    task: Task,
    *,
    base_url: str,
    model: str,
    model_files: tuple[Path, Path],
    side: Path,
    commits: bool,
    read_tests: bool,
) -> list[str]:
    settings, metadata = model_files
    assert task.test_cmd, "Aider runs with --auto-test: the user framing gives the test command"
    return [
        *task.source_files(),
        *[arg for rel in (task.test_files() if read_tests else []) for arg in ("--read", rel)],
        "--model", f"openai/{model}",
        "--openai-api-base", base_url,
        "--openai-api-key", "dummy",
        "--model-settings-file", str(settings),
        "--model-metadata-file", str(metadata),
        "--edit-format", "whole",
        "--test-cmd", task.test_cmd,
        "--auto-test",
        "--yes-always",
        "--auto-commits" if commits else "--no-auto-commits",
        "--no-show-model-warnings",
        "--no-check-update",
        "--no-show-release-notes",
        "--no-analytics",
        "--no-gitignore",
        "--no-suggest-shell-commands",
        "--no-detect-urls",
        "--no-pretty",
        "--no-fancy-input",
        "--chat-history-file", str(side / "chat.md"),
        "--input-history-file", str(side / "input.history"),
        "--llm-history-file", str(side / "llm.history"),
    ]  # fmt: skip


def run_aider(
    task: Task,
    repo: Path,
    *,
    python: Path,
    base_url: str,
    model: str,
    model_files: tuple[Path, Path],
    timeout: float,
    commits: bool,
    read_tests: bool,
    keep: Path | None,
) -> dict[str, Any]:
    """Aider on ``task`` in ``repo``; what it claimed and what it cost (wall time)."""
    with tempfile.TemporaryDirectory(prefix="aider-side-") as tmp:
        side = Path(tmp)
        (side / "message.txt").write_text(task.task)
        args = aider_args(
            task,
            base_url=base_url,
            model=model,
            model_files=model_files,
            side=side,
            commits=commits,
            read_tests=read_tests,
        )
        cmd = [str(python), "-I", str(DRIVER), str(side / "outcome.json"), str(side / "message.txt"), *args]  # fmt: skip
        env = {
            **os.environ,
            "OMP_WAIT_POLICY": "PASSIVE",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no fetch of litellm's price list
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("VIRTUAL_ENV", None)
        started = time.monotonic()
        done = run_bounded(cmd, cwd=repo, timeout=timeout, env=env)
        wall = time.monotonic() - started
        (side / "stdout.txt").write_text(done.stdout + "\n--- stderr\n" + done.stderr)
        outcome: dict[str, Any] = {}
        if (side / "outcome.json").exists():
            outcome = json.loads((side / "outcome.json").read_text())
        if keep is not None:
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(side, keep)
    if done.timed_out:
        state = "timeout"
    elif "error" in outcome or not outcome:
        state = "error"
    elif outcome["test_outcome"] is True:
        state = "claimed"
    else:
        state = "not claimed"
    attempts = 1 + int(outcome.get("reflections") or 0) if outcome else None
    return {
        "outcome": state,
        "claimed": outcome.get("test_outcome") is True if outcome else None,
        "iterations": attempts,
        "first_try": attempts == 1,
        "gave_up": outcome.get("gave_up"),
        "edited": outcome.get("edited"),
        "tokens_self": int(outcome.get("tokens_sent") or 0)
        + int(outcome.get("tokens_received") or 0),
        "seconds": round(wall, 1),
        "error": outcome.get("error")
        or (None if outcome else (done.stderr or done.stdout)[-500:] or None),
    }
