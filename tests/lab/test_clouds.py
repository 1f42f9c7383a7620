"""The cloud-host guest's pieces that need no guest: each cloud's volume identities and DMI, and the guest script."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from blockfit.lab.cloudhost import script
from blockfit.lab.clouds import CLOUDS, CloudName, smbios, volumes
from support.lab import assert_valid_bash


def test_each_clouds_volumes_carry_the_ids_the_provider_shows(tmp_path: Path) -> None:
    aws = volumes("aws", 3, 1 << 30, tmp_path)
    for v in aws:  # the NVMe serial is the volume ID without its dash, 20 characters
        assert re.fullmatch(r"vol-[0-9a-f]{17}", v.volume_id) and v.disk.serial == v.volume_id.replace("-", "")
        assert v.disk.identity.bus == "nvme" and v.link.endswith(f"_{v.disk.serial}")
    azure = volumes("azure", 3, 1 << 30, tmp_path)
    got = [(v.disk.identity.vendor, v.disk.identity.target, v.lun) for v in azure]
    assert got == [("Msft", 0, i) for i in range(3)]
    assert [v.link for v in azure] == [f"/dev/disk/azure/scsi1/lun{i}" for i in range(3)]
    gcp = volumes("gcp", 2, 1 << 30, tmp_path)
    assert [(v.disk.serial, v.disk.identity.target, v.disk.identity.lun) for v in gcp] == [
        ("data-1", 1, 0), ("data-2", 2, 0)]  # the unit serial is the device name, a target per disk
    oci = volumes("oci", 2, 1 << 30, tmp_path)
    assert [(v.disk.identity.controller, v.disk.identity.target, v.disk.identity.lun) for v in oci] == [
        (0, 1, 1), (1, 1, 1)]  # a controller per paravirtualized volume
    assert [v.link for v in oci] == ["/dev/oracleoci/oraclevdb", "/dev/oracleoci/oraclevdc"]
    assert all(v.volume_id.startswith("ocid1.volume.oc1.") for v in oci)
    # the same volumes every run: provider files written before the boot name the guest's disks
    assert [v.volume_id for v in volumes("aws", 3, 1 << 30, tmp_path)] == [v.volume_id for v in aws]
    for vols in (aws, azure, gcp, oci):
        assert len({v.disk.serial for v in vols}) == len({v.link for v in vols}) == len(vols)


def test_dmi_tables_name_the_provider_and_escape_commas() -> None:
    assert "type=1,manufacturer=Amazon EC2,product=m6i.2xlarge" in smbios("aws", "m6i.2xlarge", "i-1")
    assert "type=2,manufacturer=Amazon EC2,asset=i-1,,x" in smbios("aws", "m6i.2xlarge", "i-1,x")
    assert any("asset=7783-7084-3265-9085-8269-3286-77" in t for t in smbios("azure", "Standard_E8s_v5", "vm"))
    assert "type=1,manufacturer=Google,product=Google Compute Engine" in smbios("gcp", "n2:8", "vm")
    assert smbios("oci", "VM.Standard.E4.Flex:4", "ocid1.instance") == ["type=3,asset=OracleCloud.com"]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_cloud_host_guest_script_is_valid_bash_for_every_cloud(tmp_path: Path, cloud: CloudName) -> None:
    vols = volumes(cloud, 2, 1 << 30, tmp_path)
    manager = "mdadm" if cloud == "azure" else "lvm"
    text = script(cloud, tmp_path, vols, manager, "/u01", ["/opt/x y/blockfit", "inspect", "--json"])
    assert "'/opt/x y/blockfit' inspect --json > \"$W/inspect.json\"" in text  # the argv reaches bash quoted
    assert "modprobe -a nvme virtio_scsi sd_mod" in text
    for v in vols:
        assert f"ln -sfn \"/dev/${{KEY[{'nvme' if cloud == 'aws' else 'lun' if cloud == 'azure' else 'scsi'}:" in text
        assert v.link in text
    assert_valid_bash(tmp_path / f"{cloud}.sh", text)
    without = script(cloud, tmp_path, vols, manager, "/u01", None)
    assert "inspect.json" not in without.split("Runs as root")[1]


def test_the_installation_is_byte_compiled_before_a_guest_imports_it() -> None:
    """Under PYTHONDONTWRITEBYTECODE (or a module the host never imported) the guest would compile every module of
    `blockfit inspect` under TCG at each boot: the host compiles them first, each .pyc matching its source."""
    import importlib.util

    import blockfit.inventory.inspect as module
    from blockfit.lab.cloudhost import compile_installation

    source = Path(module.__file__)
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.unlink(missing_ok=True)
    compile_installation()
    assert cached.is_file() and cached.stat().st_size > 0
    header = cached.read_bytes()[:16]  # magic, flags, source mtime, source size (PEP 552)
    assert header[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(header[8:12], "little") == int(source.stat().st_mtime)
