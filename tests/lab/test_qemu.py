"""qemu's command line: each disk's throttle chain (volume, instance, paths) as qemu is given it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from blockfit.lab.disks import Disk, Throttle, create
from blockfit.lab.qemu import VmConfig, command


def _cfg(tmp_path: Path, n: int, instance: Throttle | None) -> VmConfig:
    disks = [Disk(f"m{i}", tmp_path / f"m{i}.raw", 1 << 28, Throttle(f"vol_m{i}", 100 + i, 1_000_000, 262144))
             for i in range(1, n + 1)]
    return VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                    script=tmp_path / "script.sh", disks=disks, instance=instance, console_log=tmp_path / "c.log")


def test_qemu_stacks_a_volume_and_a_shared_instance_throttle_on_every_disk(tmp_path: Path) -> None:
    argv = command(_cfg(tmp_path, 3, Throttle("instance", 250, 2_000_000)))
    joined = " ".join(argv)
    assert "-accel tcg,thread=multi" in joined and "-cpu max" in joined
    groups = [argv[i + 1] for i, a in enumerate(argv) if a == "-object"]
    assert sum(g.startswith("throttle-group,id=instance,") for g in groups) == 1  # one shared instance group
    assert "throttle-group,id=vol_m2,x-iops-total=102,x-bps-total=1000000,x-iops-size=262144" in groups
    nodes = [argv[i + 1] for i, a in enumerate(argv) if a == "-blockdev" and "driver=throttle" in argv[i + 1]]
    assert len(nodes) == 6  # two throttle filter nodes per disk
    for i in range(3):  # the instance node sits on top of the volume node, and the device uses the top node
        assert f"driver=throttle,node-name=d{i}v,throttle-group=vol_m{i + 1},file=d{i}r" in nodes
        assert f"driver=throttle,node-name=d{i}i,throttle-group=instance,file=d{i}v" in nodes
        assert f"virtio-blk-pci,drive=d{i}i,serial=m{i + 1}" in argv


def test_qemu_without_instance_cap_uses_the_volume_node(tmp_path: Path) -> None:
    argv = command(_cfg(tmp_path, 2, None))
    assert "virtio-blk-pci,drive=d1v,serial=m2" in argv
    assert not any("throttle-group=instance" in a for a in argv)


def test_qemu_gives_each_path_its_own_capped_device_over_one_volume_chain(tmp_path: Path) -> None:
    disk = Disk("m1", tmp_path / "m1.raw", 1 << 28, Throttle("vol_m1", 400, 8_000_000), paths=4,
                path_throttle=Throttle("path_m1", 100, 2_000_000))
    cfg = VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                   script=tmp_path / "script.sh", disks=[disk], instance=Throttle("instance", 1000, None),
                   console_log=tmp_path / "c.log")
    argv = command(cfg)
    files = [a for a in argv if a.startswith("driver=file,")]
    assert len(files) == 1  # one image, one chain: file -> volume throttle -> instance throttle
    groups = [argv[i + 1] for i, a in enumerate(argv) if a == "-object"]
    for k in range(1, 5):
        assert f"throttle-group,id=path_m1_{k},x-iops-total=100,x-bps-total=2000000" in groups
        # each path's node sits on the chain's top (the instance node) and carries one guest device
        assert f"driver=throttle,node-name=d0p{k},throttle-group=path_m1_{k},file=d0i" in argv
        assert f"virtio-blk-pci,drive=d0p{k},serial=m1-p{k},share-rw=on" in argv
    assert sum(a.startswith("virtio-blk-pci") for a in argv) == 4
    assert disk.path_serials() == ["m1-p1", "m1-p2", "m1-p3", "m1-p4"]
    plain = Disk("m2", tmp_path / "m2.raw", 1 << 28, None)
    assert plain.path_serials() == ["m2"] and not plain.multipath


@pytest.mark.skipif(not shutil.which("qemu-system-x86_64"), reason="qemu not installed")
def test_qemu_accepts_several_path_devices_on_one_node(tmp_path: Path) -> None:
    """qemu itself parses the path chain (frozen at start, -S): share-rw lets two devices write one image."""
    disk = Disk("m1", tmp_path / "m1.raw", 1 << 26, Throttle("vol_m1", 400, None), paths=2,
                path_throttle=Throttle("path_m1", 100, None))
    create([disk])
    argv = command(VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                            script=tmp_path / "s.sh", disks=[disk], instance=None, console_log=tmp_path / "c.log"))
    start = argv.index("-name")
    disk_args = argv[argv.index("-virtfs", start) + 4:]  # the disk chain only (no kernel: -S never boots)
    proc = subprocess.run(["qemu-system-x86_64", "-nodefaults", "-display", "none", "-S", "-accel", "tcg",
                           "-monitor", "stdio", *disk_args], input="info block\nquit\n", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("d0p") >= 2 and "share" not in proc.stderr
