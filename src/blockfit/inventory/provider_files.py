"""The provider CLI's own JSON of the volumes (`--volumes FILE`): what the host cannot know of a disk.

Read, each recognised by its shape: `aws ec2 describe-volumes` ({"Volumes": [...]}, matched by VolumeId), `az vm
show` (storageProfile.dataDisks, matched by LUN) and `az disk list` (a list of disks with `sku`, matched by name
through the VM's dataDisks), `gcloud compute disks list --format=json` (a list with `sizeGb`, matched by name: the
device name a disk is attached under is its name unless --device-name said otherwise; `gcloud compute instances
describe --format=json` gives each disk's device name and the machine type), and `oci bv volume list`
({"data": [... "vpus-per-gb" ...]}) with `oci compute volume-attachment list` ({"data": [... "volume-id" ...]},
matched by device path or IQN). Every file is read through inputs (a regular file, size capped, depth bounded);
a field of the wrong type, or a name with a control character, is refused with one line naming the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blockfit.errors import InputError
from blockfit.inputs import load_json, read_capped
from blockfit.schema.layout import Cloud

MAX_FILE = 16 * 1024 * 1024  # a describe-volumes of a few thousand volumes is a few MB
MAX_NAME = 256
EXPECTED = ("the JSON of aws ec2 describe-volumes, az vm show, az disk list, gcloud compute disks list "
            "--format=json, gcloud compute instances describe --format=json, oci bv volume list or oci compute "
            "volume-attachment list")


@dataclass
class ProviderVolume:
    """One volume a provider file names: how a disk is matched to it, and its figures in the provider's words."""

    cloud: Cloud
    label: str                    # how it is named in unmatched_volumes: vol-0abc…, LUN 2 (name), disk name, OCID
    source: str                   # the file it came from
    keys: set[str] = field(default_factory=set)    # identity volume_ids that are this volume
    name: str | None = None       # Azure disk name, GCP disk name, OCI volume OCID (what other files refer to)
    type: str | None = None       # the provider's type name: gp3, PremiumV2_LRS, pd-balanced, block
    size_gb: float | None = None
    iops: int | None = None
    throughput: float | None = None
    vpu_per_gb: int | None = None


@dataclass
class ProviderFiles:
    volumes: list[ProviderVolume] = field(default_factory=list)
    # OCI attachments: device path or IQN -> volume OCID; Azure disks by name (az disk list) for the VM's LUNs
    oci_attachments: dict[str, str] = field(default_factory=dict)
    # GCP: disk name -> the device name it is attached under (gcloud compute instances describe)
    gcp_device_names: dict[str, str] = field(default_factory=dict)
    # the instance a file names (az vm show hardwareProfile.vmSize, gcloud instances describe machineType)
    instance: tuple[Cloud, str, str] | None = None
    sources: list[str] = field(default_factory=list)


def _optional_text(value: Any, where: str, what: str) -> str | None:
    return None if value is None else _text(value, where, what)


def _text(value: Any, where: str, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_NAME or not value.isprintable():
        raise InputError(f"{where}: {what} is {str(value)[:40]!r}; expected a printable name of at most "
                         f"{MAX_NAME} characters")
    return value


def _number(value: Any, where: str, what: str, kind: type = float) -> Any:
    """A JSON number, or a string of digits (gcloud prints int64 fields as strings); None stays None."""
    if value is None:
        return None
    if isinstance(value, str) and value.replace(".", "", 1).isdigit() and len(value) <= 15:
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InputError(f"{where}: {what} is {str(value)[:40]!r}; expected a number of at least 0")
    return kind(value) if kind is int and float(value).is_integer() else value


def _items(value: Any, where: str, what: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InputError(f"{where}: {what}: expected a list of objects")
    return value


def _located(items: list[dict[str, Any]], where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each item with the place an error about it names: 'FILE: Volumes[3]'."""
    for i, item in enumerate(items):
        yield f"{where}[{i}]", item


def _aws(data: dict[str, Any], where: str) -> list[ProviderVolume]:
    out = []
    for here, v in _located(_items(data["Volumes"], where, "Volumes"), f"{where}: Volumes"):
        vid = _text(v.get("VolumeId"), here, "VolumeId")
        out.append(ProviderVolume(cloud="aws", label=vid, source=where, keys={vid}, name=vid,
                                  type=_text(v.get("VolumeType"), here, "VolumeType"),
                                  size_gb=_number(v.get("Size"), here, "Size"),
                                  iops=_number(v.get("Iops"), here, "Iops", int),
                                  throughput=_number(v.get("Throughput"), here, "Throughput")))
    return out


def _azure_disk(d: dict[str, Any], here: str, lun: int | None) -> ProviderVolume:
    name = _text(d.get("name"), here, "name")
    managed: dict[str, Any] = d["managedDisk"] if isinstance(d.get("managedDisk"), dict) else {}
    sku: dict[str, Any] = d["sku"] if isinstance(d.get("sku"), dict) else {}
    kind = managed.get("storageAccountType") or sku.get("name")
    label = f"LUN {lun} ({name})" if lun is not None else str(name)
    return ProviderVolume(cloud="azure", label=label, source=here.split(": ")[0],
                          keys={f"LUN {lun}"} if lun is not None else set(), name=name,
                          type=_optional_text(kind, here, "storageAccountType"),
                          size_gb=_number(d.get("diskSizeGb", d.get("diskSizeGB")), here, "diskSizeGb"),
                          iops=_number(d.get("diskIOPSReadWrite", d.get("diskIopsReadWrite")), here,
                                       "diskIOPSReadWrite", int),
                          throughput=_number(d.get("diskMBpsReadWrite"), here, "diskMBpsReadWrite"))


def _azure_vm(data: dict[str, Any], where: str, files: ProviderFiles) -> list[ProviderVolume]:
    hardware = data.get("hardwareProfile")
    if isinstance(hardware, dict) and hardware.get("vmSize") is not None:
        size = _text(hardware.get("vmSize"), where, "hardwareProfile.vmSize")
        files.instance = ("azure", size, where)
    profile = data["storageProfile"]
    disks = profile.get("dataDisks", []) if isinstance(profile, dict) else None
    out = []
    for here, d in _located(_items(disks, where, "storageProfile.dataDisks"), f"{where}: storageProfile.dataDisks"):
        lun = _number(d.get("lun"), here, "lun", int)
        if not isinstance(lun, int):
            raise InputError(f"{here}: lun is {d.get('lun')!r}; expected a whole number")
        out.append(_azure_disk(d, here, lun))
    return out


def _gcp(items: list[dict[str, Any]], where: str) -> list[ProviderVolume]:
    out = []
    for here, d in _located(items, f"{where}: "):
        name = _text(d.get("name"), here, "name")
        kind = _text(d.get("type"), here, "type")
        out.append(ProviderVolume(cloud="gcp", label=name, source=where, keys={name}, name=name,
                                  type=kind.rsplit("/", 1)[-1], size_gb=_number(d.get("sizeGb"), here, "sizeGb"),
                                  iops=_number(d.get("provisionedIops"), here, "provisionedIops", int),
                                  throughput=_number(d.get("provisionedThroughput"), here, "provisionedThroughput")))
    return out


def _gcp_instance(data: dict[str, Any], where: str, files: ProviderFiles) -> None:
    """gcloud compute instances describe: each attached disk's device name (what the host shows) and its disk."""
    for here, d in _located(_items(data["disks"], where, "disks"), f"{where}: disks"):
        device = _text(d.get("deviceName"), here, "deviceName")
        source = _optional_text(d.get("source"), here, "source")
        if device and source:
            files.gcp_device_names[source.rsplit("/", 1)[-1]] = device
    machine = _optional_text(data.get("machineType"), where, "machineType")
    if machine:
        files.instance = ("gcp", machine.rsplit("/", 1)[-1], where)


def _oci_volumes(items: list[dict[str, Any]], where: str) -> list[ProviderVolume]:
    out = []
    for here, d in _located(items, f"{where}: data"):
        ocid = _text(d.get("id"), here, "id")
        shown = _optional_text(d.get("display-name"), here, "display-name")
        out.append(ProviderVolume(cloud="oci", label=f"{ocid} ({shown})" if shown else ocid, source=where,
                                  name=ocid, type="block", size_gb=_number(d.get("size-in-gbs"), here, "size-in-gbs"),
                                  vpu_per_gb=_number(d.get("vpus-per-gb"), here, "vpus-per-gb", int)))
    return out


def _oci_attachments(items: list[dict[str, Any]], where: str, files: ProviderFiles) -> None:
    for here, d in _located(items, f"{where}: data"):
        if d.get("lifecycle-state") not in (None, "ATTACHED"):
            continue
        ocid = _text(d.get("volume-id"), here, "volume-id")
        for key in ("device", "iqn"):
            value = _optional_text(d.get(key), here, key)
            if value:
                files.oci_attachments[value] = ocid


def _is_azure_disk_list(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and all(isinstance(d, dict) and "sku" in d for d in data)


def _is_gcp_disk_list(data: Any) -> bool:
    return isinstance(data, list) and bool(data) and all(isinstance(d, dict) and "sizeGb" in d for d in data)


def parse(data: Any, where: str, files: ProviderFiles) -> None:
    """Add what one file's parsed JSON says to FILES; a shape none of the providers writes is refused."""
    if isinstance(data, dict) and "Volumes" in data:
        files.volumes += _aws(data, where)
    elif isinstance(data, dict) and "storageProfile" in data:
        files.volumes += _azure_vm(data, where, files)
    elif _is_azure_disk_list(data):
        files.volumes += [_azure_disk(d, f"{where}: [{i}]", None) for i, d in enumerate(data)]
    elif _is_gcp_disk_list(data):
        files.volumes += _gcp(data, where)
    elif isinstance(data, dict) and "disks" in data and "machineType" in data:
        _gcp_instance(data, where, files)
    elif isinstance(data, dict) and isinstance(data.get("data"), list) and data["data"]:
        _oci_data(data["data"], where, files)
    else:
        raise InputError(f"{where}: not a provider file blockfit knows; expected {EXPECTED}")
    files.sources.append(where)


def _oci_data(data: list[Any], where: str, files: ProviderFiles) -> None:
    """An OCI CLI's 'data' list: volume attachments (each with a volume-id) or volumes (each with vpus-per-gb);
    a list of neither, or of both mixed, is refused."""
    items = _items(data, where, "data")
    if all("volume-id" in d for d in items):
        _oci_attachments(items, where, files)
    elif all("vpus-per-gb" in d for d in items):
        files.volumes += _oci_volumes(items, where)
    else:
        raise InputError(f"{where}: an OCI 'data' list of neither volumes (vpus-per-gb) nor attachments "
                         f"(volume-id); expected {EXPECTED}")


def read_files(paths: list[Path]) -> ProviderFiles:
    """Every --volumes file, read and parsed once, before any matching."""
    files = ProviderFiles()
    for path in paths:
        where = f"--volumes {path}"
        raw = read_capped(path, where, EXPECTED, MAX_FILE)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise InputError(f"{where}: not UTF-8 text; expected {EXPECTED}") from None
        try:
            data = load_json(text, where)
        except InputError:
            raise
        except ValueError as exc:
            raise InputError(f"{where}: not JSON ({str(exc)[:80]}); expected {EXPECTED}") from None
        parse(data, where, files)
    _merge_azure(files)
    for vol in files.volumes:   # OCI: a disk shows its attachment's device path or IQN, never the volume's OCID
        vol.keys |= {key for key, ocid in files.oci_attachments.items() if vol.cloud == "oci" and ocid == vol.name}
        if vol.cloud == "gcp" and vol.name in files.gcp_device_names:   # the device name the instance gave it
            vol.keys = {files.gcp_device_names[vol.name]}
    return files


def _merge_azure(files: ProviderFiles) -> None:
    """az disk list entries fill the figures a VM's dataDisks entry of the same name lacks, then drop out."""
    by_lun = [v for v in files.volumes if v.cloud == "azure" and v.keys]
    listed = {v.name: v for v in files.volumes if v.cloud == "azure" and not v.keys}
    for vol in by_lun:
        disk = listed.pop(vol.name, None) if vol.name else None
        if disk is None:
            continue
        vol.type = vol.type or disk.type
        vol.size_gb = vol.size_gb or disk.size_gb
        vol.iops = vol.iops if vol.iops is not None else disk.iops
        vol.throughput = vol.throughput if vol.throughput is not None else disk.throughput
        files.volumes.remove(disk)
