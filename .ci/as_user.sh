#!/usr/bin/env bash
# CI, second part (run by .ci/run as root): what a user who is not root meets. No pids cgroup
# (the process cap is RLIMIT_NPROC), the system's own Python (Debian 12: 3.11.2, without
# tarfile's data filter), pip installs refused (PEP 668), a login's environment and a home of
# their own. The checkout is set up as that user (uv fetched into ~/.local/bin, the environment
# from uv.lock) and the tests of what such a user meets first are run. Each of those four once
# broke for such a user while every test passed as root.
set -euo pipefail
clone="$1"
user=patchwright-ci
id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
home=$(getent passwd "$user" | cut -d: -f6)
rm -rf "$home/patchwright"
git clone -q "$clone" "$home/patchwright"
# root's uv cache, hard-linked: llama.cpp is compiled once, not once per user
if [ -d "$HOME/.cache/uv" ] && [ ! -e "$home/.cache/uv" ]; then
    mkdir -p "$home/.cache"
    cp -al "$HOME/.cache/uv" "$home/.cache/uv"
fi
chown -R "$user:" "$home"
echo "==> as $user (uid $(id -u "$user")), with $(su - "$user" -c 'python3 --version')"
su - "$user" -c 'cd ~/patchwright && make setup && .venv/bin/python -m pytest -n 2 \
    -p no:cacheprovider -m "not slow and not serial" tests/sandbox tests/commands \
    tests/workspace tests/envs tests/modes/run/test_run.py'
