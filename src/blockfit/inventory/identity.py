"""Which cloud volume a disk is, from what the host shows, never guessed: one rule per cloud, each with the
evidence it rests on, and the host's cloud and instance type from DMI where the provider writes them there.

- AWS (Nitro): an EBS volume is an NVMe namespace whose controller's model is 'Amazon Elastic Block Store' and
  whose serial is the volume ID without its dash (vol0123… for vol-0123…). Where the model cannot be read as such
  (qemu sets no NVMe model), a serial of 'vol' and 17 hex digits counts only on a host whose DMI sys_vendor is
  'Amazon EC2', and the evidence says so. A Nitro instance's DMI product_name is its instance type.
- Azure: a SCSI disk of vendor 'Msft' (model 'Virtual Disk'); its LUN from /dev/disk/azure/scsi1/lunN (the
  waagent/azure-vm-utils links) or else the L of its SCSI address H:C:T:L.
- GCP: /dev/disk/by-id/google-NAME (NAME the disk's device name), or a SCSI disk of vendor 'Google' (model
  'PersistentDisk') whose unit serial is that name; an NVMe Persistent Disk has model 'nvme_card-pd'.
- OCI: a consistent device path /dev/oracleoci/oraclevdX, an iSCSI target IQN of iqn.2015-12.com.oracleiaas, or
  a SCSI disk of vendor 'ORACLE' (model 'BlockVolume').
"""

from __future__ import annotations

import re

from blockfit.devices.blockstack import HostStack
from blockfit.devices.dmi import Dmi
from blockfit.devices.hardware import DiskHardware
from blockfit.schema.inventory import CloudIdentity
from blockfit.schema.layout import Cloud

EBS_MODEL = "Amazon Elastic Block Store"
AWS_DMI_VENDOR = "Amazon EC2"
AZURE_VENDOR = "Msft"
AZURE_ASSET_TAG = "7783-7084-3265-9085-8269-3286-77"
GCP_VENDOR = "Google"
GCP_NVME_PD = "nvme_card-pd"
OCI_VENDOR = "ORACLE"
OCI_IQN = "iqn.2015-12.com.oracleiaas:"
OCI_ASSET_TAG = "OracleCloud.com"
_EBS_SERIAL = re.compile(r"vol-?([0-9a-f]{17})")
_AZURE_LUN_LINK = re.compile(r"/dev/disk/azure/(?:scsi1/lun|data/by-lun/)(\d+)")
_GOOGLE_LINK = re.compile(r"/dev/disk/by-id/google-(.+)")
_OCI_LINK = re.compile(r"/dev/oracleoci/oraclevd[a-z]+")


def host_cloud(dmi: Dmi) -> tuple[Cloud | None, str | None]:
    """The cloud the machine's DMI names, and the words that say so."""
    if dmi.sys_vendor == AWS_DMI_VENDOR:
        return "aws", f"DMI sys_vendor {dmi.sys_vendor!r}"
    if dmi.chassis_asset_tag == AZURE_ASSET_TAG:
        return "azure", f"DMI chassis_asset_tag {dmi.chassis_asset_tag!r} (Azure's)"
    if dmi.sys_vendor == "Google" or dmi.product_name == "Google Compute Engine":
        return "gcp", f"DMI sys_vendor {dmi.sys_vendor!r}, product_name {dmi.product_name!r}"
    if dmi.chassis_asset_tag == OCI_ASSET_TAG:
        return "oci", f"DMI chassis_asset_tag {dmi.chassis_asset_tag!r}"
    return None, None


def dmi_instance_type(dmi: Dmi) -> str | None:
    """The instance type where DMI carries it: an AWS Nitro instance's product_name (m5.large, r6i.2xlarge)."""
    name = dmi.product_name or ""
    if dmi.sys_vendor == AWS_DMI_VENDOR and re.fullmatch(r"[a-z][a-z0-9-]*\.[a-z0-9-]+", name):
        return name
    return None


def _aws(hw: DiskHardware, dmi: Dmi) -> CloudIdentity | None:
    serial = hw.serial or ""
    m = _EBS_SERIAL.fullmatch(serial)
    if hw.transport != "nvme" or m is None:
        return None
    volume = f"vol-{m.group(1)}"
    if hw.model == EBS_MODEL:
        return CloudIdentity(cloud="aws", volume_id=volume, evidence=f"NVMe model {EBS_MODEL!r}, serial {serial!r}")
    if dmi.sys_vendor == AWS_DMI_VENDOR:
        return CloudIdentity(cloud="aws", volume_id=volume,
                             evidence=f"NVMe serial {serial!r} (vol + 17 hex digits) on a host whose DMI sys_vendor "
                                      f"is {AWS_DMI_VENDOR!r}; NVMe model {hw.model!r}")
    return None


def _azure(hw: DiskHardware, links: list[str], shared_luns: set[int]) -> CloudIdentity | None:
    if hw.vendor != AZURE_VENDOR:
        return None
    for link in links:
        m = _AZURE_LUN_LINK.fullmatch(link)
        if m:
            return CloudIdentity(cloud="azure", volume_id=f"LUN {int(m.group(1))}",
                                 evidence=f"SCSI vendor {hw.vendor!r}, link {link}")
    seen = f"SCSI vendor {hw.vendor!r} model {hw.model!r}, address {hw.hctl}"
    if hw.lun is None or hw.lun in shared_luns:
        why = "" if hw.lun is None else f"; LUN {hw.lun} is on more than one controller and no Azure link says which"
        return CloudIdentity(cloud="azure", volume_id=None, evidence=seen + why)
    return CloudIdentity(cloud="azure", volume_id=f"LUN {hw.lun}", evidence=seen)


def _gcp(hw: DiskHardware, links: list[str]) -> CloudIdentity | None:
    for link in links:
        m = _GOOGLE_LINK.fullmatch(link)
        if m and "-part" not in m.group(1):
            return CloudIdentity(cloud="gcp", volume_id=m.group(1), evidence=f"link {link}")
    if hw.vendor == GCP_VENDOR and hw.transport in ("scsi", "iscsi"):
        return CloudIdentity(cloud="gcp", volume_id=hw.serial,
                             evidence=f"SCSI vendor {hw.vendor!r} model {hw.model!r}, serial {hw.serial!r}")
    if hw.transport == "nvme" and hw.model == GCP_NVME_PD:
        return CloudIdentity(cloud="gcp", volume_id=None,
                             evidence=f"NVMe model {hw.model!r} (the device name needs the namespace's "
                                      "vendor data, which sysfs does not show; no google-* link)")
    return None


def _oci(hw: DiskHardware, links: list[str], target: str | None) -> CloudIdentity | None:
    for link in links:
        if _OCI_LINK.fullmatch(link):
            return CloudIdentity(cloud="oci", volume_id=link, evidence=f"link {link}")
    if target and target.startswith(OCI_IQN):
        return CloudIdentity(cloud="oci", volume_id=target, evidence=f"iSCSI target {target}")
    if hw.vendor == OCI_VENDOR:
        return CloudIdentity(cloud="oci", volume_id=None,
                             evidence=f"SCSI vendor {hw.vendor!r} model {hw.model!r} (no /dev/oracleoci link nor "
                                      "iSCSI target names the attachment)")
    return None


def disk_identity(name: str, stack: HostStack, shared_luns: set[int]) -> CloudIdentity | None:
    """The cloud volume whole disk NAME is, or None where the host shows none."""
    hw = stack.hardware.get(name)
    if hw is None:
        return None
    links = [link.path for link in stack.links if link.device == name]
    queue = stack.devices[name].queue
    target = queue.iscsi_target if queue else None
    return (_aws(hw, stack.dmi) or _azure(hw, links, shared_luns) or _gcp(hw, links) or _oci(hw, links, target))


def shared_azure_luns(stack: HostStack) -> set[int]:
    """LUNs more than one Msft disk has (the OS disk and a data disk both at LUN 0 on different controllers)."""
    luns = [hw.lun for hw in stack.hardware.values() if hw.vendor == AZURE_VENDOR and hw.lun is not None]
    return {lun for lun in luns if luns.count(lun) > 1}
