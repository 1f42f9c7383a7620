"""The host's block stack read whole: real loop devices and a partition on this host (root), and each reader of
blockstack against /sys trees shaped as the kernel lays them out (SCSI VPD serial, NVMe, dm tables, iSCSI node
records, ASM names)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from blockfit.devices import dmtable
from blockfit.devices.blockstack import read_stack
from blockfit.devices.iscsi import node_queue_depth
from blockfit.testbed.loopdev import loop_device
from support.inproc import run
from support.systree import GIB, SysTree

root = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("losetup") is None or shutil.which("blockdev") is None,
                          reason="needs root, losetup and blockdev")
MiB = 1024 * 1024


def _one_partition(path: str, size: int) -> None:
    """A one-partition MBR table written by hand (no sfdisk here), then the kernel told to read it; a kernel built
    without partition-table parsers (this one's: no CONFIG_MSDOS_PARTITION) is given the same partition by addpart
    (the BLKPG ioctl partx uses), which makes the same kind of kernel partition device."""
    entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", 2048, size // 512 - 2048)
    with open(path, "r+b") as fh:
        fh.seek(446)
        fh.write(entry + b"\0" * 48 + b"\x55\xaa")
    subprocess.run(["blockdev", "--rereadpt", path], check=True)
    subprocess.run(["udevadm", "settle"], check=False, capture_output=True)
    if not Path(f"/sys/class/block/{Path(path).name}p1").exists() and shutil.which("addpart"):
        subprocess.run(["addpart", path, "1", "2048", str(size // 512 - 2048)], check=True)


def _sysfs_bytes(name: str) -> int:
    return int(Path(f"/sys/class/block/{name}/size").read_text()) * 512


@pytest.mark.slow
@pytest.mark.root
@root
def test_loop_devices_and_a_partition_with_their_sysfs_sizes(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    with loop_device(48 * MiB, name="inspect-a") as a, loop_device(64 * MiB, name="inspect-b", partscan=True) as b:
        _one_partition(b.path, 64 * MiB)
        part = b.name + "p1"
        if not Path(f"/sys/class/block/{part}").exists():
            pytest.skip("this kernel made no partition device")
        mnt = tmp_path / "mnt"
        mnt.mkdir()
        subprocess.run(["mkfs.ext4", "-q", "-F", f"/dev/{part}"], check=True, capture_output=True)
        subprocess.run(["mount", "-o", "noatime", f"/dev/{part}", str(mnt)], check=True)
        try:
            (mnt / "data").write_bytes(b"x" * (4 * MiB))
            os.sync()
            code, out, err = run(["inspect", "--json"], capsys)
            table_code, table, _ = run(["inspect"], capsys)
        finally:
            subprocess.run(["umount", str(mnt)], check=True)
    assert code == 0, err
    inv = json.loads(out)
    nodes = {n["name"]: n for n in inv["devices"]}
    assert nodes[a.name]["size_bytes"] == 48 * MiB and nodes[b.name]["size_bytes"] == 64 * MiB
    for name in (a.name, b.name):
        assert nodes[name]["kind"] == "loop" and nodes[name]["identity"] is None
    assert nodes[part]["kind"] == "partition" and nodes[part]["members"] == [b.name]
    assert nodes[part]["size_bytes"] == 64 * MiB - 2048 * 512
    fs = next(f for f in inv["filesystems"] if f["mount_point"] == str(mnt))
    assert fs["device"] == part and fs["fstype"] == "ext4" and fs["noatime"] is True
    assert fs["used_bytes"] >= 4 * MiB and fs["size_bytes"] <= 64 * MiB   # statvfs of the mount: the file counted
    lay = next(x for x in inv["layouts"] if x["mount_point"] == str(mnt))
    assert lay["spec"] is None and "no cloud identity" in lay["unknown"][0]
    assert table_code == 0 and part in table and "unknown" in table


@pytest.mark.slow
@pytest.mark.root
@root
def test_every_device_of_this_host_has_its_sysfs_size() -> None:
    stack = read_stack()
    assert stack.here and stack.devices
    for name, dev in stack.devices.items():
        assert dev.size_bytes == _sysfs_bytes(name), name


def test_scsi_vpd_serial_nvme_controller_and_virtio(tmp_path: Path) -> None:
    t = SysTree(tmp_path)
    t.scsi_disk("sdb", GIB, "Google", "PersistentDisk", serial="orders-data", hctl="0:0:2:0")
    t.nvme_disk("nvme0n1", GIB, "Amazon Elastic Block Store", "vol0123456789abcdef0")
    hw = read_stack(tmp_path).hardware
    assert (hw["sdb"].vendor, hw["sdb"].model, hw["sdb"].serial, hw["sdb"].hctl, hw["sdb"].lun) == (
        "Google", "PersistentDisk", "orders-data", "0:0:2:0", 0)
    assert (hw["nvme0n1"].model, hw["nvme0n1"].serial, hw["nvme0n1"].nvme_controller) == (
        "Amazon Elastic Block Store", "vol0123456789abcdef0", "nvme0")
    assert hw["sdb"].transport == "scsi" and hw["nvme0n1"].transport == "nvme"


def test_a_malformed_vpd_page_gives_no_serial(tmp_path: Path) -> None:
    t = SysTree(tmp_path)
    real = t.scsi_disk("sdb", GIB, "Msft", "Virtual Disk")
    (real / "device" / "vpd_pg80").write_bytes(b"\x00\x83\x00\x04abcd")   # page 0x83, not the serial page
    assert read_stack(tmp_path).hardware["sdb"].serial is None


def test_dmsetup_table_lines() -> None:
    tables = dmtable.parse_tables("vg-data: 0 4194304 striped 4 128 259:0 2048 259:1 2048 259:2 2048 259:3 2048\n"
                                  "vg-root: 0 1024 linear 8:2 2048\nvg-root: 1024 2048 linear 8:3 2048\n"
                                  "mpatha: 0 2097152 multipath 0 0 1 1 service-time 0 2 1 8:16 1 8:32 1\n"
                                  "No devices found\n")
    data = dmtable.from_table(tables["vg-data"])
    assert data is not None and (data.target, data.stripes, data.stripe_bytes) == ("striped", 4, 65536)
    root_geo = dmtable.from_table(tables["vg-root"])
    assert root_geo is not None and root_geo.target == "linear" and root_geo.stripes is None
    mixed = dmtable.from_table([*tables["vg-data"], *tables["vg-root"]])
    assert mixed is not None and mixed.target == "mixed"
    assert set(tables) == {"vg-data", "vg-root", "mpatha"}


def test_dm_stripe_from_its_queue_sizes() -> None:
    assert dmtable.from_queue(4, 65536, 262144).stripes == 4
    assert dmtable.from_queue(2, 512, 0).target == "linear"           # a linear LV over two PVs
    assert dmtable.from_queue(1, 65536, 65536).target == "linear"     # one member is no stripe
    assert dmtable.from_queue(2, 4096, 4096).target == "linear"       # members' own sizes stacked, not multiplied


def test_iscsi_node_record_queue_depth_and_asm_names(tmp_path: Path) -> None:
    t = SysTree(tmp_path)
    t.iscsi_session("session1", "iqn.2015-12.com.oracleiaas:abc", 64)
    t.scsi_disk("sdb", GIB, "ORACLE", "BlockVolume", hctl="3:0:0:1", session="session1")
    t.partition(tmp_path / "sys/class/block/sdb", "sdb1", 2048, GIB - MiB)
    t.link("oracleasm/DATA01", "../sdb1")
    t.link("disk/by-id/scsi-36000abc", "../../sdb")
    stack = read_stack(tmp_path)
    assert [(s.session, s.queue_depth) for s in stack.sessions] == [("session1", 64)]
    assert stack.sessions[0].queue_depth_source == "/etc/iscsi/nodes/iqn.2015-12.com.oracleiaas:abc/" \
                                                   "169.254.2.2,3260,1/default"
    links = {link.path: (link.device, link.asm) for link in stack.links}
    assert links == {"/dev/oracleasm/DATA01": ("sdb1", True), "/dev/disk/by-id/scsi-36000abc": ("sdb", False)}
    assert node_queue_depth("node.session.queue_depth=32\n# node.session.queue_depth = 1\n") == 32
