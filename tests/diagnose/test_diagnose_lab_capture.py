"""A capture recorded live inside the qemu lab guest: 4-member LVM stripe, one member capped lower.

See tests/data/diagnose/README.md for how it was made. Replaying it must name the capped member and give
exactly the Findings the live run in the guest printed.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.diagnose_testbed import replay

DATA = Path(__file__).parents[1] / "data" / "diagnose"


def test_lab_capture_names_the_slow_member_and_replays_identically() -> None:
    again = replay(DATA / "lab_stripe_slow_member.jsonl")
    live = json.loads((DATA / "lab_stripe_slow_member.live.json").read_text())
    assert again["findings"] == live["findings"]
    assert again["devices"] == live["devices"]
    slow = [f for f in again["findings"] if f["kind"] == "stripe_slow_member"]
    assert [f["device"] for f in slow] == ["vdc"]  # the guest's name for the disk capped at 100 IOPS
    assert "slow member of dm-0" in slow[0]["summary"]
    assert slow[0]["measurements"]["await_ms"] > 10 * slow[0]["measurements"]["others_await_ms"]
    assert not [f for f in again["findings"] if f["kind"] == "queue_depth_bound"]
    roles = {d["device"]: (d["role"], d["parent"]) for d in again["devices"]}
    assert roles["dm-0"][0] == "top" and all(roles[m] == ("member", "dm-0") for m in ("vda", "vdb", "vdc", "vdd"))
