#!/usr/bin/env bash
# What the JavaScript, Go and Rust task sets need to judge a task (../shared/bench/README.md):
#   Go        Debian's golang-go and testify (GOPATH=/usr/share/gocode for HumanEvalFix Go)
#   Rust      cargo from rustup (in the image) and Debian's packaged crates the rows use
#             (rand, regex, md5 for HumanEvalFix; anyhow, time for two polyglot exercises),
#             read offline through each row's .cargo/config.toml
#   JS        jest + babel for the polyglot exercises (/opt/polyglot-js-deps) and js-md5 for
#             one HumanEvalFix task (/opt/hef-js-deps), each from the bench's own lock file
# Idempotent: what is there already is left alone. Usage: setup_langs.sh [BENCH_DIR]
set -euo pipefail
bench="${1:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/bench}"

debs=(golang-go golang-github-stretchr-testify-dev
      librust-rand-dev librust-regex-dev librust-md5-dev librust-anyhow-dev librust-time-dev)
missing=()
for deb in "${debs[@]}"; do
    dpkg -s "$deb" >/dev/null 2>&1 || missing+=("$deb")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "missing Debian packages: ${missing[*]} (install them as root)" >&2
        exit 1
    fi
    echo "==> apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

npm_deps() {  # npm_deps LOCK_DIR TARGET: npm ci from the bench's lock file, once
    local lock="$1" target="$2"
    if cmp -s "$lock/package-lock.json" "$target/node_modules/.setup-lock.json" 2>/dev/null; then
        return
    fi
    echo "==> npm ci in $target (from $lock)"
    mkdir -p "$target"
    cp "$lock/package.json" "$lock/package-lock.json" "$target/"
    (cd "$target" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$lock/package-lock.json" "$target/node_modules/.setup-lock.json"
}
npm_deps "$bench/polyglot-js-deps" "${POLY_JS_DEPS:-/opt/polyglot-js-deps}"
npm_deps "$bench/hef-js-deps" "${HEF_JS_DEPS:-/opt/hef-js-deps}"

command -v cargo >/dev/null || export PATH="$HOME/.cargo/bin:$PATH"
echo "go: $(go version)"
echo "cargo: $(cargo --version)"
echo "node: $(node --version)"
