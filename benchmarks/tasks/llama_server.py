"""One ``llama_cpp.server`` for every tool of a run, and the tokens each task cost on it.

The server runs from its own virtualenv (``.bench-cache/server-venv``): the ``[server]``
extra's packages (FastAPI, uvicorn, …) installed there, never into the project, and
llama-cpp-python itself taken from the project's environment through a ``.pth`` line — the
very build the embedded model uses, not a second ten-minute compile. ``server_main.py``
starts the stock server with a usage log (one line per completion, see there); a task's
calls are those that began while it ran, counted the same way for every tool.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from server_main import IDLE_S

HERE = Path(__file__).resolve().parent
MODEL_ALIAS = "qwen2.5-coder-1.5b"
# llama-cpp-python 0.3.36's [server] extra, less llama-cpp-python (taken from the project);
# pinned to the versions this benchmark was checked with
SERVER_EXTRA = (
    "uvicorn==0.54.0",
    "fastapi==0.165.0",
    "pydantic-settings==2.16.3",
    "sse-starlette==3.7.0",
    "starlette-context==0.3.6",
    "PyYAML==6.0.4",
)


def uv_command() -> list[str]:
    """uv as the Makefile calls it: ``$UV``, else ``uv`` on the PATH, else ``python3 -m uv``."""
    if os.environ.get("UV"):
        return shlex.split(os.environ["UV"])
    found = shutil.which("uv")
    return [found] if found else ["python3", "-m", "uv"]


def make_venv(venv: Path, packages: list[str], *, why: str) -> Path:
    """A virtualenv of this interpreter's Python with ``packages``, made once (a marker file
    records what it holds) and reused; returns its python."""
    python = venv / "bin" / "python"
    marker = venv / ".bench-packages"
    wanted = "\n".join(packages)
    if marker.exists() and marker.read_text() == wanted and python.exists():
        return python
    print(f"setting up {venv} ({why}) ...", flush=True)
    base = getattr(sys, "_base_executable", sys.executable)
    uv = uv_command()
    env = {**os.environ, "UV_LINK_MODE": "copy"}
    if not python.exists():
        subprocess.run([*uv, "venv", "-q", "--python", base, str(venv)], check=True, env=env)
    subprocess.run(
        [*uv, "pip", "install", "-q", "--python", str(python), *packages], check=True, env=env
    )
    marker.write_text(wanted)
    return python


def server_python(cache: Path) -> Path:
    """The server's interpreter: its own venv, this environment's llama_cpp appended."""
    venv = cache / "server-venv"
    python = make_venv(venv, list(SERVER_EXTRA), why="llama_cpp.server's web stack")
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    # appended after the venv's own site-packages: its packages win, ours fill the gaps
    (site / "zz-project-llama-cpp.pth").write_text("\n".join(sorted(ours)) + "\n")
    return python


def physical_cores() -> int:
    try:
        from patchwright.llm.local import physical_cores as cores

        return int(cores())
    except ImportError:  # the module moved
        return os.cpu_count() or 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Call:
    """One completion as the server logged it."""

    t: float
    prompt_tokens: int
    reused_tokens: int
    completion_tokens: int
    temperature: float | None
    ttft_s: float
    seconds: float


@dataclass
class UsageLog:
    """The server's usage log, read from where this run's server began appending."""

    path: Path
    pos: int = 0
    open_calls: set[int] = field(default_factory=set)
    calls: list[Call] = field(default_factory=list)
    by_id: dict[int, int] = field(default_factory=dict)  # a call's place in ``calls``

    def restart(self) -> None:
        """From the end of the log, for a new server: its ids start again at 1, and a killed
        server's calls never end."""
        if self.path.exists():
            self.pos = self.path.stat().st_size
        self.open_calls.clear()
        self.by_id.clear()

    def read(self) -> None:
        """The lines logged since the last read: ``start`` opens a call, ``end`` counts it
        (a later ``end`` of the same call replaces the first: one logged as abandoned was
        read on after all), ``resumed`` opens it again and ``closed`` changes nothing."""
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            handle.seek(self.pos)
            data = handle.read()
        complete = data[: data.rfind(b"\n") + 1]
        self.pos += len(complete)
        for line in complete.decode().splitlines():
            rec = json.loads(line)
            call_id = int(rec["id"])
            if rec["event"] in ("start", "resumed"):
                self.open_calls.add(call_id)
            elif rec["event"] == "end":
                self.open_calls.discard(call_id)
                self._count(call_id, rec)

    def _count(self, call_id: int, rec: dict[str, Any]) -> None:
        call = Call(
            t=float(rec["t"]),
            prompt_tokens=int(rec["prompt_tokens"]),
            reused_tokens=int(rec["reused_tokens"]),
            completion_tokens=int(rec["completion_tokens"]),
            temperature=rec.get("temperature"),
            ttft_s=float(rec["ttft_s"]),
            seconds=float(rec["seconds"]),
        )
        if call_id in self.by_id:
            self.calls[self.by_id[call_id]] = call
        else:
            self.by_id[call_id] = len(self.calls)
            self.calls.append(call)

    def between(self, start: float, end: float) -> list[Call]:
        self.read()
        return [c for c in self.calls if start <= c.t < end]


def usage_figures(calls: list[Call]) -> dict[str, Any]:
    """A task's tokens and time on the server, from the server's own count; the report
    adds them up (speeds are sums over sums, not means of per-task rates)."""
    return {
        "calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "tokens": sum(c.prompt_tokens + c.completion_tokens for c in calls),
        "prefilled_tokens": sum(c.prompt_tokens - c.reused_tokens for c in calls),
        "prefill_s": round(sum(c.ttft_s for c in calls), 3),  # to the first token
        "gen_tokens": sum(max(c.completion_tokens - 1, 0) for c in calls),  # after the first
        "gen_s": round(sum(c.seconds - c.ttft_s for c in calls), 3),
        "ttfts": [c.ttft_s for c in calls],
        "temperatures": sorted({c.temperature for c in calls if c.temperature is not None}),
    }


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system) process ``pid`` has used, from /proc; None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drafting(lookup: int) -> str:
    """How the server decodes, as the rows record it."""
    return f"prompt lookup ({lookup} tokens)" if lookup else "no speculation"


class LlamaServer:
    """``llama_cpp.server`` on 127.0.0.1 serving one GGUF, for the life of a ``with``."""

    def __init__(
        self,
        gguf: Path,
        *,
        cache: Path,
        logs: Path,
        n_ctx: int = 8192,
        threads: int = 0,
        lookup: int = 0,
    ) -> None:
        """``lookup``: tokens the server's prompt-lookup decoding drafts per step (0: none)."""
        self.gguf = gguf
        self.lookup = lookup
        self.cache = cache
        self.n_ctx = n_ctx
        self.threads = threads or physical_cores()
        self.port = free_port()
        self.server_log = logs.with_suffix(".server.log")
        self.usage = UsageLog(logs.with_suffix(".usage.jsonl"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def drafting(self) -> str:
        return drafting(self.lookup)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, timeout: float = 300.0) -> None:
        python = server_python(self.cache)
        self.usage.restart()
        cmd = [
            str(python), "-I", str(HERE / "server_main.py"), str(self.usage.path),
            "--model", str(self.gguf), "--model_alias", MODEL_ALIAS,
            "--n_ctx", str(self.n_ctx), "--n_batch", "512",
            "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
            "--host", "127.0.0.1", "--port", str(self.port),
        ]  # fmt: skip
        if self.lookup:
            cmd += ["--draft_model", "prompt-lookup-decoding",
                    "--draft_model_num_pred_tokens", str(self.lookup)]  # fmt: skip
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        with self.server_log.open("ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited; see {self.server_log}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        print(
                            f"llama_cpp.server at {self.base_url}: {self.gguf.name}, n_ctx "
                            f"{self.n_ctx}, {self.threads} threads, {self.drafting} "
                            f"(log {self.server_log})",
                            flush=True,
                        )
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer in {timeout:.0f} s")

    def check(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise RuntimeError(f"llama_cpp.server is gone; see {self.server_log}")

    def answers(self, timeout: float = 90.0) -> bool:
        """Whether a one-token completion comes back within ``timeout`` seconds. The stock
        server can stop serving for good after a client drops a stream (requests accepted,
        never generated: seen once in 30 tasks, stalling both tools to their time limit)."""
        body = json.dumps({"prompt": "1", "max_tokens": 1, "temperature": 0}).encode()
        req = urllib.request.Request(
            f"{self.base_url}/completions", body, {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    def state(self) -> str:
        """``ready`` (a one-token completion comes back), ``busy`` (none does, or a completion
        is still open, and the process is generating: a killed client's completion) or
        ``hung`` (none comes back and the process is idle). A completion a killed client left
        open may never log its end (the server drops a stream whose client is gone): once a
        probe is answered, nothing is in progress — the server runs one completion at a time
        — and those are forgotten."""
        self.usage.read()
        if self.usage.open_calls and self.busy():
            return "busy"
        if self.answers():
            self.usage.open_calls.clear()
            return "ready"
        return "busy" if self.busy() else "hung"

    def settle(self, timeout: float = 120.0) -> None:
        """Until no completion is in progress: a killed client's last one runs to its end;
        one left unread, the process idle, is logged as abandoned within ``IDLE_S`` seconds
        (``server_main.py``) and waited for that long; one the server dropped (its end never
        logged) is then forgotten rather than waited on for ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        self.usage.read()
        while self.usage.open_calls and time.monotonic() < deadline:
            generating = self.busy()
            self.usage.read()
            if self.usage.open_calls and not generating:
                self._await_abandoned(time.monotonic() + IDLE_S + 2.0)
                self.usage.open_calls.clear()

    def _await_abandoned(self, until: float) -> None:
        while self.usage.open_calls and time.monotonic() < until:
            time.sleep(0.25)
            self.usage.read()

    def ready(self) -> bool:
        """Answering (:meth:`state`)."""
        return self.state() == "ready"

    def busy(self, window: float = 2.0) -> bool:
        """Whether the server process spends at least a quarter of a core over ``window``
        seconds — generating (a killed client's completion, say), not hung: the hang seen
        (:meth:`answers`) left the CPU idle."""
        if self.proc is None or self.proc.poll() is not None:
            return False
        first = _cpu_seconds(self.proc.pid)
        time.sleep(window)
        last = _cpu_seconds(self.proc.pid)
        return first is not None and last is not None and last - first >= window / 4

    def restart(self) -> None:
        """A new server process on a new port (the old one killed)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.port = free_port()
        self.start()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> LlamaServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
