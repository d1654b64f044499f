#!/usr/bin/env bash
# Runs fuzz targets one after another, each for SECONDS (default 600), with corpora seeded from
# testdata/. Usage: fuzz/run.sh [SECONDS] [TARGET...]   (all targets when none are named)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). On a stable toolchain, RUSTC_BOOTSTRAP=1 lets
# cargo-fuzz pass its `-Z` flags. `-s none`: the crate forbids `unsafe`, so AddressSanitizer
# would only instrument dependencies, at twice the build time; panics, stack overflows, hangs
# (-timeout) and memory blow-ups (-rss_limit_mb) are caught without it.
set -uo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$fuzz")"
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(classify span_mapping canonical lock config)
export RUSTC_BOOTSTRAP=1

seed() {
  local target="$1" dir="$fuzz/corpus/$1" pattern
  case "$target" in
    lock) pattern='*.lock' ;;
    config) pattern='*.yaml' ;;
    *) pattern='*.json' ;;
  esac
  mkdir -p "$dir"
  find "$repo/testdata" -name "$pattern" -size -64k -print0 |
    while IFS= read -r -d '' f; do cp "$f" "$dir/seed-$(sha1sum "$f" | cut -c1-16)"; done
}

cd "$fuzz" || exit 1
cargo fuzz build -O -s none || exit 1
status=0
for target in "${targets[@]}"; do
  seed "$target"
  echo "=== $target: ${seconds}s"
  cargo fuzz run -O -s none "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    || status=1
done
exit $status
