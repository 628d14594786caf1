# patchwright — the two commands the README promises, plus their parts.
SHELL := /bin/bash
# uv on the PATH, in ~/.local/bin (where scripts/setup.sh fetches it when there is none) or
# python3's module: scripts/uv.sh finds it.
UV ?= bash scripts/uv.sh
export UV_LINK_MODE := copy
# Build llama.cpp with both cores; the wheel is cached by uv after the first build.
export CMAKE_BUILD_PARALLEL_LEVEL ?= 2
export OMP_WAIT_POLICY := PASSIVE
# The suite starts thousands of Python processes: let them keep their bytecode (setup.sh
# compiles the installed packages; this lets src/ and tests/ be cached too).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup install demo test test-slow lint typecheck contracts pytest clean

setup: .venv/.setup-done

.venv/.setup-done: pyproject.toml uv.lock scripts/setup.sh
	@bash scripts/setup.sh
	@touch $@

# `patchwright` on the PATH (uv tool install from this checkout, the locked versions)
install: setup
	@bash scripts/install.sh

demo: setup
	@bash scripts/demo.sh

lint: setup
	$(UV) run --no-sync ruff check src tests benchmarks
	$(UV) run --no-sync ruff format --check src tests benchmarks

typecheck: setup
	$(UV) run --no-sync mypy

contracts: setup
	$(UV) run --no-sync lint-imports

# pytest is CPU-bound on two cores (measured: 97% busy), so the suite's time is its CPU: the
# tests without the embedded model take ~460 s whatever the workers. The tests marked `slow`
# run the real model (~300 s of both cores: a REPL session of two tasks, the quick start,
# prefix reuse) and run in `make test-slow` (3.5 min), which CI (.ci/run) runs after `make test` (7 min); the
# one marked `smoke` (the embedded model fixing a bug end to end) stays in `make test`. The
# embedded-model tests share one worker (tests/conftest.py); the tests marked serial measure
# the machine's shared disk and run afterwards, alone.
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && echo $$n || echo 4)
pytest: setup
	$(UV) run --no-sync pytest -n $(PYTEST_WORKERS) --dist loadgroup -m "not serial and not slow" --durations=12
	$(UV) run --no-sync pytest -m serial

test-slow: setup
	$(UV) run --no-sync pytest -m slow --durations=12

test: lint typecheck contracts pytest

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache
