"""Processes of the benchmark: the sandbox Keeper, servers started and stopped by
pid, and their memory and CPU read from /proc (Linux)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (a wrapper such as npx may fork)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def _status_kb(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kb(pid: int) -> int:
    """Resident set of ``pid`` and its descendants, in KiB."""
    return sum(_status_kb(p, "VmRSS") for p in descendants(pid))


def peak_rss_kb(pid: int) -> int:
    """Peak resident set (VmHWM) of ``pid`` and its descendants since the last reset."""
    return sum(_status_kb(p, "VmHWM") for p in descendants(pid))


def reset_peak(pid: int) -> bool:
    """Resets VmHWM to the current RSS (``5 > /proc/PID/clear_refs``); False when not allowed."""
    ok = True
    for p in descendants(pid):
        try:
            Path(f"/proc/{p}/clear_refs").write_text("5")
        except OSError:
            ok = False
    return ok


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` and its live descendants."""
    total = 0
    for p in descendants(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / CLK_TCK


def stop(proc: subprocess.Popen, grace: float = 5.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds; this process only."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def add_binary_options(ap) -> None:
    """``--herald`` and ``--sandbox`` (default: $HERALD_BIN / $SANDBOX_BIN, else the debug builds)."""
    root = Path(__file__).resolve().parents[2]
    ap.add_argument("--herald", default=os.environ.get("HERALD_BIN", str(root / "target/debug/lorebase-herald")))
    ap.add_argument("--sandbox", default=os.environ.get("SANDBOX_BIN", str(root / "target/debug/lorebase-sandbox")))


class Sandbox:
    """The sandbox Keeper on an ephemeral loopback port, with API keys."""

    def __init__(self, binary: Path, log: Path):
        self.log = open(log, "wb")
        self.proc = subprocess.Popen([str(binary), "--port", "0", "--auth", "api_key", "--seed", "9"],
                                     stdout=subprocess.PIPE, stderr=self.log)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        if not line.startswith("LOREBASE_SANDBOX_READY "):
            stop(self.proc)
            raise RuntimeError(f"the sandbox did not start (see {log})")
        ready = json.loads(line.split(" ", 1)[1])
        self.url = ready["url"]
        self.key = next(k["key"] for k in ready["keys"] if k["principal"] == "agt_reader")

    def close(self) -> None:
        stop(self.proc)
        self.log.close()
