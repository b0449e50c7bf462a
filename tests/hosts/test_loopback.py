"""Nothing leaves loopback: every host run of the suite is traced (strace: connect, sendto,
sendmsg, sendmmsg of the host and all its children), and every internet address it reached is a
loopback one. A host that phones home, checks for updates or even resolves a name outside (a DNS
query to the machine's resolver) fails here; the settings that keep each host in are in
hostrun.py (Codex needs its plugins, apps, model discovery and in-app updates turned off)."""

from __future__ import annotations

import pytest

import hostrun
from conftest import SCENARIOS


@pytest.mark.parametrize("scenario", [s.name for s in SCENARIOS])
def test_nothing_leaves_loopback(runs, scenario):
    run, _ = runs.get(scenario)
    outside = [a for a in run.destinations if not hostrun.is_loopback(a)]
    assert not outside, f"{scenario} reached {outside}"
    assert run.destinations, f"{scenario}: no connection traced at all (is strace tracing?)"
