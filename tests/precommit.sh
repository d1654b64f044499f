#!/usr/bin/env bash
# Exercises .pre-commit-hooks.yaml for real: installs pre-commit from PyPI into a virtualenv, then
# in a throwaway git repository with an approved snapshot that has since drifted, shows that
# `pre-commit try-repo <this repo> mcp-scan` fails, and passes after `mcp-scan lock`.
#
# Slow on first run: pre-commit's rust language does `cargo install --path .` (a release build).
# CARGO_TARGET_DIR points at this repo's target/ so later runs rebuild incrementally.
# Run by hand: bash tests/precommit.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
export PRE_COMMIT_HOME="$work/cache"
export SOURCE_DATE_EPOCH=1790000000

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet pre-commit
precommit="$work/venv/bin/pre-commit"

project="$work/project"
mkdir -p "$project/snapshots"
cd "$project"
git init -q
git config user.email ci@example.com
git config user.name ci
cp "$repo/testdata/shared/weather.json" snapshots/weather.json
cargo run --quiet --manifest-path "$repo/Cargo.toml" -- lock snapshots
git add . && git commit -qm "approve weather"

# The snapshot drifts (a hidden instruction in a description) without a new approval.
cp "$repo/testdata/shared/weather-description-drift.json" snapshots/weather.json
git add snapshots/weather.json

# Each hook must fail, and for the right reason (what it printed).
for hook_and_reason in "mcp-scan:high[tool-changed]" "mcp-scan-lock-check:mcp.lock is out of date"; do
  hook="${hook_and_reason%%:*}"
  reason="${hook_and_reason#*:}"
  if "$precommit" try-repo "$repo" "$hook" --all-files > "$work/$hook.log" 2>&1; then
    cat "$work/$hook.log"
    echo "FAIL: $hook passed on a drifted snapshot" >&2
    exit 1
  fi
  grep -qF "$reason" "$work/$hook.log" || { cat "$work/$hook.log"; echo "FAIL: $hook did not say: $reason" >&2; exit 1; }
  echo "ok: $hook fails on the drifted snapshot ($reason)"
done

cargo run --quiet --manifest-path "$repo/Cargo.toml" -- lock snapshots
git add mcp.lock

for hook in mcp-scan mcp-scan-lock-check; do
  if ! "$precommit" try-repo "$repo" "$hook" --all-files > "$work/$hook.log" 2>&1; then
    cat "$work/$hook.log"
    echo "FAIL: $hook failed after mcp-scan lock" >&2
    exit 1
  fi
  echo "ok: $hook passes after mcp-scan lock"
done
echo "pre-commit hooks: all good"
