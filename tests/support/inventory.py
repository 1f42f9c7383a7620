"""Inventories as `blockfit inspect` writes them, built from the schema's models (the seeds' /u01 and variants), for
the commands that take --inventory."""

from __future__ import annotations

import json
from pathlib import Path

from blockfit.schema import BlockNode, CloudIdentity, Inventory, InventoryLayout, MountedFilesystem
from blockfit.specs import parse_instance, parse_layout

MIB = 1024 * 1024
GIB = 1024**3
# the seed's LV: lvconvert reported "Number of extents requested (1165823)", at LVM's default 4 MiB extents
SEED_LV_BYTES = 1165823 * 4 * MIB


def seed_inventory(used_bytes: int | None = None, spec: str | None = "1x4.5T@balanced",
                   instance: str = "VM.Standard.E3.Flex:12", manager: str = "lvm") -> Inventory:
    """The seeds' starting point: one 4.5 TB Balanced iSCSI volume (sdb) under an LV (dm-0) mounted at /u01, on
    VM.Standard.E3.Flex:12; SPEC None: the volume's type unknown (no provider file)."""
    layout = None if spec is None else parse_layout(spec, "oci", manager=manager)  # type: ignore[arg-type]
    inst = parse_instance(instance, "oci")
    disk = BlockNode(name="sdb", kind="disk", size_bytes=4608 * GIB, vendor="ORACLE", model="BlockVolume",
                     transport="iscsi", identity=CloudIdentity(cloud="oci", volume_id="/dev/oracleoci/oraclevdb",
                                                               evidence="SCSI vendor 'ORACLE', link oraclevdb"),
                     volume=None if layout is None else layout.volume)
    lv = BlockNode(name="dm-0", kind="lvm-linear", size_bytes=SEED_LV_BYTES, dm_name="ebs_vg-ebs_lv", members=["sdb"])
    fs = MountedFilesystem(mount_point="/u01", device="dm-0", fstype="xfs", options=["rw", "noatime"], noatime=True,
                           size_bytes=SEED_LV_BYTES, used_bytes=used_bytes)
    entry = InventoryLayout(mount_point="/u01", device="dm-0", spec=spec, layout=layout, instance=inst,
                            used_bytes=used_bytes, unknown=[] if spec else ["sdb: volume type unknown (no --volumes)"])
    return Inventory(hostname="ebsdb", cloud="oci", instance=inst, instance_evidence="--instance",
                     devices=[disk, lv], filesystems=[fs], layouts=[entry])


def write_inventory(path: Path, inv: Inventory) -> Path:
    path.write_text(inv.model_dump_json(indent=2))
    return path


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path
