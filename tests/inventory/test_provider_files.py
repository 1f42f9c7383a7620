"""The provider CLIs' JSON read as each writes it, mapped to the schema's Volume; a hostile or malformed file is one
line on stderr, exit 2, and nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from blockfit.catalog import load_catalog
from blockfit.errors import InputError
from blockfit.inventory.inspect import to_volume
from blockfit.inventory.provider_files import read_files
from support.inproc import run
from support.systree import aws_host, aws_volumes, azure_vm, gcp_disks, oci_files


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_aws_describe_volumes(tmp_path: Path) -> None:
    files = read_files([_write(tmp_path / "a.json", aws_volumes(2, extra=True))])
    gp3, _, gp2 = files.volumes
    assert (gp3.keys, gp3.type, gp3.size_gb, gp3.iops, gp3.throughput) == ({"vol-0123456789abcdef0"}, "gp3", 500,
                                                                           3000, 125)
    warnings: list[str] = []
    vol = to_volume(gp2, load_catalog("aws"), warnings)
    assert (vol.type, vol.provisioned_iops) == ("gp2", None) and "gp2 is not provisioned by" in warnings[0]


def test_azure_vm_show_by_lun_and_disk_list_figures(tmp_path: Path) -> None:
    vm = azure_vm(2)
    for d in vm["storageProfile"]["dataDisks"]:  # type: ignore[index]
        del d["diskIOPSReadWrite"], d["diskMBpsReadWrite"]
    disks = [{"name": f"db1-data{i}", "diskSizeGb": 1024, "sku": {"name": "PremiumV2_LRS", "tier": "Premium"},
              "diskIopsReadWrite": 8000, "diskMBpsReadWrite": 300} for i in range(2)]
    files = read_files([_write(tmp_path / "vm.json", vm), _write(tmp_path / "disks.json", disks)])
    assert [v.keys for v in files.volumes] == [{"LUN 1"}, {"LUN 2"}]
    vol = to_volume(files.volumes[0], load_catalog("azure"), [])
    assert (vol.type, vol.size_gb, vol.provisioned_iops, vol.provisioned_throughput) == ("premium-v2", 1024, 8000, 300)


def test_gcp_disks_list_and_oci_volumes_with_attachments(tmp_path: Path) -> None:
    gcp = read_files([_write(tmp_path / "g.json", gcp_disks(1))]).volumes[0]
    vol = to_volume(gcp, load_catalog("gcp"), [])
    assert (gcp.keys, vol.type, vol.size_gb, vol.provisioned_iops, vol.provisioned_throughput) == (
        {"data-0"}, "hyperdisk-balanced", 1024, 6000, 290)
    volumes, attachments = oci_files(1)
    oci = read_files([_write(tmp_path / "v.json", volumes), _write(tmp_path / "a.json", attachments)]).volumes[0]
    assert oci.keys == {"/dev/oracleoci/oraclevdb", "iqn.2015-12.com.oracleiaas:00000000-aaaa-bbbb-cccc-dddddddddddd"}
    vol = to_volume(oci, load_catalog("oci"), [])
    assert (vol.type, vol.size_gb, vol.vpu_per_gb) == ("block", 500, 20)


def test_a_type_the_catalog_lacks_is_one_line(tmp_path: Path) -> None:
    vols = {"Volumes": [{"VolumeId": "vol-0123456789abcdef0", "Size": 8, "VolumeType": "standard"}]}
    pv = read_files([_write(tmp_path / "a.json", vols)]).volumes[0]
    with pytest.raises(InputError, match="volume type 'standard' is not in the aws catalog"):
        to_volume(pv, load_catalog("aws"), [])


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


HOSTILE = {
    "deep nesting": (lambda p: (p.write_text("[" * 100_000 + "]" * 100_000), p)[1], "nested deeper"),
    "deep but parseable": (lambda p: (p.write_text('{"Volumes": ' + "[" * 80 + "]" * 80 + "}"), p)[1],
                           "nested deeper"),
    "huge": (lambda p: (p.write_bytes(b" " * (17 * 1024 * 1024)), p)[1], "larger than"),
    "fifo": (_fifo, "FIFO"),
    "not json": (lambda p: (p.write_text("VolumeId vol-1 gp3 500\n"), p)[1], "not JSON"),
    "not utf-8": (lambda p: (p.write_bytes(b"\xff\xfe{\x00}\x00"), p)[1], "not UTF-8"),
    "another shape": (lambda p: _write(p, {"volumes": []}), "not a provider file"),
    "control character in a name": (lambda p: _write(p, {"Volumes": [{"VolumeId": "vol-1\x1b[2J\nx", "Size": 1,
                                                                       "VolumeType": "gp3"}]}), "printable name"),
    "wrong type": (lambda p: _write(p, {"Volumes": [{"VolumeId": "vol-1", "Size": "big", "VolumeType": "gp3"}]}),
                   "Size"),
    "a list of strings": (lambda p: _write(p, {"Volumes": ["vol-1"]}), "list of objects"),
    "missing": (lambda p: p, "file not found"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_provider_files_are_one_line_exit_2(case: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    make, words = HOSTILE[case]
    aws_host(tmp_path / "host")
    bad = make(tmp_path / "volumes.json")
    out = tmp_path / "inv.json"
    code, stdout, err = run(["inspect", "--root", str(tmp_path / "host"), "--volumes", str(bad), "--json",
                             "--out", str(out)], capsys)
    assert code == 2 and stdout == "" and err.count("\n") == 1, err
    assert words in err and "--volumes" in err and "\x1b" not in err and "Traceback" not in err
    assert not out.exists() and {p.name for p in tmp_path.iterdir()} <= {"host", "volumes.json"}
