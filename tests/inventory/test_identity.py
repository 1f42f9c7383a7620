"""Which cloud volume a disk is, per cloud, from /sys trees shaped as each cloud's hosts show them; never a guess."""

from __future__ import annotations

from pathlib import Path

from blockfit.devices.blockstack import read_stack
from blockfit.inventory.identity import dmi_instance_type, host_cloud
from blockfit.inventory.stack import build_nodes
from blockfit.schema.inventory import BlockNode
from support.systree import GIB, SysTree, aws_host, azure_host, gcp_host, oci_host


def _nodes(root: Path) -> dict[str, BlockNode]:
    return {n.name: n for n in build_nodes(read_stack(root))}


def test_aws_ebs_by_its_nvme_model_and_serial(tmp_path: Path) -> None:
    aws_host(tmp_path)
    nodes = _nodes(tmp_path)
    ident = nodes["nvme1n1"].identity
    assert ident is not None and (ident.cloud, ident.volume_id) == ("aws", "vol-0123456789abcdef0")
    assert "Amazon Elastic Block Store" in ident.evidence and "vol0123456789abcdef0" in ident.evidence


def test_aws_serial_rule_holds_only_on_an_amazon_ec2_host(tmp_path: Path) -> None:
    """qemu sets no NVMe model: a vol serial counts on a host whose DMI says Amazon EC2, and the evidence says so;
    the same serial on any other host is no identity."""
    aws_host(tmp_path / "ec2", model="QEMU NVMe Ctrl")
    ident = _nodes(tmp_path / "ec2")["nvme2n1"].identity
    assert ident is not None and ident.volume_id == "vol-0123456789abcdef1"
    assert "DMI sys_vendor is 'Amazon EC2'" in ident.evidence and "QEMU NVMe Ctrl" in ident.evidence
    t = SysTree(tmp_path / "elsewhere")
    t.nvme_disk("nvme1n1", 500 * GIB, "QEMU NVMe Ctrl", "vol0123456789abcdef0")
    assert _nodes(tmp_path / "elsewhere")["nvme1n1"].identity is None


def test_azure_lun_from_the_scsi_address_or_the_azure_link(tmp_path: Path) -> None:
    t = azure_host(tmp_path, members=2)
    nodes = _nodes(tmp_path)
    ident = nodes["sdc"].identity
    assert ident is not None and (ident.cloud, ident.volume_id) == ("azure", "LUN 1") and "1:0:0:1" in ident.evidence
    t.link("disk/azure/scsi1/lun7", "../../../sdd")
    ident = _nodes(tmp_path)["sdd"].identity
    assert ident is not None and ident.volume_id == "LUN 7" and "/dev/disk/azure/scsi1/lun7" in ident.evidence


def test_azure_lun_on_two_controllers_is_no_volume_id(tmp_path: Path) -> None:
    """The OS disk and a data disk both at LUN 0 on different controllers: without Azure's links, neither is named."""
    t = SysTree(tmp_path)
    t.scsi_disk("sda", 30 * GIB, "Msft", "Virtual Disk", hctl="0:0:0:0")
    t.scsi_disk("sdb", 1024 * GIB, "Msft", "Virtual Disk", hctl="1:0:0:0")
    nodes = _nodes(tmp_path)
    for name in ("sda", "sdb"):
        ident = nodes[name].identity
        assert ident is not None and ident.cloud == "azure" and ident.volume_id is None
        assert "more than one controller" in ident.evidence


def test_gcp_device_name_from_the_scsi_serial_or_the_google_link(tmp_path: Path) -> None:
    t = gcp_host(tmp_path)
    ident = _nodes(tmp_path)["sdb"].identity
    assert ident is not None and (ident.cloud, ident.volume_id) == ("gcp", "data-0") and "Google" in ident.evidence
    t.nvme_disk("nvme0n1", 100 * GIB, "nvme_card-pd", "nvme_card-pd")
    t.link("disk/by-id/google-orders", "../../nvme0n1")
    t.link("disk/by-id/google-orders-part1", "../../nvme0n1p1")
    ident = _nodes(tmp_path)["nvme0n1"].identity
    assert ident is not None and ident.volume_id == "orders" and "google-orders" in ident.evidence


def test_gcp_nvme_pd_without_a_link_is_gcp_without_a_name(tmp_path: Path) -> None:
    SysTree(tmp_path).nvme_disk("nvme0n1", 100 * GIB, "nvme_card-pd", "nvme_card-pd")
    ident = _nodes(tmp_path)["nvme0n1"].identity
    assert ident is not None and ident.cloud == "gcp" and ident.volume_id is None


def test_oci_by_iscsi_target_then_by_consistent_device_path(tmp_path: Path) -> None:
    t = oci_host(tmp_path)
    nodes = _nodes(tmp_path)
    ident = nodes["sdb"].identity
    assert ident is not None and ident.cloud == "oci"
    assert ident.volume_id == "iqn.2015-12.com.oracleiaas:00000000-aaaa-bbbb-cccc-dddddddddddd"
    assert nodes["sdb"].iscsi_queue_depth == 128 and nodes["sdb"].transport == "iscsi"
    t.link("oracleoci/oraclevdc", "../sdc")
    ident = _nodes(tmp_path)["sdc"].identity
    assert ident is not None and ident.volume_id == "/dev/oracleoci/oraclevdc"


def test_oci_vendor_alone_is_oci_without_an_attachment(tmp_path: Path) -> None:
    SysTree(tmp_path).scsi_disk("sdb", 50 * GIB, "ORACLE", "BlockVolume")
    ident = _nodes(tmp_path)["sdb"].identity
    assert ident is not None and ident.cloud == "oci" and ident.volume_id is None


def test_a_disk_of_no_cloud_is_unknown_and_shows_what_was_seen(tmp_path: Path) -> None:
    t = SysTree(tmp_path)
    t.scsi_disk("sdb", 50 * GIB, "ATA", "Samsung SSD 870", serial="S5Y1NX0T")
    t.nvme_disk("nvme0n1", 50 * GIB, "Samsung SSD 980", "S64ANS0T")
    nodes = _nodes(tmp_path)
    assert nodes["sdb"].identity is None and nodes["nvme0n1"].identity is None
    assert (nodes["sdb"].vendor, nodes["sdb"].model, nodes["sdb"].serial) == ("ATA", "Samsung SSD 870", "S5Y1NX0T")
    assert nodes["nvme0n1"].model == "Samsung SSD 980" and nodes["nvme0n1"].serial == "S64ANS0T"


def test_host_cloud_and_instance_from_dmi(tmp_path: Path) -> None:
    for make, cloud in ((aws_host, "aws"), (azure_host, "azure"), (gcp_host, "gcp"), (oci_host, "oci")):
        root = tmp_path / cloud
        make(root)
        dmi = read_stack(root).dmi
        assert host_cloud(dmi)[0] == cloud
        assert dmi_instance_type(dmi) == ("m5.12xlarge" if cloud == "aws" else None)
    assert host_cloud(read_stack(tmp_path / "none").dmi) == (None, None)
