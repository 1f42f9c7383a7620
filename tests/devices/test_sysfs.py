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
