"""sysfs reader: this host's real tree, and an iSCSI disk's sysfs layout (no iSCSI initiator here)."""

from __future__ import annotations

import os
from pathlib import Path

from blockfit.devices import sysfs


def test_this_hosts_block_devices() -> None:
    topo = sysfs.read_topology()
    assert topo
    for dev in topo.values():
        assert dev.dev and ":" in dev.dev
        if dev.kind == "partition":
            assert dev.disk in topo and dev.start_sector is not None
        else:
            assert dev.queue is not None and dev.queue.logical_block_size in (512, 1024, 2048, 4096)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


def test_iscsi_disk_and_its_partition(tmp_path: Path) -> None:
    real = tmp_path / "devices/platform/host3/session1/target3:0:0/3:0:0:1/block/sdb"
    _write(real / "dev", "8:16")
    _write(real / "size", "2097152")
    _write(real / "device/queue_depth", "32")
    _write(real / "queue/scheduler", "none [mq-deadline]")
    _write(real / "queue/nr_requests", "64")
    (real / "holders").mkdir()
    _write(real / "sdb1/partition", "1")
    _write(real / "sdb1/dev", "8:17")
    _write(real / "sdb1/start", "2048")
    _write(tmp_path / "class/iscsi_session/session1/targetname", "iqn.2015-12.com.oracleiaas:vol1")
    _write(tmp_path / "class/scsi_host/host3/can_queue", "128")
    (tmp_path / "class/block").mkdir(parents=True)
    os.symlink(real, tmp_path / "class/block/sdb")
    os.symlink(real / "sdb1", tmp_path / "class/block/sdb1")

    topo = sysfs.read_topology(sys_root=tmp_path)
    q = topo["sdb"].queue
    assert q is not None and q.scheduler == "mq-deadline" and q.nr_requests == 64 and q.device_queue_depth == 32
    assert (q.iscsi_session, q.iscsi_target, q.host_can_queue) == ("session1", "iqn.2015-12.com.oracleiaas:vol1", 128)
    assert topo["sdb1"].kind == "partition" and topo["sdb1"].disk == "sdb" and topo["sdb1"].start_sector == 2048
    assert sysfs.whole_disk("sdb1", topo) == "sdb"


def test_device_numbers_name_their_devices() -> None:
    """Every device sysfs lists is found again by its number; a tmpfs file's anonymous number finds none."""
    topo = sysfs.read_topology()
    for dev in topo.values():
        assert dev.dev is not None
        major, minor = (int(x) for x in dev.dev.split(":"))
        number = os.makedev(major, minor)
        assert sysfs.majmin(number) == dev.dev
        assert sysfs.name_of(number) == sysfs.name_of(dev.dev) == dev.name
    assert sysfs.name_of("0:9999") is None and sysfs.dev_dir(os.makedev(0, 9999)) is None


def test_a_lookup_in_a_sysfs_tree_of_its_own(tmp_path: Path) -> None:
    real = tmp_path / "devices/virtual/block/dm-7"
    _write(real / "dev", "253:7")
    (tmp_path / "dev/block").mkdir(parents=True)
    (tmp_path / "dev/block/253:7").symlink_to(real)
    assert sysfs.name_of("253:7", tmp_path) == "dm-7" and sysfs.dev_dir("253:8", tmp_path) is None
    assert sysfs.shown("dm-7", "queue/scheduler") == "/sys/block/dm-7/queue/scheduler"
