#!/usr/bin/env python3
"""A fake MCP Streamable HTTP server for mcp-scan's record tests.

Usage: fake_http_server.py MODE PORT_FILE. Listens on 127.0.0.1 on a port the OS picks, writes
it to PORT_FILE, and exits by itself after 30 seconds should the test fail to stop it.
Every request must carry `Authorization: Bearer $FAKE_TOKEN`; after `initialize`, the session
id it handed out and `MCP-Protocol-Version`.
Modes: json (answers application/json), sse (answers text/event-stream, with a notification and
a ping before the answer), paginate (three pages), silent (never answers), wrong-type
(answers text/html), repeated-cursor; modern (2026-07-28: answers `server/discover`, then
stateless `tools/list` with `_meta`, two pages, and refuses `initialize`), modern-incomplete
(a `tools/list` with `resultType: input_required`). Other modes answer `server/discover` with
"method not found", as servers from before 2026-07-28 do.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

mode, port_file = sys.argv[1], sys.argv[2]
TOKEN = "Bearer " + os.environ["FAKE_TOKEN"]
SESSION = "session-1234"
VERSION = "2025-06-18"
MODERN = "2026-07-28"
pages = {"count": 0}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, status, content_type=None, body=b"", headers=()):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_DELETE(self):
        self.send(200 if self.headers.get("Mcp-Session-Id") == SESSION else 404)

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        accept = self.headers.get("Accept", "")
        if self.headers.get("Authorization") != TOKEN:
            return self.send(401)
        if "application/json" not in accept or "text/event-stream" not in accept:
            return self.send(406)
        method = message.get("method")
        if mode.startswith("modern"):
            return self.modern(message)
        if method not in ("initialize", "server/discover") and (
            self.headers.get("Mcp-Session-Id") != SESSION
            or self.headers.get("MCP-Protocol-Version") != VERSION
        ):
            return self.send(400, "text/plain", b"missing session or version header")
        if mode == "silent":
            time.sleep(30)
            return
        if "id" not in message or method is None:
            return self.send(202)  # a notification, or the reply to our ping
        if method == "initialize":
            result = {
                "protocolVersion": VERSION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "fake-http", "version": "1.0.0"},
            }
        elif method == "tools/list":
            pages["count"] += 1
            page = pages["count"]
            result = {"tools": [{"name": f"tool_{page}", "inputSchema": {"type": "object"}}]}
            if mode == "paginate" and page < 3:
                result["nextCursor"] = f"page-{page + 1}"
            elif mode == "repeated-cursor":
                result["nextCursor"] = "same"
        else:
            return self.send(200, "application/json", json.dumps(
                {"jsonrpc": "2.0", "id": message["id"],
                 "error": {"code": -32601, "message": "method not found"}}).encode())
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        headers = [("Mcp-Session-Id", SESSION)] if method == "initialize" else []
        if mode == "wrong-type":
            return self.send(200, "text/html", b"<html>hello</html>", headers)
        if mode == "sse":
            events = [
                ": a comment",
                "event: message\ndata: " + json.dumps(
                    {"jsonrpc": "2.0", "method": "notifications/message",
                     "params": {"level": "info", "data": "hi"}}),
                "data: " + json.dumps({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}),
                # The answer split over two data lines, as SSE allows.
                "id: 7\ndata: " + json.dumps(answer)[:19] + "\ndata: " + json.dumps(answer)[19:],
            ]
            body = "".join(e + "\r\n\r\n" for e in events).encode()
            return self.send(200, "text/event-stream", body, headers)
        self.send(200, "application/json; charset=utf-8", json.dumps(answer).encode(), headers)


    def modern(self, message):
        method = message.get("method")
        meta = message.get("params", {}).get("_meta", {})
        if (
            meta.get("io.modelcontextprotocol/protocolVersion") != MODERN
            or self.headers.get("MCP-Protocol-Version") not in (None, MODERN)
        ):
            return self.send(400, "text/plain", b"missing protocol version")
        if method == "server/discover":
            result = {
                "supportedVersions": [VERSION, MODERN],
                "capabilities": {"tools": {}},
                "ttlMs": 0,
                "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "fake-modern", "version": "2.0.0"}},
            }
        elif method == "tools/list" and self.headers.get("MCP-Protocol-Version") == MODERN:
            cursor = message["params"].get("cursor")
            result = {
                "tools": [{"name": "second" if cursor else "first", "inputSchema": {"type": "object"}}],
                "resultType": "input_required" if mode == "modern-incomplete" else "complete",
                "ttlMs": 1000,
                "cacheScope": "public",
            }
            if not cursor:
                result["nextCursor"] = "2"
        else:
            return self.send(400, "text/plain", b"not a 2026-07-28 request")
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        self.send(200, "application/json", json.dumps(answer).encode())


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Timer(30, lambda: os._exit(0)).start()
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
