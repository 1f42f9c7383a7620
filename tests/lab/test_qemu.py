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


def test_cloud_identities_keep_the_throttle_chain_and_reach_qemu_as_given(tmp_path: Path) -> None:
    """An NVMe disk is a controller of its own over the chain's top node; a SCSI disk a scsi-hd on its virtio-scsi
    controller with the provider's strings and address; DMI goes in as -smbios; a comma in a value is doubled."""
    from blockfit.lab.clouds import smbios, volumes

    cap = Throttle("vol", 3000, 125_000_000)
    aws = volumes("aws", 2, 1 << 30, tmp_path, cap)
    oci = volumes("oci", 2, 1 << 30, tmp_path, cap, prefix="o")
    cfg = VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                   script=tmp_path / "script.sh", disks=[v.disk for v in aws + oci],
                   instance=Throttle("instance", 8000, None), console_log=tmp_path / "c.log",
                   smbios=smbios("aws", "m6i.2xlarge", "i-0a,b"))
    argv = command(cfg)
    devices = [argv[i + 1] for i, a in enumerate(argv) if a == "-device"]
    assert devices[:2] == ["virtio-scsi-pci,id=scsi0", "virtio-scsi-pci,id=scsi1"]  # OCI: a controller per volume
    assert devices[2] == f"nvme,drive=d0i,serial={aws[0].disk.serial}"
    assert devices[4] == (f"scsi-hd,drive=d2i,bus=scsi0.0,channel=0,scsi-id=1,lun=1,serial={oci[0].disk.serial},"
                          "vendor=ORACLE,product=BlockVolume,ver=1.0")
    assert devices[5].startswith("scsi-hd,drive=d3i,bus=scsi1.0,")
    nodes = [argv[i + 1] for i, a in enumerate(argv) if a == "-blockdev" and "driver=throttle" in argv[i + 1]]
    assert "driver=throttle,node-name=d0v,throttle-group=vol_0,file=d0r" in nodes
    assert "driver=throttle,node-name=d0i,throttle-group=instance,file=d0v" in nodes
    tables = [argv[i + 1] for i, a in enumerate(argv) if a == "-smbios"]
    assert "type=1,manufacturer=Amazon EC2,product=m6i.2xlarge" in tables
    assert "type=2,manufacturer=Amazon EC2,asset=i-0a,,b" in tables


@pytest.mark.skipif(not shutil.which("qemu-system-x86_64"), reason="qemu not installed")
@pytest.mark.parametrize("cloud", ["aws", "azure", "gcp", "oci"])
def test_qemu_accepts_each_clouds_devices_and_dmi_over_the_throttle_chain(tmp_path: Path, cloud: str) -> None:
    """qemu itself parses each cloud's devices and DMI (it stops at once on an unknown property or bus);
    `info block` shows every guest device on its disk's instance throttle node (-S: no boot)."""
    from blockfit.lab.clouds import smbios, volumes

    vols = volumes(cloud, 2, 1 << 24, tmp_path, Throttle("vol", 3000, None))
    create([v.disk for v in vols])
    argv = command(VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                            script=tmp_path / "s.sh", disks=[v.disk for v in vols],
                            instance=Throttle("instance", 8000, None), console_log=tmp_path / "c.log",
                            smbios=smbios(cloud, "shape.x", "id-1")))
    rest = argv[argv.index("-virtfs", argv.index("-name")) + 4:]  # disks, caps and DMI (no kernel: -S never boots)
    proc = subprocess.run(["qemu-system-x86_64", "-nodefaults", "-display", "none", "-S", "-accel", "tcg",
                           "-monitor", "stdio", *rest], input="info block\nquit\n", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("d0i") >= 1 and proc.stdout.count("d1i") >= 1, proc.stdout
    assert "-smbios" in rest


def test_identity_strings_qemu_would_cut_are_refused_before_it_starts(tmp_path: Path) -> None:
    """qemu 7.2 silently cuts a SCSI vendor past 8 characters and an NVMe serial past 20: the guest would show
    another string than the one the provider file names, so the disks are refused first."""
    from blockfit.lab.disks import Identity

    long_vendor = Disk("s1", tmp_path / "a.raw", 1 << 20, None, identity=Identity(bus="scsi", vendor="MicrosoftX"))
    long_serial = Disk("vol0123456789abcdef012", tmp_path / "b.raw", 1 << 20, None, identity=Identity(bus="nvme"))
    vendor_on_nvme = Disk("v", tmp_path / "c.raw", 1 << 20, None, identity=Identity(bus="nvme", vendor="Msft"))
    cases = ((long_vendor, "at most 8"), (long_serial, "longer than 20"), (vendor_on_nvme, "SCSI disk only"))
    for disk, needle in cases:
        with pytest.raises(ValueError, match=needle):
            create([disk])
        assert not disk.path.exists()
    ok = Disk("s2", tmp_path / "d.raw", 1 << 20, None, identity=Identity(bus="scsi", vendor="Msft",
                                                                         product="Virtual Disk"))
    create([ok])
    assert ok.path.stat().st_size == 1 << 20


def test_a_cap_that_banks_seconds_gives_qemu_a_bucket_of_that_many_seconds(tmp_path: Path) -> None:
    """bucket_s: the group's burst is IOPS x seconds at qemu's default burst length of 1 (so no burst rate beside
    the average); without it qemu keeps its own tenth of a second."""
    disks = [Disk("m1", tmp_path / "m1.raw", 1 << 28, Throttle("vol_m1", 150, None, bucket_s=2)),
             Disk("m2", tmp_path / "m2.raw", 1 << 28, Throttle("vol_m2", 150, None))]
    cfg = VmConfig(vmlinux=tmp_path / "vmlinux", initramfs=tmp_path / "initrd", work_dir=tmp_path,
                   script=tmp_path / "script.sh", disks=disks, instance=None, console_log=tmp_path / "c.log")
    argv = command(cfg)
    groups = [argv[i + 1] for i, a in enumerate(argv) if a == "-object"]
    assert "throttle-group,id=vol_m1,x-iops-total=150,x-iops-total-max=300" in groups
    assert "throttle-group,id=vol_m2,x-iops-total=150" in groups
    assert not any("max-length" in g for g in groups)
