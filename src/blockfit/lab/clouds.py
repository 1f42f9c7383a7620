"""A lab guest that looks like a cloud host: its disks show the bus and identity strings each provider gives its
volumes, its DMI the strings the provider's instances carry, and each disk gets the stable name the provider's
udev rules give it (the name a DBA passes to `blockfit build` on that cloud).

What each provider shows (public sources in docs/lab-measuring.md):

- AWS (EBS on Nitro): an NVMe controller per volume, serial = the volume ID without its dash (vol0123…, 20
  characters), model "Amazon Elastic Block Store"; DMI system manufacturer "Amazon EC2", product = the instance
  type, board asset tag = the instance ID. qemu 7.2 cannot set an NVMe model number: it stays QEMU_NVME_MODEL.
- Azure: data disks on one SCSI controller, vendor "Msft", product "Virtual Disk", target 0, LUN = the
  attachment's LUN; DMI "Microsoft Corporation" / "Virtual Machine" and Azure's chassis asset tag.
- GCP (Persistent Disk on SCSI): vendor "Google", product "PersistentDisk", serial = the device name (the disk's
  name unless one was given at attach), a target per disk from 1, LUN 0; DMI "Google" / "Google Compute Engine".
- OCI (paravirtualized): a virtio-scsi controller per volume, the disk at target 1, LUN 1, vendor "ORACLE",
  product "BlockVolume", revision "1.0"; DMI chassis asset tag "OracleCloud.com".

Device names: the kernel names NVMe controllers and SCSI disks in the order their (asynchronous) probes finish,
which each provider documents as unstable across boots; the stable names are links the provider's udev rules
make. The guest has no udev, so its script makes the same links from what sysfs shows (`links.sh`), and the
build scripts are written for them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from blockfit.lab.disks import Disk, Identity, Throttle
from blockfit.lab.qemu import qemu_value

CloudName = Literal["aws", "azure", "gcp", "oci"]
CLOUDS: tuple[CloudName, ...] = ("aws", "azure", "gcp", "oci")
QEMU_NVME_MODEL = "QEMU NVMe Ctrl"  # qemu 7.2's fixed NVMe model number (hw/nvme/ctrl.c); no property sets it
AZURE_ASSET_TAG = "7783-7084-3265-9085-8269-3286-77"  # the chassis asset tag every Azure VM carries
AZURE_DATA_CONTROLLER = "scsi1"  # /dev/disk/azure/scsi1/lunN: data disks sit on the VM's second controller


@dataclass(frozen=True)
class CloudVolume:
    """One emulated cloud volume: the provider's ID for it, the disk the guest sees, and its stable name there."""

    volume_id: str  # AWS vol-…, Azure the disk's name, GCP the disk's name, OCI the volume's OCID
    disk: Disk
    link: str  # the stable path the provider's udev rules give the disk, which the build scripts name
    lun: int | None = None  # Azure: the attachment's LUN


def fake_id(seed: str, digits: int) -> str:
    """DIGITS lower-case hex digits fixed by SEED: IDs that look like the provider's and repeat run to run."""
    return hashlib.sha256(seed.encode()).hexdigest()[:digits]


def aws_volume_id(seed: str) -> str:
    return f"vol-{fake_id(seed, 17)}"


def volumes(cloud: CloudName, count: int, size_bytes: int, work: Path, throttle: Throttle | None = None,
            prefix: str = "data") -> list[CloudVolume]:
    """COUNT volumes of SIZE_BYTES as CLOUD attaches them, their disk files under WORK, each capped by THROTTLE
    (renamed per volume)."""
    out = []
    for i in range(count):
        cap = throttle.renamed(f"{throttle.name}_{i}") if throttle is not None else None
        path = work / f"{prefix}{i}.raw"
        out.append(_volume(cloud, i, prefix, path, size_bytes, cap))
    return out


def _volume(cloud: CloudName, i: int, prefix: str, path: Path, size: int, cap: Throttle | None) -> CloudVolume:
    name = f"{prefix}-{i + 1}"
    if cloud == "aws":
        vol = aws_volume_id(f"{prefix}{i}")
        serial = vol.replace("-", "")
        disk = Disk(serial, path, size, cap, identity=Identity(bus="nvme"))
        return CloudVolume(vol, disk, f"/dev/disk/by-id/nvme-{QEMU_NVME_MODEL.replace(' ', '_')}_{serial}")
    if cloud == "azure":
        ident = Identity(bus="scsi", vendor="Msft", product="Virtual Disk", target=0, lun=i)
        disk = Disk(fake_id(name, 32), path, size, cap, identity=ident)
        return CloudVolume(name, disk, f"/dev/disk/azure/{AZURE_DATA_CONTROLLER}/lun{i}", lun=i)
    if cloud == "gcp":
        ident = Identity(bus="scsi", vendor="Google", product="PersistentDisk", target=i + 1, lun=0)
        return CloudVolume(name, Disk(name, path, size, cap, identity=ident), f"/dev/disk/by-id/google-{name}")
    ident = Identity(bus="scsi", vendor="ORACLE", product="BlockVolume", revision="1.0", controller=i, target=1,
                     lun=1)
    ocid = f"ocid1.volume.oc1.iad.{fake_id(name, 60)}"
    disk = Disk(fake_id(ocid, 32), path, size, cap, identity=ident)
    return CloudVolume(ocid, disk, f"/dev/oracleoci/oraclevd{chr(ord('b') + i)}")


def smbios(cloud: CloudName, shape: str, instance_id: str) -> list[str]:
    """The -smbios tables that give the guest the DMI strings CLOUD's instances of SHAPE show."""
    shape, instance_id = qemu_value(shape), qemu_value(instance_id)
    if cloud == "aws":
        return ["type=0,vendor=Amazon EC2", f"type=1,manufacturer=Amazon EC2,product={shape}",
                f"type=2,manufacturer=Amazon EC2,asset={instance_id}", "type=3,manufacturer=Amazon EC2"]
    if cloud == "azure":
        return ["type=1,manufacturer=Microsoft Corporation,product=Virtual Machine",
                f"type=3,manufacturer=Microsoft Corporation,asset={AZURE_ASSET_TAG}"]
    if cloud == "gcp":
        return ["type=0,vendor=Google", "type=1,manufacturer=Google,product=Google Compute Engine",
                "type=2,manufacturer=Google,product=Google Compute Engine"]
    return ["type=3,asset=OracleCloud.com"]
