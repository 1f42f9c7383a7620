"""Layouts from the stack: LVM striped and linear, md raid0 and raid10, each in spec grammar; and `model --inventory`
equal to `model --layout SPEC --instance I` on every figure, on each cloud."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from blockfit.inventory.inspect import inspect_host
from blockfit.schema.inventory import Inventory
from support.inproc import run
from support.systree import (
    GIB,
    SysTree,
    aws_host,
    aws_volumes,
    azure_host,
    azure_vm,
    gcp_disks,
    gcp_host,
    oci_files,
    oci_host,
)


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


def _aws_disks(t: SysTree, count: int) -> list[Path]:
    t.dmi(sys_vendor="Amazon EC2", product_name="m5.12xlarge")
    return [t.nvme_disk(f"nvme{i + 1}n1", 500 * GIB, "Amazon Elastic Block Store", f"vol0123456789abcdef{i}")
            for i in range(count)]


def test_lvm_stripe_count_and_size_from_sysfs(tmp_path: Path) -> None:
    aws_host(tmp_path / "host", members=3)
    inv = inspect_host(tmp_path / "host", [_write(tmp_path / "v.json", aws_volumes(3))])
    lv = next(n for n in inv.devices if n.name == "dm-0")
    assert (lv.kind, lv.stripes, lv.stripe_size) == ("lvm-striped", 3, 65536)
    assert lv.members == ["nvme1n1", "nvme2n1", "nvme3n1"] and "optimal_io_size 196608" in (lv.stack_evidence or "")
    lay = inv.layouts[0]
    assert (lay.mount_point, lay.spec, lay.unknown) == ("/u01", "3x500G@gp3:3000:125", [])
    assert lay.layout is not None and (lay.layout.stripe_size, lay.layout.manager) == (65536, "lvm")
    assert inv.filesystems[0].xfs_sunit_bytes == 65536 and inv.filesystems[0].xfs_swidth_bytes == 131072
    assert lay.prediction is not None and lay.prediction.max_iops == 9000


def test_lvm_linear_one_volume_and_a_concatenation(tmp_path: Path) -> None:
    t = SysTree(tmp_path / "host")
    disks = _aws_disks(t, 3)
    one = t.dm("dm-0", "vg-one", "LVM-" + "d" * 64, disks[:1], 400 * GIB)
    two = t.dm("dm-1", "vg-two", "LVM-" + "e" * 64, disks[1:], 1000 * GIB)
    t.mount(one, "/one")
    t.mount(two, "/two")
    inv = inspect_host(tmp_path / "host", [_write(tmp_path / "v.json", aws_volumes(3))])
    kinds = {n.name: n.kind for n in inv.devices}
    assert kinds["dm-0"] == kinds["dm-1"] == "lvm-linear"
    by_mount = {lay.mount_point: lay for lay in inv.layouts}
    assert by_mount["/one"].spec == "1x500G@gp3:3000:125"
    assert by_mount["/two"].spec is None and "concatenated" in by_mount["/two"].unknown[0]


@pytest.mark.parametrize(("level", "redundancy"), [("raid0", "none"), ("raid10", "raid10")])
def test_md_raid0_and_raid10(tmp_path: Path, level: str, redundancy: str) -> None:
    t = SysTree(tmp_path / "host")
    md = t.md("md0", level, 524288, _aws_disks(t, 4), 2000 * GIB)
    t.mount(md, "/u02", fstype="ext4", options="rw,noatime", super_options="rw,nobarrier")
    inv = inspect_host(tmp_path / "host", [_write(tmp_path / "v.json", aws_volumes(4))])
    node = next(n for n in inv.devices if n.name == "md0")
    assert (node.kind, node.level, node.stripes, node.stripe_size) == ("md", level, 4, 524288)
    lay = inv.layouts[0]
    assert lay.spec == "4x500G@gp3:3000:125" and lay.layout is not None
    assert (lay.layout.manager, lay.layout.redundancy, lay.layout.stripe_size) == ("mdadm", redundancy, 524288)
    assert inv.filesystems[0].barrier is False and inv.filesystems[0].noatime is True


def test_an_unmounted_array_is_a_layout_and_raid1_is_not_modelled(tmp_path: Path) -> None:
    t = SysTree(tmp_path / "host")
    disks = _aws_disks(t, 4)
    t.md("md0", "raid0", 65536, disks[:2], 1000 * GIB)
    t.md("md1", "raid1", 0, disks[2:], 500 * GIB)
    inv = inspect_host(tmp_path / "host", [_write(tmp_path / "v.json", aws_volumes(4))])
    by_device = {lay.device: lay for lay in inv.layouts}
    assert by_device["md0"].mount_point is None and by_device["md0"].spec == "2x500G@gp3:3000:125"
    assert by_device["md1"].spec is None and "raid1" in by_device["md1"].unknown[0]


def test_without_a_provider_file_the_figures_are_unknown_and_say_why(tmp_path: Path) -> None:
    aws_host(tmp_path)
    inv = inspect_host(tmp_path, [])
    lay = inv.layouts[0]
    assert lay.spec is None and lay.prediction is None
    assert "no --volumes file names it" in lay.unknown[0] and "vol-0123456789abcdef0" in lay.unknown[0]


def test_members_that_differ_are_no_layout(tmp_path: Path) -> None:
    aws_host(tmp_path / "host")
    vols = aws_volumes(2)
    vols["Volumes"][1]["Iops"] = 4000   # type: ignore[index]
    inv = inspect_host(tmp_path / "host", [_write(tmp_path / "v.json", vols)])
    assert inv.layouts[0].spec is None and "not identical" in inv.layouts[0].unknown[0]


def test_a_volume_no_disk_shows_is_reported_not_dropped(tmp_path: Path) -> None:
    aws_host(tmp_path / "host")
    inv = inspect_host(tmp_path / "host", [_write(tmp_path / "v.json", aws_volumes(2, extra=True))])
    assert len(inv.unmatched_volumes) == 1 and inv.unmatched_volumes[0].startswith("vol-0fedcba9876543210 (aws")
    assert inv.layouts[0].spec == "2x500G@gp3:3000:125"


def _oci(root: Path, tmp: Path) -> list[Path]:
    oci_host(root)
    volumes, attachments = oci_files()
    return [_write(tmp / "vols.json", volumes), _write(tmp / "att.json", attachments)]


CLOUDS: dict[str, tuple[Callable[[Path, Path], list[Path]], str | None, list[str]]] = {
    "aws": (lambda root, tmp: (aws_host(root), [_write(tmp / "v.json", aws_volumes())])[1], None,
            ["--layout", "2x500G@gp3:3000:125", "--instance", "m5.12xlarge", "--stripe-size", "64k"]),
    "azure": (lambda root, tmp: (azure_host(root), [_write(tmp / "v.json", azure_vm())])[1], "Standard_E16s_v5",
              ["--layout", "4x1T@premium-v2:5000:200", "--instance", "Standard_E16s_v5", "--stripe-size", "256k"]),
    "gcp": (lambda root, tmp: (gcp_host(root), [_write(tmp / "v.json", gcp_disks())])[1], "c3-standard-22",
            ["--layout", "2x1T@hyperdisk-balanced:6000:290", "--instance", "c3-standard-22", "--stripe-size", "1m"]),
    "oci": (_oci, "VM.Standard.E4.Flex:16",
            ["--layout", "2x500G@higher", "--instance", "VM.Standard.E4.Flex:16", "--stripe-size", "1m",
             "--attachment", "iscsi", "--paths", "1", "--queue-depth", "128"]),
}


@pytest.mark.parametrize("cloud", sorted(CLOUDS))
def test_model_inventory_equals_model_layout(cloud: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make, instance, typed = CLOUDS[cloud]
    files = make(tmp_path / "host", tmp_path)
    out = tmp_path / "inventory.json"
    args = ["inspect", "--root", str(tmp_path / "host"), "--out", str(out)]
    args += [a for f in files for a in ("--volumes", str(f))] + (["--instance", instance] if instance else [])
    code, _, err = run(args, capsys)
    assert code == 0, err
    inv = Inventory.model_validate_json(out.read_text())
    assert inv.cloud == cloud and inv.layouts[0].prediction is not None, inv.layouts[0].unknown
    code, from_inventory, err = run(["model", "--inventory", str(out), "--json"], capsys)
    assert code == 0, err
    code, from_layout, err = run(["model", "--cloud", cloud, *typed, "--json"], capsys)
    assert code == 0, err
    assert json.loads(from_inventory) == json.loads(from_layout)
    assert json.loads(from_inventory)["max_iops"] == inv.layouts[0].prediction.max_iops


def test_model_inventory_needs_the_mount_point_when_there_are_several(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    t = SysTree(tmp_path / "host")
    disks = _aws_disks(t, 2)
    t.mount(t.dm("dm-0", "vg-a", "LVM-" + "f" * 64, disks[:1], 400 * GIB), "/u01")
    t.mount(t.dm("dm-1", "vg-b", "LVM-" + "0" * 64, disks[1:], 400 * GIB), "/u02")
    out = tmp_path / "inv.json"
    volumes = _write(tmp_path / "v.json", aws_volumes(2))
    assert run(["inspect", "--root", str(tmp_path / "host"), "--volumes", str(volumes), "--out", str(out)],
               capsys)[0] == 0
    code, stdout, err = run(["model", "--inventory", str(out)], capsys)
    assert code == 2 and err.count("\n") == 1 and "/u01, /u02" in err and "--mount" in err and not stdout
    code, stdout, err = run(["model", "--inventory", str(out), "--mount", "/u02", "--json"], capsys)
    assert code == 0 and json.loads(stdout)["layout"] == "1x500G@gp3:3000:125"
    code, _, err = run(["model", "--inventory", str(out), "--layout", "1x1T@gp3"], capsys)
    assert code == 2 and "--layout" in err
