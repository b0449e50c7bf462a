"""The verdict of a bench run with --check (--assert): its exit code."""

from __future__ import annotations

import sys


def verdict(failed: list[str], herald_running: bool) -> int:
    """0 when no bound was missed and Herald still runs; else 1, with what
    failed (`failed`, then Herald's exit) on stderr."""
    if not herald_running:
        failed = [*failed, "Herald exited"]
    if failed:
        print("FAILED: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0
