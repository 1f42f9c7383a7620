"""dbbench.evidence: the database counters' deltas, the devices a directory sits on, and which binding held."""

from __future__ import annotations

from pathlib import Path

from blockfit.dbbench.evidence import BUSY_QUEUE, BUSY_UTIL_PCT, DB_FIELDS, busy_device, db_delta, most_common, resolve
from blockfit.schema.bench import DeviceEvidence


def test_deltas_never_go_negative_and_the_hit_ratio_is_of_blocks_looked_at() -> None:
    before = dict.fromkeys(DB_FIELDS, 100)
    after = {**before, "blks_read": 130, "blks_hit": 190, "temp_files": 50}   # temp_files went down: a reset
    d = db_delta(before, after)
    assert d.blks_read == 30 and d.blks_hit == 90 and d.temp_files == 0
    assert d.hit_ratio == 90 / 120
    assert db_delta(before, before).hit_ratio is None


def _dev(role: str, util: float, queue: float) -> DeviceEvidence:
    return DeviceEvidence(device=role, role=role, read_iops=1, write_iops=1, mbps=1, r_await_ms=1, w_await_ms=1,
                          aqu_sz=queue, util_pct=util)


def test_only_the_layouts_own_device_busy_with_a_queue_binds() -> None:
    assert busy_device([_dev("member", 100, 30)]) is None
    assert busy_device([_dev("top", BUSY_UTIL_PCT, BUSY_QUEUE - 0.1)]) is None
    top = _dev("top", BUSY_UTIL_PCT, BUSY_QUEUE)
    assert busy_device([_dev("member", 100, 30), top]) is top


def test_the_most_common_binding() -> None:
    assert most_common(["cpu", "iops_cap", "cpu"]) == "cpu" and most_common([]) is None


def test_a_directory_resolves_to_its_mount(tmp_path: Path) -> None:
    info = resolve(tmp_path, "A")
    assert info.label == "A" and info.dir == str(tmp_path)
    assert str(tmp_path.resolve()).startswith(info.mount_point.rstrip("/") + "/") or info.mount_point == "?"
    assert set(info.members) <= set(info.devices)
    if info.fs_device is not None:
        assert info.fs_device in info.devices or not info.devices
