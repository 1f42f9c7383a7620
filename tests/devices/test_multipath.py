"""dm-multipath state from `dmsetup table` and `dmsetup status`: path groups, selectors, path states."""

from __future__ import annotations

from blockfit.devices.multipath import is_multipath, parse
from blockfit.devices.sysfs import BlockDevice


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
