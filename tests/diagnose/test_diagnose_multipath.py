"""diagnose on dm-multipath (issue 16): a map whose I/O goes over one path is flagged; a spread map is not,
and a map's paths are never reported as stripe members. The captures are real: recorded inside the lab
guest over two emulated paths to one volume (tests/data/diagnose/lab_multipath.recipe.py, README there)."""

from __future__ import annotations

import json
from pathlib import Path

from blockfit.diagnose.multipath import is_multipath, parse
from blockfit.diagnose.sysfs import BlockDevice
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


def test_dmsetup_formats_parse_to_groups_and_path_states() -> None:
    # as the guest kernel printed them (the recipe's paths.txt), plus a failed path and table features
    m = parse("0 524288 multipath 0 0 2 1 round-robin 0 1 1 254:0 1 round-robin 0 1 1 254:16 1",
              "0 524288 multipath 2 1 0 0 2 1 E 0 1 0 254:0 A 0 E 0 1 0 254:16 A 0", "dm-0", "bfmp",
              {"254:0": "vda", "254:16": "vdb"})
    assert m is not None and [len(g.paths) for g in m.groups] == [1, 1]
    assert [p.name for p in m.active_paths] == ["vda"]
    m = parse("0 100 multipath 1 queue_if_no_path 0 1 1 service-time 0 2 2 8:16 1 1 8:32 1 1",
              "0 100 multipath 2 0 0 0 1 1 A 0 2 2 8:16 A 0 0 1 8:32 F 3 0 1", "dm-1")
    assert m is not None and m.groups[0].selector == "service-time"
    assert [p.dev for p in m.active_paths] == ["8:16"]
    assert parse("0 100 linear 8:16 0", "0 100 linear", "dm-2") is None


def test_multipath_is_known_by_uuid_or_by_table() -> None:
    by_uuid = BlockDevice(name="dm-3", kind="dm", dm_uuid="mpath-3600a0980")
    lvm = BlockDevice(name="dm-4", kind="dm", dm_uuid="LVM-abc")
    assert is_multipath(by_uuid, []) and not is_multipath(lvm, [])
    m = parse("0 1 multipath 0 0 1 1 round-robin 0 2 1 8:0 1 8:16 1",
              "0 1 multipath 2 0 0 0 1 1 A 0 2 0 8:0 A 0 8:16 A 0", "dm-4")
    assert m is not None and is_multipath(lvm, [m])
