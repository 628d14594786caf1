"""Task benchmark: materialise each task in a temp git repo, run a coding agent on it —
patchwright (``patchwright run --yes --json``), Aider, or both one after the other — judge
with the task's own tests, and print the figures side by side.

    python benchmarks/tasks/run.py /work/shared/bench/humanevalfix_python.jsonl --limit 30
    python benchmarks/tasks/run.py /work/shared/bench/humanevalfix_python.jsonl --limit 30 --tool both

Two framings:

* ``--framing user`` (default) — as users call the tool: the task's tests are committed in the
  repository, the task text does not name them, and ``--test-cmd`` is the task's own test
  command. The judge restores the test files and runs that same command.
* ``--framing hidden`` — the tests are hidden from the agent and restored only to judge; the
  HumanEvalFix task names a visible example test. (The framing of earlier figures.)

Two backends:

* embedded (``--tool patchwright`` without ``--serve``): patchwright loads ``--model`` (the
  embedded model by default) in its own process; tokens are its own count.
* ``--serve`` (implied by ``--tool aider|both``): the benchmark starts ONE
  ``llama_cpp.server`` on 127.0.0.1 with the embedded model's GGUF (n_ctx 8192, a thread per
  physical core, ``OMP_WAIT_POLICY=PASSIVE``) and every tool talks to it — patchwright as
  ``openai-compat:URL#qwen2.5-coder-1.5b``, Aider as ``openai/qwen2.5-coder-1.5b`` (see
  ``tool_aider.py``). Tokens, time to first token and tokens/s are the server's count of the
  completions that began during the task, the same count for both tools. Attempts are paired:
  Aider replies once and retries up to 3 times (its ``max_reflections``), so patchwright gets
  ``--max-iter 4``.

The judge is the same for every tool: the task's own tests restored, its own command. A
solution a tool claims that the judge rejects is counted separately — patchwright's
``solved``; Aider's last ``--auto-test`` passing — and with the user framing it must be 0 for
patchwright.

Results are appended to ``--out`` (one JSON line per task and tool; by default under
``benchmarks/results/``, committed, so a run can go on in a later session on another machine)
and those already there are skipped, so an interrupted benchmark resumes where it stopped.
Each row names the version it came from (patchwright's commit, Aider's release); a resumed run
refuses to add rows from another version of a tool unless ``--mixed-versions`` says so.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from llama_server import MODEL_ALIAS, LlamaServer, drafting, usage_figures
from report import report
from taskdefs import Task, judge, load_tasks, materialise
from tool_aider import aider_python, run_aider, write_model_files
from tool_patchwright import run_patchwright
from versions import mixed, summary, versions

HERE = Path(__file__).resolve()
PROJECT = HERE.parents[2]
CACHE = PROJECT / ".bench-cache"
RESULTS = PROJECT / "benchmarks" / "results"
AIDER_ATTEMPTS = 4  # one reply + Aider's max_reflections (3)


class Bench:
    """One run: the tools, the server they share (if any), where records go."""

    def __init__(
        self, args: argparse.Namespace, server: LlamaServer | None, versions: dict[str, str]
    ) -> None:
        self.args = args
        self.versions = versions
        self.server = server
        self.aider: Path | None = None
        self.model_files: tuple[Path, Path] | None = None
        if server is not None and "aider" in tools(args):
            self.aider = aider_python(CACHE)
            self.model_files = write_model_files(CACHE, MODEL_ALIAS, server.n_ctx)

    def keep(self, tool: str, task: Task) -> Path | None:
        if self.args.keep_records is None:
            return None
        return Path(self.args.keep_records) / tool / task.task_id.replace("/", "_")

    @property
    def model(self) -> str:
        server = self.server
        return f"openai-compat:{server.base_url}#{MODEL_ALIAS}" if server else self.args.model

    def run(self, tool: str, task: Task) -> dict[str, Any]:
        """The task's row; run again on a restarted server when the server stopped answering
        (a hung server stalls the tool to its time limit: that says nothing of the tool)."""
        row = self._run_once(tool, task)
        state = "ready" if self.server is None else self.server.state()
        if state == "ready":
            return row
        assert self.server is not None
        if state == "busy":
            # still generating the completion the tool gave up on when it ran out of time:
            # the server answered all along, so the row is the tool's own (Aider's Rust-159:
            # four calls took 393 s of its 600, the fifth prefilled 5,039 tokens at 40/s)
            print(f"llama_cpp.server still generating after {tool} {task.task_id} "
                  f"({row['outcome']}, {row['seconds']} s): restarted; the row stands", flush=True)  # fmt: skip
            self.server.restart()
            return row
        print(f"llama_cpp.server stopped answering during {tool} {task.task_id} "
              f"({row['outcome']}, {row['seconds']} s): restarted, the task runs again", flush=True)  # fmt: skip
        self.server.restart()
        row = self._run_once(tool, task)
        if not self.server.ready():
            # the next task must not wait behind this one's abandoned completion: Aider's
            # Go-161 ran out its time twice, and the server went on generating for it while
            # patchwright's Go-162 waited 517 s for its first reply
            print(f"llama_cpp.server still busy after {tool} {task.task_id} ran again: "
                  "restarted; the row stands", flush=True)  # fmt: skip
            self.server.restart()
        return row

    def _run_once(self, tool: str, task: Task) -> dict[str, Any]:
        args = self.args
        with tempfile.TemporaryDirectory(prefix=f"{tool}-task-") as tmp:
            repo = Path(tmp)
            materialise(task, repo)
            if self.server is not None:
                self.server.check()
            began = time.time()
            if tool == "aider":
                assert self.aider is not None and self.model_files is not None
                assert self.server is not None
                row = run_aider(
                    task,
                    repo,
                    python=self.aider,
                    base_url=self.server.base_url,
                    model=MODEL_ALIAS,
                    model_files=self.model_files,
                    timeout=args.timeout,
                    commits=args.commits,
                    read_tests=args.aider_read_tests,
                    keep=self.keep(tool, task),
                )
            else:
                row = run_patchwright(task, repo, args, self.model, self.keep(tool, task))
            if self.server is not None:
                self.server.settle()
                row |= usage_figures(self.server.usage.between(began, time.time()))
                row["token_source"] = "server"
            else:
                row["tokens"] = row["tokens_self"]
                row["token_source"] = "self"
            passed = judge(task, repo, timeout=120)
        return {
            "task_id": task.task_id,
            "tool": tool,
            "version": self.versions[tool],
            "passed": passed,
            **row,
            "model": self.model if tool == "patchwright" else f"openai/{MODEL_ALIAS}",
            "edit_format": args.edit_format if tool == "patchwright" else "whole",
            "max_iter": args.max_iter if tool == "patchwright" else AIDER_ATTEMPTS,
            "framing": args.framing,
            "candidates": args.candidates,
            "commits": args.commits,
            **({"server": self.server.drafting} if self.server is not None else {}),
        }


def tools(args: argparse.Namespace) -> list[str]:
    return ["patchwright", "aider"] if args.tool == "both" else [args.tool]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tasks", type=Path)
    parser.add_argument("--tool", choices=("patchwright", "aider", "both"), default="patchwright")
    parser.add_argument(
        "--serve",
        action="store_true",
        help="start one llama_cpp.server for the run (implied by --tool aider|both)",
    )
    parser.add_argument("--gguf", default="qwen2.5-coder-1.5b", help="the served model: a known name or a .gguf path")  # fmt: skip
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--server-lookup", type=int, default=0, metavar="N", help="the server drafts N tokens per step by prompt lookup (llama_cpp.server's prompt-lookup-decoding), for every tool alike; 0: none")  # fmt: skip
    parser.add_argument("--model", default=None, help="patchwright's --model without --serve (default: the embedded model); 'gold' replies with each task's gold solution — the harness's ceiling")  # fmt: skip
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--only", default="", help="comma-separated task ids: just these (a rerun of the failures), before --offset/--limit")  # fmt: skip
    parser.add_argument("--max-iter", type=int, default=None, help=f"patchwright's --max-iter (default {AIDER_ATTEMPTS} with --serve, paired with Aider's attempts; 2 otherwise)")  # fmt: skip
    parser.add_argument("--edit-format", default="auto", help="patchwright's; Aider always gets whole")  # fmt: skip
    parser.add_argument("--framing", choices=("user", "hidden"), default="user")
    parser.add_argument("--candidates", default="1", help="--candidates for the agent: N or auto")
    parser.add_argument("--strategy", default="pipeline", choices=("auto", "pipeline", "agent"))
    parser.add_argument("--commits", action=argparse.BooleanOptionalAction, default=True, help="each tool commits as it does by default, model-written messages (patchwright once, on success; Aider after each edit); --no-commits: neither")  # fmt: skip
    parser.add_argument("--aider-read-tests", action="store_true", help="also give Aider the test files, read-only")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=600, help="seconds per task and tool")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--mixed-versions", action="store_true", help="resume --out although its rows came from another patchwright commit (or Aider release)")  # fmt: skip
    parser.add_argument("--common", action="store_true", help="report only the tasks every tool has run (an interrupted --tool both)")  # fmt: skip
    parser.add_argument(
        "--keep-records",
        type=Path,
        default=None,
        help="copy each task's records here (patchwright's run record; Aider's chat, LLM "
        "history and output), under TOOL/TASK",
    )
    args = parser.parse_args()
    args.serve = args.serve or args.tool != "patchwright"
    if args.serve and args.model:
        parser.error("--model names patchwright's model without --serve; with it, use --gguf")
    if args.tool != "patchwright" and args.framing != "user":
        parser.error("Aider needs the task's test command: --framing user")
    args.model = args.model or "local:qwen2.5-coder-1.5b"
    if args.max_iter is None:
        args.max_iter = AIDER_ATTEMPTS if args.serve else 2
    return args


def out_path(args: argparse.Namespace) -> Path:
    if args.out:
        return Path(args.out)
    name = f"tasks-{args.tasks.stem}-{args.framing}-{args.strategy}-{args.edit_format}-k{args.candidates}"
    if args.serve:  # the embedded runs keep their old name (and resume)
        name += f"-served-it{args.max_iter}{'' if args.commits else '-nocommit'}"
    return RESULTS / f"{name}.jsonl"


def main() -> None:
    # SIGTERM unwinds like Ctrl-C: the server and the running tool are stopped, not orphaned
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args = parse_args()
    out = out_path(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    done: dict[tuple[str, str], dict[str, Any]] = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done[(str(row.get("tool", "patchwright")), str(row["task_id"]))] = row
    tasks = load_tasks(args.tasks, args.framing)
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - {t.task_id for t in tasks}
        if unknown:
            sys.exit(f"--only names tasks not in {args.tasks.name}: {', '.join(sorted(unknown))}")
        tasks = sorted(
            (t for t in tasks if t.task_id in wanted), key=lambda t: wanted.index(t.task_id)
        )
    tasks = tasks[args.offset : args.offset + args.limit]
    todo = [(t, tool) for t in tasks for tool in tools(args) if (tool, t.task_id) not in done]
    if todo and not args.report_only:
        current = versions(tools(args))
        clash = mixed(list(done.values()), current)
        if clash and not args.mixed_versions:
            sys.exit(
                f"{out} holds rows from other versions:\n  "
                + "\n  ".join(clash)
                + "\nuse another --out, or --mixed-versions to add to it anyway"
            )
        decoding = {str(r.get("server", drafting(0))) for r in done.values()}
        if args.serve and decoding - {drafting(args.server_lookup)} and not args.mixed_versions:
            sys.exit(
                f"{out} holds rows served with {', '.join(sorted(decoding))}; this run is "
                f"{drafting(args.server_lookup)}: use another --out"
            )
        server = None
        if args.serve:
            from patchwright.llm import weights

            gguf = weights.resolve(args.gguf).path
            server = LlamaServer(
                gguf, cache=CACHE, logs=out, n_ctx=args.n_ctx, lookup=args.server_lookup
            )
            server.start()
        try:
            bench = Bench(args, server, current)
            index = {t.task_id: i for i, t in enumerate(tasks, 1)}
            for task, tool in todo:
                row = bench.run(tool, task)
                done[(tool, task.task_id)] = row
                with out.open("a") as handle:
                    handle.write(json.dumps(row) + "\n")
                print(
                    f"[{index[task.task_id]}/{len(tasks)}] {tool} {task.task_id}: "
                    f"{'PASS' if row['passed'] else 'fail'} ({row['outcome']}, "
                    f"{row['iterations']} it, {row['seconds']}s, {row['tokens']} tok)",
                    flush=True,
                )
        finally:
            if server is not None:
                server.stop()
    print(f"results: {out}")
    if args.common:
        tasks = [t for t in tasks if all((tool, t.task_id) in done for tool in tools(args))]
        print(f"the {len(tasks)} tasks every tool has run")
    shown = [
        done[(tool, t.task_id)] for tool in tools(args) for t in tasks if (tool, t.task_id) in done
    ]
    print(f"versions: {summary(shown)}")
    report(shown)


if __name__ == "__main__":
    main()
