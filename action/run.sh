#!/usr/bin/env bash
# The scan step of action.yml. Inputs arrive only as MCP_SCAN_* environment variables (never
# interpolated into the script), GitHub's files as GITHUB_OUTPUT / GITHUB_STEP_SUMMARY.
#
# It runs `mcp-scan check` once for the SARIF log (whose exit code is the verdict), once in the
# chosen format for the job log, once as Markdown for the job summary, and, with a base lock,
# appends `mcp-scan diff --base` to the summary (its exit code counts too: it screens the
# definitions the lock change approves, which may not be among the scanned snapshots). It always
# exits 0 after writing the outputs `sarif-file` and `exit-code`: a later step uploads the SARIF
# even when the scan failed, then fails the job with the saved code.
set -uo pipefail

: "${GITHUB_OUTPUT:?}" "${GITHUB_STEP_SUMMARY:?}" "${RUNNER_TEMP:?}"
sarif="$RUNNER_TEMP/mcp-scan.sarif"
rm -f "$sarif"

global=()
[[ -n "${MCP_SCAN_CONFIG:-}" ]] && global+=(--config "$MCP_SCAN_CONFIG")
# What both `check` and `diff --base` take.
common=()
[[ -n "${MCP_SCAN_LOCK:-}" ]] && common+=(--lock "$MCP_SCAN_LOCK")
[[ -n "${MCP_SCAN_FAIL_ON:-}" ]] && common+=(--fail-on "$MCP_SCAN_FAIL_ON")
# Whitespace-separated paths; no glob expansion, so a path is passed exactly as written.
set -f
read -r -a paths <<< "${MCP_SCAN_PATHS:-}"
set +f

code=0
mcp-scan "${global[@]}" check "${paths[@]}" "${common[@]}" --format sarif --output "$sarif" || code=$?

format="${MCP_SCAN_FORMAT:-github}"
if [[ "$format" != sarif ]]; then
  mcp-scan "${global[@]}" check "${paths[@]}" "${common[@]}" --format "$format" --color always || true
fi

mcp-scan "${global[@]}" check "${paths[@]}" "${common[@]}" --format markdown >> "$GITHUB_STEP_SUMMARY" || true

if [[ -n "${MCP_SCAN_BASE_LOCK:-}" ]]; then
  review="$RUNNER_TEMP/mcp-scan-review.txt"
  review_code=0
  mcp-scan "${global[@]}" --color never diff --base "$MCP_SCAN_BASE_LOCK" "${common[@]}" \
    > "$review" 2>&1 || review_code=$?
  {
    printf '\n### Approvals in this change (compared with `%s`)\n\n<pre>\n' "${MCP_SCAN_BASE_LOCK//\`/}"
    # Tool text is untrusted: escape it so it cannot inject HTML or Markdown into the summary.
    sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' "$review"
    printf '</pre>\n'
  } >> "$GITHUB_STEP_SUMMARY"
  cat "$review"
  # A poisoned approval (1) or an unreadable base lock (2) fails the job, unless the scan
  # already failed.
  if [[ "$code" == 0 ]]; then
    code=$review_code
  fi
fi

if [[ -s "$sarif" ]]; then
  echo "sarif-file=$sarif" >> "$GITHUB_OUTPUT"
else
  echo "sarif-file=" >> "$GITHUB_OUTPUT"
fi
echo "exit-code=$code" >> "$GITHUB_OUTPUT"
exit 0
