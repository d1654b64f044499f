#!/usr/bin/env python3
"""A misbehaving MCP stdio server for mcp-scan's record tests.

Usage: fake_server.py MODE. Writes its pid (and its helper's, in `silent` mode) to the file
named by $PID_FILE, one per line, so the test can check that nothing outlives the recording.
Modes: silent, endless-cursor, repeated-cursor, garbage, exit-early, huge, good.
"""
import json
import os
import subprocess
import sys

mode = sys.argv[1]
pids = [os.getpid()]
if mode == "silent":
    # A grandchild, as npx starts one: it must die with the group.
    helper = subprocess.Popen(["sleep", "300"])
    pids.append(helper.pid)
with open(os.environ["PID_FILE"], "w") as f:
    f.write("\n".join(str(p) for p in pids) + "\n")

if mode == "exit-early":
    print("fatal: missing configuration", file=sys.stderr)
    sys.exit(3)


def reply(message_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


page = 0
for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    if mode == "silent" or "id" not in message:
        continue
    if method == "initialize":
        if mode == "garbage":
            sys.stdout.write("Server starting on stdio...\n")
            sys.stdout.flush()
        reply(message["id"], {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1.0.0"},
        })
    elif method == "tools/list":
        page += 1
        tool = {"name": f"tool_{page}", "inputSchema": {"type": "object"}, "x-vendor": True}
        result = {"tools": [tool]}
        if mode == "endless-cursor":
            result["nextCursor"] = f"page-{page}"
        elif mode == "repeated-cursor":
            result["nextCursor"] = "same"
        elif mode == "huge":
            tool["description"] = "x" * 2_000_000
        elif mode == "good" and page == 1:
            result["nextCursor"] = "second"
        reply(message["id"], result)
