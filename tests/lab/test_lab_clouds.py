"""Lab guests that look like an AWS, Azure, GCP and OCI host (lab.clouds, lab.cloudhost): one boot per cloud, a
two-volume stripe built by the `blockfit build` scripts for the stable names the provider's udev rules give the
disks, then `blockfit inspect --json --volumes FILE…` run in the guest with the provider files written for it.

Each guest: no fio, real-size sparse disks (8-50 GiB: the guest's /sys shows the cloud's size), the model's caps at
scale 1 on every volume and the instance. The assertions: every identity string the provider shows is in the
guest's sysfs (NVMe serial; SCSI vendor, product, revision, serial, address; DMI) and the stack sysfs shows is the
one built; inspect names each disk's cloud volume and recovers the layout that was built (count, size, stripe
size, manager and level, type, provisioned figures); `model --inventory` equals `model --layout` of the spec on
every figure.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from blockfit.lab.cloudhost import CloudHostRun, cloud_volumes, run_cloud_host
from blockfit.lab.clouds import AZURE_ASSET_TAG, QEMU_NVME_MODEL, CloudName, CloudVolume
from blockfit.lab.kernel import ensure_kernel
from blockfit.lab.run import resolve
from blockfit.lab.subject import Subject
from blockfit.schema.inventory import Inventory
from support import provider_files as pf
from support.lab import BLOCKFIT, lab_request, processes_mentioning

pytestmark = [pytest.mark.slow, pytest.mark.lab]


@dataclass(frozen=True)
class Rig:
    cloud: CloudName
    layout: str
    instance: str
    manager: str
    fs: str
    mount: str
    instance_id: str


RIGS = {
    "aws": Rig("aws", "2x8G@gp3:4000:250", "m6i.2xlarge", "lvm", "xfs", "/u01", "i-0af01c0123456789a"),
    "azure": Rig("azure", "2x8G@premium-v1", "Standard_E8s_v5", "mdadm", "ext4", "/u02", "vm-blockfit-lab"),
    "gcp": Rig("gcp", "2x10G@pd-balanced", "n2:8", "lvm", "xfs", "/u03", "blockfit-lab"),
    "oci": Rig("oci", "2x50G@balanced", "VM.Standard.E4.Flex:4", "lvm", "xfs", "/u04",
               "ocid1.instance.oc1.iad.anuwcljblockfitlab"),
}
_runs: dict[str, tuple[CloudHostRun, Subject, list[Path], float]] = {}


def _provider_files(rig: Rig, vols: list[CloudVolume], subject: Subject, work: Path) -> list[Path]:
    layout = subject.layout
    if rig.cloud == "aws":
        return [pf.write(work / "describe-volumes.json", pf.aws_describe_volumes(vols, layout, rig.instance_id))]
    if rig.cloud == "azure":
        p = subject.stripe.layout_detail.volume  # P2: 120 IOPS, 25 MB/s (the tier 8 GiB rounds up to)
        assert p.type == "premium-v1"
        return [pf.write(work / "az-disk-list.json", pf.az_disk_list(vols, layout, rig.instance_id, "P2", 120, 25)),
                pf.write(work / "az-vm-show.json", pf.az_vm_show(vols, layout, rig.instance_id, rig.instance))]
    if rig.cloud == "gcp":
        return [pf.write(work / "gcloud-disks.json", pf.gcloud_disks_list(vols, layout, rig.instance_id))]
    return [pf.write(work / "bv-volume-list.json", pf.oci_bv_volume_list(vols, layout)),
            pf.write(work / "volume-attachments.json", pf.oci_volume_attachment_list(vols, rig.instance_id))]


def _run(cloud: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[CloudHostRun, Subject, list[Path], float]:
    if cloud not in _runs:
        if shutil.which("qemu-system-x86_64") is None:
            pytest.skip("needs qemu")
        rig = RIGS[cloud]
        work = tmp_path_factory.mktemp(f"lab-{cloud}")
        subject = resolve(lab_request(cloud=cloud, layout=rig.layout, instance=rig.instance, manager=rig.manager))
        vols = cloud_volumes(rig.cloud, subject, work)
        files = _provider_files(rig, vols, subject, work)
        inspect = [BLOCKFIT, "inspect", "--json", *(a for f in files for a in ("--volumes", str(f)))]
        if rig.cloud != "aws":  # only a Nitro instance's DMI names its type
            inspect += ["--instance", rig.instance]
        run = run_cloud_host(ensure_kernel(), work, rig.cloud, subject, vols, rig.manager, rig.fs, rig.mount,
                             rig.instance_id, inspect=inspect)
        print(f"{cloud} guest: {run.wall_s:.1f} s wall, {run.cpu_s:.1f} s of emulator CPU")
        assert processes_mentioning(str(work)) == []
        assert not list(work.glob("*.raw")), "the disk files outlived the run"
        _runs[cloud] = (run, subject, files, run.wall_s)
    return _runs[cloud]


def _disk(sysfs: dict[str, Any], name: str) -> dict[str, Any]:
    return next(d for d in sysfs["disks"] if d["name"] == name)


def _identity_in_sysfs(rig: Rig, run: CloudHostRun) -> None:
    """Every string the provider shows for each volume is what the guest's sysfs shows for the disk it linked."""
    sysfs = run.sysfs
    assert len(sysfs["disks"]) == len(run.volumes)
    for v in run.volumes:
        d = _disk(sysfs, sysfs["links"][v.link])
        ident = v.disk.identity
        assert d["bus"] == ident.bus and d["serial"] == v.disk.serial and d["size_bytes"] == v.disk.size_bytes
        if ident.bus == "nvme":
            assert d["model"] == QEMU_NVME_MODEL  # what qemu 7.2 cannot change
        else:
            assert (d["vendor"], d["model"]) == (ident.vendor, ident.product)
            assert d["hctl"].split(":")[1:] == ["0", str(ident.target), str(ident.lun)]
            if ident.revision:
                assert d["revision"] == ident.revision
    dmi = sysfs["dmi"]
    want = {"aws": {"sys_vendor": "Amazon EC2", "product_name": rig.instance, "board_asset_tag": rig.instance_id},
            "azure": {"sys_vendor": "Microsoft Corporation", "product_name": "Virtual Machine",
                      "chassis_asset_tag": AZURE_ASSET_TAG},
            "gcp": {"sys_vendor": "Google", "product_name": "Google Compute Engine"},
            "oci": {"chassis_asset_tag": "OracleCloud.com"}}[rig.cloud]
    assert {k: dmi[k] for k in want} == want


def _stack(sysfs: dict[str, Any]) -> tuple[str, int, int, list[str], int]:
    """The mounted stripe as sysfs shows it: (manager, stripe count, stripe size in bytes, members, size)."""
    top = sysfs["mount"]["source"]
    for md in sysfs["md"]:
        if top.endswith(md["name"]) or top.startswith("/dev/md"):
            assert md["level"] == "raid0"
            return "mdadm", md["raid_disks"], md["chunk_size"], md["slaves"], md["size_bytes"]
    dm = next(d for d in sysfs["dm"] if top.endswith(d["dm_name"].replace("-", "/")) or d["dm_name"] in top)
    _start, _length, target, stripes, chunk_sectors, *_ = dm["table"].split()
    assert target == "striped"
    return "lvm", int(stripes), int(chunk_sectors) * 512, dm["slaves"], dm["size_bytes"]


@pytest.mark.parametrize("cloud", list(RIGS))
def test_cloud_host_guest_shows_the_providers_identity_and_the_built_layout(
        cloud: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    rig = RIGS[cloud]
    run, subject, files, _ = _run(cloud, tmp_path_factory)
    _identity_in_sysfs(rig, run)
    manager, stripes, stripe_size, members, size = _stack(run.sysfs)
    layout = subject.layout
    assert (manager, stripes, stripe_size) == (rig.manager, layout.members, subject.stripe_size)
    assert sorted(members) == sorted(run.sysfs["links"][v.link] for v in run.volumes)
    assert run.sysfs["mount"]["fstype"] == rig.fs
    # the stripe holds the members' capacity, less what LVM or md keeps for itself (LVM 4 MiB a PV here, md 12 MiB)
    assert 0 < layout.members * run.volumes[0].disk.size_bytes - size <= layout.members * (16 << 20)


def _expected_volume_id(cloud: str, v: CloudVolume) -> str:
    """What inspect must name a disk by: the EBS volume ID, Azure's LUN, GCP's disk name, OCI's device path."""
    return {"aws": v.volume_id, "azure": f"LUN {v.lun}", "gcp": v.volume_id, "oci": v.link}[cloud]


def _inventory(run: CloudHostRun) -> Inventory:
    assert run.inspect is not None
    return Inventory.model_validate_json(run.inspect)


@pytest.mark.parametrize("cloud", list(RIGS))
def test_inspect_in_the_guest_names_each_volume_and_recovers_the_built_layout(
        cloud: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    rig = RIGS[cloud]
    run, subject, files, _ = _run(cloud, tmp_path_factory)
    inv = _inventory(run)
    assert inv.cloud == rig.cloud and inv.unmatched_volumes == [], (inv.cloud, inv.unmatched_volumes, inv.warnings)
    assert inv.instance is not None and inv.instance.shape == subject.instance.shape
    nodes = {n.name: n for n in inv.devices}
    for v in run.volumes:
        node = nodes[run.sysfs["links"][v.link]]
        assert node.identity is not None and node.identity.cloud == rig.cloud, node
        assert node.identity.volume_id == _expected_volume_id(cloud, v), node.identity
        assert node.size_bytes == v.disk.size_bytes
    found = next(lay for lay in inv.layouts if lay.mount_point == rig.mount)
    assert found.unknown == [], found.unknown
    assert found.spec == subject.stripe.layout  # count, size, type and provisioned figures in spec grammar
    assert found.layout is not None
    built = subject.layout
    assert (found.layout.members, found.layout.stripe_size, found.layout.manager) == (
        built.members, subject.stripe_size, rig.manager)
    assert found.layout.volume.model_dump() == built.volume.model_dump()
    top = nodes[found.device]
    assert (top.kind, top.stripes, top.stripe_size) == (
        "md" if rig.manager == "mdadm" else "lvm-striped", built.members, subject.stripe_size)
    if rig.manager == "mdadm":
        assert top.level == "raid0"
    fs = next(f for f in inv.filesystems if f.mount_point == rig.mount)
    assert fs.fstype == rig.fs and fs.noatime


_VOLATILE = {"created", "blockfit_version", "elapsed_s"}


def _model(*args: str) -> dict[str, Any]:
    proc = subprocess.run([BLOCKFIT, "model", *args, "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return {k: v for k, v in doc.items() if k not in _VOLATILE}


@pytest.mark.parametrize("cloud", list(RIGS))
def test_model_of_the_inventory_equals_model_of_the_built_spec(
        cloud: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    rig = RIGS[cloud]
    run, subject, files, _ = _run(cloud, tmp_path_factory)
    inventory = files[0].parent / "inventory.json"
    inventory.write_text(run.inspect or "")
    from_inventory = _model("--inventory", str(inventory), "--mount", rig.mount)
    # the spec as a user types it, with what else the host shows: the stripe size, and on OCI the attachment (the
    # guest's volumes are paravirtualized: no iSCSI session)
    attach = ["--attachment", "paravirtualized"] if cloud == "oci" else []
    from_spec = _model("--cloud", cloud, "--layout", subject.stripe.layout, "--instance", rig.instance,
                       "--stripe-size", f"{subject.stripe_size >> 20}m", *attach)
    assert from_inventory == from_spec
    assert from_spec["max_iops"] == pytest.approx(subject.stripe.max_iops)


@pytest.mark.parametrize("cloud", list(RIGS))
def test_every_volume_the_provider_file_names_is_a_disk_of_the_guest(
        cloud: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    run, _, files, _ = _run(cloud, tmp_path_factory)
    text = " ".join(f.read_text() for f in files)
    for v in run.volumes:
        assert v.volume_id in text
    if cloud == "aws":  # the EBS volume ID is the NVMe serial with its dash
        ids = set(re.findall(r'"VolumeId": "(vol-[0-9a-f]{17})"', text))
        assert {i.replace("-", "") for i in ids} == {d["serial"] for d in run.sysfs["disks"]}
