"""Does this machine's llama.cpp run on this CPU? Asked once per build and CPU, in a child.

llama.cpp is compiled for the CPU it was built on (``-march=native``). A build carried to
another machine, a wheel from a cache, or a virtual machine that reports instructions it then
traps (AMX) dies of SIGILL at the first matrix product — in our own process, so a run or a
REPL session would vanish with "Illegal instruction" and no word on what to do, after the
agent had perhaps applied an edit it had not yet verified.

So before the first model load of a process, a child loads the weights and generates two
tokens. When it answers, a stamp named for the build (the library files' names, sizes and
times) and the CPU (its model name and flags) is left in
``$XDG_CACHE_HOME/patchwright/llama-probe/``: later processes on this machine pay nothing.
When it dies, the load is refused with what happened and the fix. ``make setup`` runs the
same probe (``scripts/check_embedded.sh``) and rebuilds llama.cpp once when it fails.
``PATCHWRIGHT_LLAMA_PROBE=0`` skips it.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from patchwright.llm.errors import ModelConfigError

PROBE_TIMEOUT = 300  # seconds: loading 1 GB of weights from a cold disk, on a busy machine
_checked: set[str] = set()


def ensure_runs(weights: Path, probe: Sequence[str] | None = None) -> None:
    """Return when this build of llama.cpp has answered on this CPU (now or before); raise
    :class:`ModelConfigError` saying why and what to do when it does not. ``probe`` is the
    child's command (by default: load ``weights`` and generate two tokens)."""
    if os.environ.get("PATCHWRIGHT_LLAMA_PROBE", "1") == "0":
        return
    stamp = _stamp_path()
    if stamp.name in _checked or stamp.exists():
        _checked.add(stamp.name)
        return
    command = list(probe or _probe_command(weights))
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env,
                              stdin=subprocess.DEVNULL, timeout=PROBE_TIMEOUT)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise ModelConfigError(
            f"the embedded model did not answer a two-token test within {PROBE_TIMEOUT} s: "
            "is the machine overloaded? Try again, or use another model (--model)"
        ) from exc
    if done.returncode != 0:
        raise ModelConfigError(_why(done.returncode, done.stderr))
    _checked.add(stamp.name)
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(f"{sys.executable}\n", encoding="utf-8")
    except OSError:
        pass  # an unwritable cache: this process remembers, the next one asks again


def _probe_command(weights: Path) -> list[str]:
    return [sys.executable, "-m", "patchwright.llm.cpu_probe", str(weights)]


def _why(returncode: int, stderr: str) -> str:
    if returncode in (-signal.SIGILL, 128 + signal.SIGILL):
        return (
            "the embedded model's llama.cpp died of an illegal instruction (SIGILL): it was "
            "built for another CPU than this one. Run `make setup` in patchwright's checkout "
            "(it rebuilds llama.cpp for this CPU), or use another model (--model)"
        )
    tail = " ".join(stderr.strip().splitlines()[-3:]) or "no message"
    how = f"signal {-returncode}" if returncode < 0 else f"exit {returncode}"
    return (
        f"the embedded model failed a two-token test ({how}: {tail}). Run `make setup` in "
        "patchwright's checkout, or use another model (--model)"
    )


def _stamp_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "patchwright" / "llama-probe" / _key()


def _key() -> str:
    """The build's library files and the CPU, hashed: a rebuild or another CPU asks again."""
    digest = hashlib.sha256()
    for path in _library_files():
        try:
            st = path.stat()
        except OSError:
            continue
        digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    digest.update(_cpu().encode())
    return digest.hexdigest()[:24]


def _library_files() -> list[Path]:
    import importlib.util

    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or spec.origin is None:
        return []
    root = Path(spec.origin).parent
    return sorted(p for p in root.rglob("*") if p.suffix in (".so", ".dylib", ".dll"))


def _cpu() -> str:
    """The CPU's model name and instruction flags (Linux), or the machine's name elsewhere."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return os.uname().machine
    wanted = ("model name", "flags", "Features", "CPU part")
    lines = {ln.split(":", 1)[0].strip(): ln for ln in text.splitlines() if ":" in ln}
    return "\n".join(lines.get(k, "") for k in wanted)


def _answer(weights: str) -> None:
    """The child: load the weights and generate two tokens (what dies, dies here)."""
    from llama_cpp import Llama

    llm = Llama(model_path=weights, n_ctx=128, n_threads=2, verbose=False)
    llm("def add(a, b):", max_tokens=2, temperature=0)


def main(argv: Sequence[str]) -> int:
    """``--check [MODEL]``: setup's check (the weights assembled if need be, then the probe);
    ``WEIGHTS``: the child itself."""
    if argv[:1] != ["--check"]:
        _answer(argv[0])
        return 0
    from patchwright.llm.weights import resolve

    try:
        ensure_runs(resolve(argv[1] if len(argv) > 1 else "qwen2.5-coder-1.5b").path)
    except ModelConfigError as exc:
        print(f"    {exc}", file=sys.stderr)
        return 1
    print("==> the embedded model answers on this machine")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
