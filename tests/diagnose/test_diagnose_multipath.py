"""diagnose on dm-multipath (issue 16): a map whose I/O goes over one path is flagged; a spread map is not,
and a map's paths are never reported as stripe members. The captures are real: recorded inside the lab
guest over two emulated paths to one volume (tests/data/diagnose/lab_multipath.recipe.py, README there)."""

from __future__ import annotations

import json
from pathlib import Path

from support.diagnose_testbed import replay

DATA = Path(__file__).parents[1] / "data" / "diagnose"


def _kinds(diagnosis: dict) -> set[str]:  # type: ignore[type-arg]
    return {f["kind"] for f in diagnosis["findings"]}


def test_one_path_map_is_flagged_with_its_failover_grouping() -> None:
    again = replay(DATA / "lab_multipath_one_path.jsonl")
    found = [f for f in again["findings"] if f["kind"] == "multipath_one_path"]
    assert [f["device"] for f in found] == ["dm-0"]
    m = found[0]["measurements"]
    assert m["paths"] == 2 and m["busiest_path_share"] >= 0.9 and m["path_groups"] == 2 and m["active_paths"] == 1
    assert any("2 path group(s)" in e and "standby" in e for e in found[0]["evidence"])
    assert "path_grouping_policy multibus" in found[0]["recommendation"]
    # the one path's cap holds the map; it is not reported as queue-depth bound, nor as a stripe
    assert not _kinds(again) & {"queue_depth_bound", "stripe_imbalance", "stripe_slow_member"}
    live = json.loads((DATA / "lab_multipath_one_path.live.json").read_text())
    assert [f for f in live["findings"] if f["kind"] == "multipath_one_path"] == found  # as printed in the guest
    assert again["devices"] == live["devices"]


def test_spread_map_is_not_flagged_and_its_paths_are_paths() -> None:
    again = replay(DATA / "lab_multipath_spread.jsonl")
    assert not _kinds(again) & {"multipath_one_path", "stripe_imbalance", "stripe_slow_member"}
    roles = {d["device"]: (d["role"], d["parent"]) for d in again["devices"]}
    assert roles["vda"] == roles["vdb"] == ("path", "dm-0") and roles["dm-0"][0] == "top"
    paths = [d["iops"] for d in again["devices"] if d["role"] == "path"]
    assert min(paths) > 0.4 * sum(paths)  # round-robin: both paths carry about half
    assert again == json.loads((DATA / "lab_multipath_spread.live.json").read_text()) | {"source": again["source"]}
