#!/usr/bin/env bash
# Benchmarks mcp-scan on generated corpora and prints a Markdown table.
#
# Usage: bench/run.sh [--huge] [--sizes "1000 10000"] [--cold]
#
#   --huge         also run 1M tools (about 2.4 GB of snapshots, plus the lock; takes minutes)
#   --sizes LIST   tool counts to run instead of the default "1000 10000 100000"
#   --cold         start each run with an empty page cache (needs root: it writes
#                  /proc/sys/vm/drop_caches), as a scan of files not read lately; by default
#                  each run starts with the corpus read into the cache
#
# Corpora are generated once into target/bench-corpus/<size>/ (gitignored) and reused by later
# runs; delete that directory to regenerate them.
#
# What it does:
#   1. builds the release binary, the corpus generator (examples/gen_corpus.rs) and the floor
#      (examples/floor.rs);
#   2. generates, for each size, 20 tools per server (size/20 servers) with 1% poisoned and 1%
#      drifted tools, seed 1, into target/bench-corpus/<size>/ (snapshots/ and mcp.lock);
#   3. measures, median of 3 runs each, with all threads and with RAYON_NUM_THREADS=1:
#        check  `mcp-scan check snapshots --lock mcp.lock --format sarif --output /dev/null
#                --fail-on none` (with lock, every rule enabled, SARIF report)
#        lock   `mcp-scan lock snapshots --lock <fresh temp file>` (no previous lock)
#        refresh  `mcp-scan lock snapshots --lock <copy of mcp.lock>`: approving the drift
#               (the copy is made before each run, untimed)
#        lock -c  `mcp-scan lock snapshots --lock mcp.lock --check`: is the committed lock up
#               to date (what CI and a pre-commit hook run; exit 1, as the corpus drifted)
#        show   `mcp-scan show --lock mcp.lock`: the lock's load alone
#        floor  reading and SHA-256-ing every snapshot in parallel over files, with the sha2
#               crate mcp-scan uses (SHA extensions where the CPU has them): examples/floor.rs
#        sha256sum  the same with coreutils (find -print0 | xargs -0 -P<nproc> sha256sum),
#               which uses no SHA extensions: several times slower than `floor`
#      each run after a `sync`, the corpus read into the page cache (or the cache dropped,
#      with --cold) and a second's pause (untimed), and prints wall time, tools/s,
#      MB/s (snapshot bytes / wall time), peak RSS (/usr/bin/time -f %M, the maximum of the 3
#      runs) and the parallel speed-up;
#   4. measures `check` on a tiny repository (3 snapshots, 3 tools each) as a pre-commit hook
#      sees it: the mean of 20 back-to-back runs under one timer (a timer and GNU time around
#      each run would add their own fork and exec, several ms on this VM), and the peak RSS of
#      one more run.
# The machine (nproc, CPU model) and the load average are printed first: on a shared machine,
# note the load next to the figures.
set -euo pipefail

cd "$(dirname "$0")/.."
. bench/page_cache.sh
ROOT=$PWD
SIZES="1000 10000 100000"
HUGE=0
COLD=0
while [ $# -gt 0 ]; do
    case "$1" in
        --huge) HUGE=1 ;;
        --sizes) SIZES="$2"; shift ;;
        --cold) COLD=1 ;;
        -h|--help) sed -n '2,42p' "$0"; exit 0 ;;
        *) echo "bench/run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
[ "$HUGE" = 1 ] && SIZES="$SIZES 1000000"

TOOLS_PER_SERVER=20
RUNS=3
TINY_RUNS=20
CORPUS="$ROOT/target/bench-corpus"
BIN="$ROOT/target/release/mcp-scan"
TIME=/usr/bin/time
NPROC=$(nproc)

[ -x "$TIME" ] || { echo "bench/run.sh: needs GNU time at $TIME" >&2; exit 2; }
needs_root_for_cold "$COLD" bench/run.sh

echo "machine: $NPROC CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ "$COLD" = 1 ]; then echo "page cache: dropped before each run"; else echo "page cache: the corpus read into it before each run"; fi
echo

cargo build --release --quiet --bin mcp-scan --example gen_corpus --example floor
GEN="$ROOT/target/release/examples/gen_corpus"
FLOOR="$ROOT/target/release/examples/floor"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# measure NAME CMD...: runs CMD $RUNS times (env THREADS, if set, becomes RAYON_NUM_THREADS);
# sets WALL (median seconds) and RSS (max KB).
measure() {
    local runs=$1; shift
    local times=() rss=0 i out
    for ((i = 0; i < runs; i++)); do
        out="$TMP/time.$i"
        local start end
        # Untimed set-up before each run (a function name), e.g. a fresh copy of a file.
        [ -n "${PREPARE:-}" ] && "$PREPARE"
        settle "$COLD" "${WARM:-}"
        start=$(date +%s.%N)
        # Every measured command exits with $EXPECT (0 unless set: check runs with --fail-on
        # none): anything else is a failure, never a figure.
        local status=0
        "$TIME" -f %M -o "$out" "$@" >/dev/null 2>"$TMP/stderr" || status=$?
        if [ "$status" != "${EXPECT:-0}" ]; then
            echo "bench/run.sh: failed (exit $status): $*" >&2
            cat "$TMP/stderr" "$out" >&2
            exit 1
        fi
        end=$(date +%s.%N)
        times+=("$(echo "$end - $start" | bc -l)")
        local m
        m=$(grep -E '^[0-9]+$' "$out" | tail -1)
        [ "$m" -gt "$rss" ] && rss=$m
    done
    WALL=$(printf '%s\n' "${times[@]}" | sort -g | awk -v n="$runs" 'NR == int((n + 1) / 2)')
    RSS=$rss
}

row() { # label size bytes wall rss wall1
    local label=$1 size=$2 bytes=$3 wall=$4 rss=$5 wall1=$6
    printf '| %-9s | %9s | %8.3f | %10.0f | %7.1f | %7.0f | %9.3f | %7.2fx |\n' \
        "$label" "$size" "$wall" "$(echo "$size / $wall" | bc -l)" \
        "$(echo "$bytes / 1000000 / $wall" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
        "$wall1" "$(echo "$wall1 / $wall" | bc -l)"
}

echo "| what      |     tools | wall (s) |    tools/s |    MB/s | RSS(MB) | 1 thr (s) | speed-up |"
echo "|-----------|----------:|---------:|-----------:|--------:|--------:|----------:|---------:|"
for size in $SIZES; do
    dir="$CORPUS/$size"
    servers=$((size / TOOLS_PER_SERVER))
    if [ ! -f "$dir/mcp.lock" ] || [ "$(find "$dir/snapshots" -name '*.json' | wc -l)" != "$servers" ]; then
        "$GEN" --servers "$servers" --tools "$TOOLS_PER_SERVER" --seed 1 \
            --poisoned 0.01 --drifted 0.01 --out "$dir" 2>"$TMP/gen.err" \
            || { cat "$TMP/gen.err" >&2; exit 1; }
    fi
    bytes=$(find "$dir/snapshots" -name '*.json' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
    snaps="$dir/snapshots"
    WARM=$dir

    # A 100k-tool lock is ~370 MB, over the default 64 MiB input cap.
    check=("$BIN" check "$snaps" --lock "$dir/mcp.lock" --format sarif --output /dev/null
        --fail-on none --max-file-size 16GiB)
    measure $RUNS "${check[@]}"; w=$WALL r=$RSS
    measure $RUNS env RAYON_NUM_THREADS=1 "${check[@]}"; w1=$WALL
    row check "$size" "$bytes" "$w" "$r" "$w1"

    fresh="$TMP/fresh.lock"
    lock=(sh -c 'rm -f "$1"; exec "$2" lock "$3" --lock "$1" --approved-by bench --max-file-size 16GiB' _ "$fresh" "$BIN" "$snaps")
    measure $RUNS "${lock[@]}"; w=$WALL r=$RSS
    measure $RUNS env RAYON_NUM_THREADS=1 "${lock[@]}"; w1=$WALL
    row lock "$size" "$bytes" "$w" "$r" "$w1"

    # What a reviewer runs to approve drift: refreshing the committed lock, over a copy of it
    # made before each run (untimed).
    refreshed="$TMP/refreshed.lock"
    copy_lock() { cp "$dir/mcp.lock" "$refreshed"; }
    refresh=("$BIN" lock "$snaps" --lock "$refreshed" --approved-by bench --max-file-size 16GiB)
    PREPARE=copy_lock measure $RUNS "${refresh[@]}"; w=$WALL r=$RSS
    PREPARE=copy_lock measure $RUNS env RAYON_NUM_THREADS=1 "${refresh[@]}"; w1=$WALL
    row refresh "$size" "$bytes" "$w" "$r" "$w1"

    # What CI and a pre-commit hook run: is the committed lock up to date? The corpus's
    # drifted tools make the answer no (exit 1).
    lock_check=("$BIN" lock "$snaps" --lock "$dir/mcp.lock" --check --max-file-size 16GiB)
    EXPECT=1 measure $RUNS "${lock_check[@]}"; w=$WALL r=$RSS
    EXPECT=1 measure $RUNS env RAYON_NUM_THREADS=1 "${lock_check[@]}"; w1=$WALL
    row "lock -c" "$size" "$bytes" "$w" "$r" "$w1"

    # The lock's load alone.
    show=("$BIN" show --lock "$dir/mcp.lock" --max-file-size 16GiB)
    measure $RUNS "${show[@]}"; w=$WALL r=$RSS
    measure $RUNS env RAYON_NUM_THREADS=1 "${show[@]}"; w1=$WALL
    row show "$size" "$bytes" "$w" "$r" "$w1"

    measure $RUNS "$FLOOR" "$snaps"; w=$WALL r=$RSS
    measure $RUNS env RAYON_NUM_THREADS=1 "$FLOOR" "$snaps"; w1=$WALL
    row floor "$size" "$bytes" "$w" "$r" "$w1"

    coreutils=(sh -c 'find "$1" -name "*.json" -print0 | xargs -0 -n 256 -P "$2" sha256sum' _ "$snaps" "$NPROC")
    measure $RUNS "${coreutils[@]}"; w=$WALL r=$RSS
    coreutils1=(sh -c 'find "$1" -name "*.json" -print0 | xargs -0 -n 256 -P 1 sha256sum' _ "$snaps")
    measure $RUNS "${coreutils1[@]}"; w1=$WALL
    row sha256sum "$size" "$bytes" "$w" "$r" "$w1"
done

# A pre-commit hook's view: a repository with 3 small snapshots and their lock.
WARM=
tiny="$TMP/tiny"
"$GEN" --servers 3 --tools 3 --seed 2 --poisoned 0 --drifted 0 --out "$tiny" 2>/dev/null
tiny_check=("$BIN" check "$tiny/snapshots" --lock "$tiny/mcp.lock" --fail-on none)
measure 1 "${tiny_check[@]}" # the peak RSS (and a warm page cache)
start=$(date +%s.%N)
for ((i = 0; i < TINY_RUNS; i++)); do
    "${tiny_check[@]}" >/dev/null || { echo "bench/run.sh: failed: ${tiny_check[*]}" >&2; exit 1; }
done
end=$(date +%s.%N)
WALL=$(echo "($end - $start) / $TINY_RUNS" | bc -l)
echo
printf 'tiny repository (3 snapshots, 9 tools): check %.1f ms wall (mean of %d), %.1f MB RSS\n' \
    "$(echo "$WALL * 1000" | bc -l)" "$TINY_RUNS" "$(echo "$RSS / 1024" | bc -l)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
