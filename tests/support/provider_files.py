"""Provider CLI output for the lab's cloud-host guests, in the shape each CLI prints it (the cloud APIs are the one
thing the tests stand in for): `aws ec2 describe-volumes`, `az disk list` (and `az vm show`, whose data disks
carry the LUNs), `gcloud compute disks list --format=json`, `oci bv volume list` (and `oci compute
volume-attachment list`, whose attachments carry the device paths). IDs match the guest's disks: the EBS volume
ID is the NVMe serial with its dash, Azure's LUN is the SCSI LUN, GCP's disk name is the SCSI serial, OCI's
attachment names the /dev/oracleoci path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from blockfit.lab.clouds import CloudVolume, fake_id
from blockfit.schema import Layout

AZ_SUB = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/BLOCKFIT-LAB/providers/Microsoft.Compute"
GCP_BASE = "https://www.googleapis.com/compute/v1/projects/blockfit-lab/zones/us-central1-a"
OCI_COMPARTMENT = "ocid1.compartment.oc1..aaaaaaaablockfitlab"
CREATED = "2026-12-01T09:30:00.000Z"


def aws_describe_volumes(vols: list[CloudVolume], layout: Layout, instance_id: str) -> dict[str, Any]:
    v = layout.volume
    return {"Volumes": [{
        "Attachments": [{"AttachTime": CREATED, "Device": f"/dev/sd{chr(ord('f') + i)}", "InstanceId": instance_id,
                         "State": "attached", "VolumeId": c.volume_id, "DeleteOnTermination": False}],
        "AvailabilityZone": "us-east-1a", "CreateTime": CREATED, "Encrypted": False, "Size": int(v.size_gb),
        "SnapshotId": "", "State": "in-use", "VolumeId": c.volume_id, "Iops": v.provisioned_iops,
        "VolumeType": v.type, "MultiAttachEnabled": False, "Throughput": int(v.provisioned_throughput or 0)}
        for i, c in enumerate(vols)]}


def _az_disk(c: CloudVolume, layout: Layout, vm: str, tier: str, iops: int, mbps: int) -> dict[str, Any]:
    return {
        "creationData": {"createOption": "Empty"}, "diskIOPSReadWrite": iops, "diskMBpsReadWrite": mbps,
        "diskSizeBytes": int(layout.volume.size_gb) << 30, "diskSizeGB": int(layout.volume.size_gb),
        "diskState": "Attached", "encryption": {"type": "EncryptionAtRestWithPlatformKey"},
        "id": f"{AZ_SUB}/disks/{c.volume_id}", "location": "eastus", "managedBy": f"{AZ_SUB}/virtualMachines/{vm}",
        "name": c.volume_id, "networkAccessPolicy": "AllowAll", "osType": None, "provisioningState": "Succeeded",
        "resourceGroup": "BLOCKFIT-LAB", "sku": {"name": "Premium_LRS", "tier": "Premium"}, "tier": tier,
        "timeCreated": "2026-12-01T09:30:00.0000000+00:00", "type": "Microsoft.Compute/disks",
        "uniqueId": fake_id(c.volume_id, 8) + "-0000-4000-8000-" + fake_id(c.volume_id + "u", 12), "zones": None}


def az_disk_list(vols: list[CloudVolume], layout: Layout, vm: str, tier: str, iops: int,
                 mbps: int) -> list[dict[str, Any]]:
    return [_az_disk(c, layout, vm, tier, iops, mbps) for c in vols]


def az_vm_show(vols: list[CloudVolume], layout: Layout, vm: str, size: str) -> dict[str, Any]:
    data = [{"caching": "None", "createOption": "Attach", "deleteOption": "Detach", "diskIOPSReadWrite": None,
             "diskMBpsReadWrite": None, "diskSizeGB": int(layout.volume.size_gb), "lun": c.lun,
             "managedDisk": {"id": f"{AZ_SUB}/disks/{c.volume_id}", "storageAccountType": "Premium_LRS"},
             "name": c.volume_id, "toBeDetached": False, "writeAcceleratorEnabled": False} for c in vols]
    return {"hardwareProfile": {"vmSize": size}, "id": f"{AZ_SUB}/virtualMachines/{vm}", "location": "eastus",
            "name": vm, "storageProfile": {"dataDisks": data}, "type": "Microsoft.Compute/virtualMachines"}


def gcloud_disks_list(vols: list[CloudVolume], layout: Layout, vm: str) -> list[dict[str, Any]]:
    return [{
        "creationTimestamp": "2026-12-01T01:30:00.000-08:00", "id": str(int(fake_id(c.volume_id, 15), 16)),
        "kind": "compute#disk", "labelFingerprint": "42WmSpB8rSM=", "lastAttachTimestamp":
        "2026-12-01T01:31:00.000-08:00", "name": c.volume_id, "physicalBlockSizeBytes": "4096",
        "selfLink": f"{GCP_BASE}/disks/{c.volume_id}", "sizeGb": str(int(layout.volume.size_gb)), "status": "READY",
        "type": f"{GCP_BASE}/diskTypes/{layout.volume.type}", "users": [f"{GCP_BASE}/instances/{vm}"],
        "zone": GCP_BASE} for c in vols]


def oci_bv_volume_list(vols: list[CloudVolume], layout: Layout) -> dict[str, Any]:
    v = layout.volume
    return {"data": [{
        "auto-tuned-vpus-per-gb": None, "autotune-policies": [], "availability-domain": "Uocm:US-ASHBURN-AD-1",
        "block-volume-replicas": None, "compartment-id": OCI_COMPARTMENT, "defined-tags": {},
        "display-name": f"data-{i + 1}", "freeform-tags": {}, "id": c.volume_id, "is-auto-tune-enabled": False,
        "is-hydrated": True, "kms-key-id": None, "lifecycle-state": "AVAILABLE", "size-in-gbs": int(v.size_gb),
        "size-in-mbs": int(v.size_gb) * 1024, "source-details": None, "system-tags": {},
        "time-created": "2026-12-01T09:30:00.000000+00:00", "volume-group-id": None,
        "vpus-per-gb": v.vpu_per_gb} for i, c in enumerate(vols)]}


def oci_volume_attachment_list(vols: list[CloudVolume], instance_ocid: str) -> dict[str, Any]:
    return {"data": [{
        "attachment-type": "paravirtual", "availability-domain": "Uocm:US-ASHBURN-AD-1",
        "compartment-id": OCI_COMPARTMENT, "device": c.link, "display-name": f"volumeattachment{i + 1}",
        "id": f"ocid1.volumeattachment.oc1.iad.{fake_id(c.volume_id, 60)}", "instance-id": instance_ocid,
        "is-multipath": None, "is-pv-encryption-in-transit-enabled": False, "is-read-only": False,
        "is-shareable": False, "iscsi-login-state": None, "lifecycle-state": "ATTACHED",
        "time-created": "2026-12-01T09:31:00.000000+00:00", "volume-id": c.volume_id}
        for i, c in enumerate(vols)]}


def write(path: Path, doc: object) -> Path:
    """DOC as the CLIs print JSON (two-space indent)."""
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path
