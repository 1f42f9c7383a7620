"""What a user has or wants: volumes, a striped layout of them, the instance, and the workload."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from blockfit.schema.clouds import CloudName
from blockfit.schema.cost import COPIES, Redundancy, absent

Manager = Literal["lvm", "mdadm", "asm", "none"]
Attachment = Literal["iscsi", "paravirtualized"]
HostCaching = Literal["readonly", "none"]
Cloud = CloudName


class Volume(BaseModel):
    """One cloud block volume as the cloud sells it."""

    cloud: Cloud
    type: str = Field(description="catalog volume type: oci 'block'; aws gp3/gp2/io1/io2/st1/sc1; "
                                  "azure premium-v1/premium-v2/ultra; gcp pd-balanced/pd-ssd/...")
    size_gb: int | float = Field(gt=0, description="size in the cloud's billing GB (2^30 bytes on all four clouds); "
                                                 "whole except OCI boot volumes (46.6 GB by default)")
    vpu_per_gb: int | None = Field(default=None, description="OCI performance level in VPUs per GB")
    provisioned_iops: int | None = None
    provisioned_throughput: float | None = Field(
        default=None, description="provisioned throughput in the type's own unit (catalog throughput_unit)")


class Layout(BaseModel):
    """N identical volumes, striped by a volume manager (members=1: a single volume, no striping)."""

    members: int = Field(gt=0)
    volume: Volume
    stripe_size: int | None = Field(default=None, description="stripe (LVM -I / mdadm chunk / ASM AU) in bytes")
    manager: Manager = "lvm"
    attachment: Attachment | None = Field(
        default=None, description="how each volume is attached (OCI: iscsi | paravirtualized); None = the cloud's "
                                  "default / not modelled")
    paths: int | None = Field(
        default=None, gt=0, description="paths per volume that carry I/O (iSCSI sessions dm-multipath spreads over); "
                                        "None = the attachment type's default (catalog)")
    redundancy: Redundancy = Field(default="none", description="ASM normal/high (2/3 copies), mdadm raid10 (2)")
    host_caching: HostCaching | None = Field(
        default=None, exclude_if=absent, description="Azure host caching of every member (readonly | none); None = "
                                                     "none, not written")

    @property
    def total_gb(self) -> int | float:
        return self.members * self.volume.size_gb

    @property
    def usable_gb(self) -> float:
        return self.total_gb / COPIES[self.redundancy]


class Instance(BaseModel):
    """A compute instance: a shape, and its compute count where the spec names one (a flexible shape). The count is
    in vCPUs on every cloud; OCI results also carry it as OCI presents and prices it, in OCPUs."""

    cloud: Cloud
    shape: str
    vcpus: float | None = Field(default=None, description="vCPUs the spec names (SHAPE:N; on OCI its OCPUs in "
                                                          "vCPUs); None: a fixed size, or the count left open")
    ocpus: float | None = Field(default=None, exclude_if=absent,
                                description="OCI only: the OCPUs the spec names (OCI's unit: 2 vCPUs on x86 and "
                                            "AmpereOne, 1 on Ampere A1); never written on other clouds")
    interface: Literal["scsi", "nvme"] | None = Field(default=None, description="disk interface (Azure sizes that "
                                                      "offer both); None = the size's default")
    ebs_weighting: str | None = Field(default=None, description="AWS EBS bandwidth weighting (8th generation): "
                                                                "default | ebs-1 | vpc-1; None = default")

    @property
    def count(self) -> float | None:
        """The count in the unit the cloud sells compute in, as SHAPE:N carries it: OCPUs on OCI, else vCPUs."""
        return self.ocpus if self.ocpus is not None else self.vcpus

    @property
    def spec(self) -> str:
        return self.shape if self.count is None else f"{self.shape}:{self.count:g}"


class Workload(BaseModel):
    """The I/O the database does, in the terms CALIBRATE_IO uses: small random reads, large scans."""

    small_io: int = Field(default=8192, description="bytes per small (random) I/O")
    large_io: int = Field(default=1024 * 1024, description="bytes per large (sequential) I/O")
    read_pct: float = Field(default=100.0, ge=0.0, le=100.0, description="share of I/Os that are reads, percent")
    random: bool = True
    outstanding: int | None = Field(default=None, description="total outstanding I/Os the host keeps in flight")
    host_queue_depth: int | None = Field(
        default=None, description="per-volume host queue depth (e.g. iSCSI node.session.queue_depth)")

    @property
    def read_share(self) -> float:
        """The read share as a fraction (0-1), for arithmetic; JSON carries read_pct only."""
        return self.read_pct / 100
