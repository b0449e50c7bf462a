"""Bodies that expand in memory.

`benches/big_arguments.py --assert`: 64 connections each send a 1 MiB
`tools/call` whose arguments hold 524,000 zeros, all finishing at once; and 64
just under the guard's bound of JSON values (an array, an object). Herald's
peak RSS stays under 400 MB and falls under 100 MB within 20 s, with nothing
else happening. Then, with the Python SDK: a call past the bound gets a tool
error the model can act on, and a legit 1 MiB write still reaches Keeper."""

from __future__ import annotations


import pytest

from conftest import http_session, run_bench, text_of

MAX_JSON_VALUES = 50_000  # server/src/http/guard/probe.rs


def test_64_bodies_of_524000_zeros_stay_under_400_mb(binaries):
    result = run_bench(binaries, "big_arguments.py")
    # Refused by the guard's probe before rmcp builds a tree: each gets the tool error.
    assert result["guard_tool_errors"] == 64, result
    assert result["rss_mb"]["peak"] < 400 and result["fell_under_after_mb_in_s"] is not None, result


@pytest.mark.parametrize("shape", ["array", "object"])
def test_64_bodies_just_under_the_bound_stay_under_400_mb(binaries, shape):
    # These pass the guard: rmcp parses them and the tool answers (its own error).
    result = run_bench(binaries, "big_arguments.py", "--values", str(MAX_JSON_VALUES - 50), "--shape", shape)
    assert result["statuses"] == {"200": 64} and result["guard_tool_errors"] == 0, result


def test_256_bodies_just_under_the_bound_share_one_budget(binaries):
    # Each passes the per-request bound, but together they would hold ~1 GB of parsed trees
    # (980 MB peak before the budget of values in flight): large requests now reserve their
    # values (server/src/http/guard/budget.rs) and wait their turn; every one is answered.
    result = run_bench(binaries, "big_arguments.py", "--connections", "256", "--values", str(MAX_JSON_VALUES - 50))
    assert result["statuses"] == {"200": 256} and result["guard_tool_errors"] == 0, result
    assert result["rss_mb"]["peak"] < 400, result


@pytest.mark.anyio
async def test_a_call_past_the_bound_gets_a_tool_error_and_a_1_mib_write_passes(sandbox, http_herald_factory):
    herald = http_herald_factory(sandbox.url, env={"LOREBASE__HERALD__HTTP__ALLOW_ANONYMOUS": "true"})
    async with http_session(herald.url) as session:
        before = sandbox.requests()
        rows = [{"code": f"S-{i}", "level": "high"} for i in range(MAX_JSON_VALUES // 5 + 1)]  # 5 values each
        result = await session.call_tool(
            "lorebase_execute", {"operation": "flag_supplier_risk", "parameters": {"rows": rows}}
        )
        text = text_of(result)
        assert result.is_error, text
        assert text.startswith("[bad-arguments] the request holds "), text
        assert f"at most {MAX_JSON_VALUES}" in text, text
        assert text.splitlines()[-1].startswith("next: split the change into several calls"), text
        assert sandbox.requests() == before
        # A write of 1 MiB in few values (a long text) passes the guard and reaches Keeper.
        note = "n" * (1_000_000)
        result = await session.call_tool(
            "lorebase_execute",
            {"operation": "flag_supplier_risk", "parameters": {"supplier_code": "S-1001", "level": "high", "note": note}},
        )
        assert "the request holds" not in text_of(result), text_of(result)[:300]
        assert sandbox.requests() > before
