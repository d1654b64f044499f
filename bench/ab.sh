#!/usr/bin/env bash
# Compares two mcp-scan binaries on one command, in alternating pairs, and checks that they
# write the same bytes.
#
# Usage: bench/ab.sh [--size N] [--pairs N] [--tmpfs] [--cold] OLD NEW COMMAND
#
#   OLD, NEW   the two binaries (e.g. a copy of target/release/mcp-scan built at the base
#              commit, and the one built now)
#   COMMAND    check | lock | refresh | lock-c | show, run as bench/run.sh runs them on the
#              corpus target/bench-corpus/<size>/ (which bench/run.sh generates)
#   --size N   the corpus (default 100000)
#   --pairs N  how many pairs (default 5)
#   --tmpfs    write the lock, the SARIF log and the refreshed copy to /dev/shm instead of a
#              temporary directory on the disk: no writeback noise, no fsync cost
#   --cold     start each run with an empty page cache (root only), instead of with the
#              corpus read into it (see bench/page_cache.sh)
#
# Why: on a shared VM one binary's runs vary by 10-30% from minute to minute, more than most
# changes move them, so a change is judged against its base in pairs run back to back. Each
# pair runs in the other order from the last, and each run starts from the same state
# (bench/page_cache.sh: dirty pages flushed, the page cache warm or empty, a second's pause).
# It prints every run (wall, user, system seconds and peak RSS) and each binary's median wall
# time. Lock timestamps are pinned (SOURCE_DATE_EPOCH), and the two binaries' outputs (the
# SARIF log, the lock written) are compared byte for byte after the first pair: a difference
# stops the script.
set -euo pipefail

cd "$(dirname "$0")/.."
. bench/page_cache.sh
SIZE=100000
PAIRS=5
TMPFS=0
COLD=0
while [ $# -gt 0 ]; do
    case "$1" in
        --size) SIZE="$2"; shift ;;
        --pairs) PAIRS="$2"; shift ;;
        --tmpfs) TMPFS=1 ;;
        --cold) COLD=1 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        -*) echo "bench/ab.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
[ $# -eq 3 ] || { sed -n '4p' "$0" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2") COMMAND=$3
for bin in "$OLD" "$NEW"; do
    [ -x "$bin" ] || { echo "bench/ab.sh: not an executable: $bin" >&2; exit 2; }
done
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench/ab.sh: needs GNU time at $TIME" >&2; exit 2; }
needs_root_for_cold "$COLD" bench/ab.sh
DIR="target/bench-corpus/$SIZE"
[ -f "$DIR/mcp.lock" ] || { echo "bench/ab.sh: no corpus in $DIR: run bench/run.sh --sizes $SIZE" >&2; exit 2; }
DIR=$(realpath "$DIR")

if [ "$TMPFS" = 1 ]; then
    OUT=$(mktemp -d /dev/shm/mcp-scan-ab.XXXXXX)
else
    OUT=$(mktemp -d)
fi
trap 'rm -rf "$OUT"' EXIT
export SOURCE_DATE_EPOCH=1700000000

# run LABEL BIN: one timed run of COMMAND with BIN, its output in $OUT/LABEL.out.
run() {
    local label=$1 bin=$2 out="$OUT/$1.out" expect=0 cmd
    case "$COMMAND" in
        check) cmd=("$bin" check "$DIR/snapshots" --lock "$DIR/mcp.lock" --format sarif
                --output "$out" --fail-on none --max-file-size 16GiB) ;;
        lock) rm -f "$out"
            cmd=("$bin" lock "$DIR/snapshots" --lock "$out" --approved-by bench --max-file-size 16GiB) ;;
        refresh) cp "$DIR/mcp.lock" "$out"
            cmd=("$bin" lock "$DIR/snapshots" --lock "$out" --approved-by bench --max-file-size 16GiB) ;;
        lock-c) expect=1; : >"$out"
            cmd=("$bin" lock "$DIR/snapshots" --lock "$DIR/mcp.lock" --check --max-file-size 16GiB) ;;
        show) cmd=("$bin" show --lock "$DIR/mcp.lock" --max-file-size 16GiB --format json) ;;
        *) echo "bench/ab.sh: unknown command $COMMAND" >&2; exit 2 ;;
    esac
    settle "$COLD" "$DIR"
    local status=0
    if [ "$COMMAND" = show ]; then
        "$TIME" -f "%e %U %S %M" -o "$OUT/time" "${cmd[@]}" >"$out" 2>"$OUT/stderr" || status=$?
    else
        "$TIME" -f "%e %U %S %M" -o "$OUT/time" "${cmd[@]}" >/dev/null 2>"$OUT/stderr" || status=$?
    fi
    if [ "$status" != "$expect" ]; then
        echo "bench/ab.sh: $label exited $status: ${cmd[*]}" >&2
        cat "$OUT/stderr" >&2
        exit 1
    fi
    read -r wall user sys rss < <(grep -E '^[0-9.]+ ' "$OUT/time" | tail -1)
    printf '%-4s %7.2f s wall %7.2f s user %6.2f s sys %6.0f MB\n' "$label" "$wall" "$user" "$sys" "$((rss / 1024))"
    echo "$wall" >>"$OUT/$label.walls"
}

echo "corpus: $DIR ($COMMAND, $PAIRS pairs, outputs in $OUT)"
echo "old: $OLD"
echo "new: $NEW"
for ((pair = 0; pair < PAIRS; pair++)); do
    if ((pair % 2 == 0)); then
        run old "$OLD"; run new "$NEW"
    else
        run new "$NEW"; run old "$OLD"
    fi
    if ((pair == 0)) && ! cmp -s "$OUT/old.out" "$OUT/new.out"; then
        echo "bench/ab.sh: the two binaries' outputs differ (kept in $OUT.diff/)" >&2
        mkdir -p "$OUT.diff" && cp "$OUT/old.out" "$OUT/new.out" "$OUT.diff/"
        exit 1
    fi
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "median wall: old $(median "$OUT/old.walls") s, new $(median "$OUT/new.walls") s; outputs identical"
