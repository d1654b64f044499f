# Sourced by bench/run.sh and bench/ab.sh: the state each timed run starts from.
#
# settle COLD DIR: flushes dirty pages (a 100k lock run writes 370 MB, and its writeback
# landing in the next run's time moved lock figures by up to a second); then, with COLD=1,
# empties the page cache (root only), else reads every file under DIR into it (nothing with DIR
# empty); then pauses a second (without it, session 22's lock pairs still differed by half a
# second of system time). Untimed. The cache is set because this development VM evicts files
# within a minute or two: left alone, the first of a command's runs read from disk and the
# others mostly did not.
settle() {
    local cold=$1 dir=$2
    sync
    if [ "$cold" = 1 ]; then
        echo 1 >/proc/sys/vm/drop_caches
    elif [ -n "$dir" ]; then
        find "$dir" -type f -print0 | xargs -0 cat >/dev/null
    fi
    sleep 1
}

# needs_root_for_cold COLD SCRIPT: fails with a message when COLD=1 and the page cache cannot
# be dropped.
needs_root_for_cold() {
    if [ "$1" = 1 ] && ! [ -w /proc/sys/vm/drop_caches ]; then
        echo "$2: --cold needs to write /proc/sys/vm/drop_caches (run as root)" >&2
        exit 2
    fi
}
