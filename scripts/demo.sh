#!/usr/bin/env bash
# The demo: copy examples/demo_repo to a temp dir, make it a git repo, ask patchwright (with the
# embedded model) to fix its bug, then show the committed diff and the now-passing tests.
set -euo pipefail
cd "$(dirname "$0")/.."
UV="bash scripts/uv.sh"
export OMP_WAIT_POLICY=PASSIVE
demo=$(mktemp -d -t patchwright-demo-XXXXXX)
cp -r examples/demo_repo/. "$demo/"
git -C "$demo" init -q -b main
git -C "$demo" -c user.name=demo -c user.email=demo@example.com add -A
git -C "$demo" -c user.name=demo -c user.email=demo@example.com commit -q -m "initial: inventory package"
echo "==> demo repository: $demo"
echo "==> tests before:"
(cd "$demo" && "$OLDPWD/.venv/bin/python" -m pytest -q 2>&1 | tail -3) || true
model=${PATCHWRIGHT_DEMO_MODEL:-local:qwen2.5-coder-1.5b}
echo "==> patchwright run --model $model"
set +e
# SEARCH/REPLACE edits: the 1.5B model's whole-file reply here drops the untouched total().
$UV run --no-sync patchwright run --repo "$demo" --model "$model" --yes --edit-format diff \
    --task "tests/test_pricing.py fails: apply_discount in inventory/pricing.py returns the discount amount instead of the discounted price. Fix apply_discount."
status=$?
set -e
echo "==> committed change:"
git -C "$demo" log --stat -p -1 --format='commit %h  %s' | cat
echo "==> tests after:"
(cd "$demo" && "$OLDPWD/.venv/bin/python" -m pytest -q 2>&1 | tail -3) || true
exit $status
