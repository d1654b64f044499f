#!/usr/bin/env bash
# Score the recordings of record.sh: how many honest, real tools the scanner flags.
#
#   bench/real_servers/score.sh [--list] [OUT]   (OUT defaults to <repo>/target/real-servers)
#
# A tool counts as flagged when it has at least one finding of category `poisoning` or
# `hidden-content` at severity medium, high or critical. Every such finding on these
# tools is a false positive. --list prints each of those findings.
# Environment: MCP_SCAN (binary, default the release build).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
list=0
out=
for arg in "$@"; do
    case $arg in
        --list) list=1 ;;
        -h | --help) sed -n '2,9p' "${BASH_SOURCE[0]}"; exit 0 ;;
        -*) echo "score.sh: unknown option $arg" >&2; exit 2 ;;
        *) out=$arg ;;
    esac
done
out=${out:-$repo/target/real-servers}
mcp_scan=${MCP_SCAN:-$repo/target/release/mcp-scan}
if [[ ! -d $out/snapshots ]]; then
    echo "score.sh: no $out/snapshots; run record.sh first" >&2
    exit 2
fi
if [[ ! -x $mcp_scan ]]; then
    echo "score.sh: no $mcp_scan; run \`cargo build --release\`" >&2
    exit 2
fi

report=$(mktemp)
trap 'rm -f "$report"' EXIT
# From OUT, so that no mcp.lock or mcp-scan.yaml of the caller's directory applies.
(cd "$out" && "$mcp_scan" --no-config --color never check snapshots --format json --fail-on none) > "$report"

python3 - "$report" "$list" << 'PY'
import collections, json, sys

path, show = sys.argv[1], sys.argv[2] == "1"
with open(path, encoding="utf-8") as f:
    report = json.load(f)
CATEGORIES = {"poisoning", "hidden-content"}
SEVERITIES = {"medium", "high", "critical"}
hits = [
    f for f in report["findings"]
    if f["category"] in CATEGORIES and f["severity"] in SEVERITIES
]
tools = report["summary"]["tools"]
flagged = {(f["server"], f["tool"]) for f in hits if f.get("tool") is not None}
server_level = sum(1 for f in hits if f.get("tool") is None)
share = 100.0 * len(flagged) / tools if tools else 0.0

print(f"servers:       {report['summary']['servers']}")
print(f"tools:         {tools}")
print(f"flagged tools: {len(flagged)} ({share:.2f}%)  "
      "[poisoning or hidden-content, severity medium/high/critical]")
if server_level:
    print(f"  plus {server_level} such findings not on a tool")
print("per rule (findings / tools):")
by_rule = collections.defaultdict(list)
for f in hits:
    by_rule[(f["category"], f["rule"])].append(f)
if not by_rule:
    print("  none")
for (category, rule), fs in sorted(by_rule.items(), key=lambda kv: (-len(kv[1]), kv[0])):
    n_tools = len({(f["server"], f["tool"]) for f in fs if f.get("tool") is not None})
    print(f"  {rule:<32} {category:<15} {len(fs):>4} / {n_tools}")
if show:
    print()
    order = {"critical": 0, "high": 1, "medium": 2}
    for f in sorted(hits, key=lambda f: (f["rule"], f["server"] or "", f.get("tool") or "", order[f["severity"]])):
        msg = " ".join(f["message"].split())[:200]
        print(f"{f['rule']}\t{f['severity']}\t{f['server']}\t{f.get('tool') or '-'}\t{msg}")
PY
