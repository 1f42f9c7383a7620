"""What `blockfit inspect` found on the host it ran on: the block stack, which cloud volume each disk is, and the
layout in spec grammar of each mounted filesystem, with what `model` predicts for it.

Every identity carries the evidence the host showed for it (`evidence`), so a reader can check it; a disk the
host does not identify is `cloud: null`, never a guess. Figures the host cannot know (volume type, provisioned
IOPS, VPUs) come only from a provider CLI's JSON given as a file (`source_file` says which).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.empty import empty_list
from blockfit.schema.layout import Cloud, Instance, Layout, Volume
from blockfit.schema.prediction import Prediction
from blockfit.schema.result import ResultEnvelope

NodeKind = Literal["disk", "partition", "lvm-linear", "lvm-striped", "dm-linear", "dm-striped", "dm-other",
                   "md", "multipath", "loop", "other"]


class CloudIdentity(BaseModel):
    """Which cloud volume a disk is, from what the host shows (NVMe model/serial, SCSI vendor, by-id links)."""

    cloud: Cloud
    volume_id: str | None = Field(default=None, description="the provider's ID of the volume as the host shows it: "
                                                            "AWS vol-…, Azure LUN N, GCP disk name, OCI device "
                                                            "path or IQN; None where the host shows none")
    evidence: str = Field(description="what the host showed, e.g. \"NVMe model 'Amazon Elastic Block Store', "
                                      "serial vol0123…\"")


class BlockNode(BaseModel):
    """One block device of the stack (a disk, a partition, an LV, an md array, a multipath map)."""

    name: str = Field(description="kernel name: nvme1n1, sdb, dm-3, md0")
    kind: NodeKind
    size_bytes: int = Field(description="bytes: sysfs size (512-byte sectors) x 512")
    dm_name: str | None = Field(default=None, description="device-mapper name (vg-lv) of a dm device")
    members: list[str] = Field(default_factory=empty_list, description="the devices below it (slaves), kernel names")
    stripes: int | None = Field(default=None, description="stripe count (LVM striped LV, md raid0/10); None: none")
    stripe_size: int | None = Field(default=None, description="stripe size / chunk in bytes; None: not striped")
    level: str | None = Field(default=None, description="md level (raid0, raid1, raid10, …); None for non-md")
    stack_evidence: str | None = Field(default=None, description="where its kind and stripe geometry were read: "
                                                                 "dmsetup table, the sysfs queue sizes, md/level")
    vendor: str | None = None
    model: str | None = None
    serial: str | None = None
    by_id: list[str] = Field(default_factory=empty_list, description="names under /dev/disk/by-id and the "
                                                                     "provider's own links that point at it")
    transport: str | None = Field(default=None, description="nvme | scsi | virtio | iscsi | loop | …")
    scsi_address: str | None = Field(default=None, description="SCSI host:channel:target:lun (sysfs)")
    iscsi_queue_depth: int | None = Field(default=None, description="node.session.queue_depth of its iSCSI session")
    asm_label: str | None = Field(default=None, description="the ASM disk name or label it carries, if any")
    identity: CloudIdentity | None = Field(default=None, description="None: the host shows no cloud identity")
    volume: Volume | None = Field(default=None, description="what the provider file says of the volume (type, "
                                                            "provisioned figures); None without one")


class MountedFilesystem(BaseModel):
    """A mounted filesystem and the options that matter to storage performance."""

    mount_point: str
    device: str = Field(description="kernel name of the device it sits on")
    fstype: str
    options: list[str] = Field(default_factory=empty_list)
    barrier: bool | None = Field(default=None, description="False where write barriers are off (nobarrier)")
    noatime: bool
    xfs_sunit_bytes: int | None = None
    xfs_swidth_bytes: int | None = None
    size_bytes: int | None = None
    used_bytes: int | None = Field(default=None, description="bytes in use (statvfs): what a move must copy")


class InventoryLayout(BaseModel):
    """The layout under one mount point (or one unmounted LV/array), in spec grammar, and what it delivers."""

    mount_point: str | None = Field(description="where it is mounted; None: not mounted")
    device: str = Field(description="kernel name of the top device (dm-3, md0, nvme1n1)")
    spec: str | None = Field(description="the layout in spec grammar (9x500G@balanced); None where the volumes' type "
                                         "is unknown (no provider file) — `unknown` says what is missing")
    layout: Layout | None = None
    instance: Instance | None = None
    used_bytes: int | None = Field(default=None, description="bytes in use on its filesystem: what a move copies")
    volumes: list[str] = Field(default_factory=empty_list, description="the disks (or multipath maps) it is made "
                                                                       "of, kernel names, in member order")
    host_queue_depth: int | None = Field(default=None, description="the iSCSI node.session.queue_depth its volumes "
                                                                   "share, given to the model as the workload's "
                                                                   "host queue depth")
    prediction: Prediction | None = Field(default=None, description="what `model` predicts for spec on instance")
    unknown: list[str] = Field(default_factory=empty_list, description="why no spec or prediction, one reason each")


class Inventory(ResultEnvelope):
    kind: Literal["inventory"] = "inventory"
    hostname: str | None = None
    cloud: Cloud | None = Field(default=None, description="the cloud the disks say (None: no cloud identity seen)")
    instance: Instance | None = Field(default=None, description="from DMI where the provider puts it there, else "
                                                                "--instance; None: unknown")
    instance_evidence: str | None = Field(default=None, description="what the instance came from")
    catalog_version: str | None = None
    devices: list[BlockNode] = Field(default_factory=empty_list)
    filesystems: list[MountedFilesystem] = Field(default_factory=empty_list)
    layouts: list[InventoryLayout] = Field(default_factory=empty_list)
    unmatched_volumes: list[str] = Field(default_factory=empty_list, description="volumes a provider file names that "
                                                                                 "no disk of this host matches")
    source_files: list[str] = Field(default_factory=empty_list, description="provider files read (--volumes)")
    warnings: list[str] = Field(default_factory=empty_list)
