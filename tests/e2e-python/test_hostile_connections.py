"""Hostile connection patterns, as bounded benches.

- `benches/never_reading.py`: 64 connections with a 4 KiB receive buffer each
  pipeline 1,000 `tools/list` and never read, at an `http.max_connections` of
  64; a normal client's /healthz and tool call on new connections are each
  answered within 1 s all along (before: every one refused with 503).
- `benches/idle_cycler.py`: one attacker cycling 1,100 (then 2,000) idle
  connections past the limit of 1,024; a normal client's kept-alive
  connection is never closed under it (at most 1 failed call of 34; before:
  17), and `herald_http_connections_open` never passes the limit (before:
  1,069 and 1,659).
"""

from __future__ import annotations

import resource

import pytest
from conftest import run_bench



def test_clients_that_never_read_do_not_lock_others_out(binaries):
    result = run_bench(binaries, "never_reading.py", "--attackers", "64", "--max-connections", "64", "--seconds", "8")
    assert result["attackers"] == 64
    assert result["all_answered_within_1s"], result


@pytest.mark.parametrize("attackers", [1100, 2000])
def test_an_idle_cycler_neither_closes_a_client_between_calls_nor_passes_the_limit(binaries, attackers):
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < attackers + 300:
        pytest.skip(f"the attack needs {attackers + 300} descriptors; the hard limit is {hard}")
    result = run_bench(binaries, "idle_cycler.py", "--attackers", str(attackers), "--calls", "34")
    assert result["failed_calls"] <= 1, result
    assert result["most_connections_open"] <= 1024, result
    # The attack did cycle past the limit.
    assert result["attacker_connections_opened"] > attackers, result
