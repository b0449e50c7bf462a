"""Runs an MCP server over stdio and logs every JSON-RPC line between host and server (stdlib only).

  python3 tee.py LOG COMMAND [ARG...]

The host starts this in place of the server; each line it writes to the server, and each the
server writes back, is relayed unchanged and appended to LOG as {"dir": "in"|"out", "msg": ...}
("in": host to server). So a test reads what a host really sent to Herald (arguments it added
or stripped) and what Herald answered. The server's stderr passes through; this exits with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading


def main() -> int:
    log_path, cmd = sys.argv[1], sys.argv[2:]
    log = open(log_path, "a", buffering=1)
    lock = threading.Lock()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def record(direction: str, raw: bytes) -> None:
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = raw.decode("utf-8", "replace")
        with lock:
            log.write(json.dumps({"dir": direction, "msg": msg}) + "\n")

    def host_to_server() -> None:
        for raw in iter(sys.stdin.buffer.readline, b""):
            record("in", raw)
            proc.stdin.write(raw)
            proc.stdin.flush()
        proc.stdin.close()

    threading.Thread(target=host_to_server, daemon=True).start()
    for raw in iter(proc.stdout.readline, b""):
        record("out", raw)
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main())
