#!/usr/bin/env bash
# `make install`: puts the `patchwright` command on the PATH, pipx-style — a link in a bin
# folder to the command of the project's own environment (.venv, which `make setup` built from
# uv.lock with llama.cpp compiled once). Nothing is resolved, compiled or downloaded again; the
# command runs the checkout's code (an editable install: pull, and it is up to date). Moving
# or deleting the checkout breaks the link: run `make install` again.
#
# The link goes into the first writable folder already on the PATH (~/.local/bin, ~/bin,
# /usr/local/bin), so it works in this shell at once; with none, into ~/.local/bin, which is
# then added to the shell's startup files. PATCHWRIGHT_BIN_DIR chooses the folder.
# `bash scripts/install.sh --uninstall` removes the link.
set -euo pipefail
cd "$(dirname "$0")/.."

on_path() { case ":$PATH:" in *":$1:"*) return 0 ;; *) return 1 ;; esac }
writable() { { [ -d "$1" ] && [ -w "$1" ]; } || { [ ! -e "$1" ] && mkdir -p "$1" 2>/dev/null; }; }

bin="${PATCHWRIGHT_BIN_DIR:-}"
if [ -z "$bin" ]; then
    for dir in "$HOME/.local/bin" "$HOME/bin" /usr/local/bin; do
        if on_path "$dir" && writable "$dir"; then bin=$dir && break; fi
    done
fi
bin="${bin:-$HOME/.local/bin}"

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$bin/patchwright" && echo "removed $bin/patchwright"
    exit 0
fi

target="$PWD/.venv/bin/patchwright"
if [ ! -x "$target" ]; then
    echo "error: $target is missing: run \`make setup\` first (\`make install\` does)" >&2
    exit 1
fi
mkdir -p "$bin"
ln -sfn "$target" "$bin/patchwright"
echo "==> linked $bin/patchwright -> $target"
"$bin/patchwright" --version

if on_path "$bin"; then
    echo "==> done: type \`patchwright\` in any repository"
else
    line="export PATH=\"$bin:\$PATH\""
    for rc in "$HOME/.bashrc" "$HOME/.zshrc" "$HOME/.profile"; do
        if [ -f "$rc" ] && ! grep -qsF "$line" "$rc"; then printf '\n%s\n' "$line" >>"$rc"; fi
    done
    echo "==> done; $bin is not on this shell's PATH yet (added to your shell's startup files):"
    echo "    open a new terminal, or run: $line"
fi
