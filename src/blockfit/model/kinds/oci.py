"""OCI Block Volume: performance levels in VPUs per GB; IOPS and KB/s scale per GB up to the level's caps."""

from __future__ import annotations

import re

from blockfit.catalog.models import Catalog, Direction, OciLevel, Shape, VolumeType
from blockfit.errors import InputError, ValueProblem
from blockfit.model.kinds.base import DefaultCloud, MemberPerf, check_size, priced, reject_provisioning
from blockfit.schema import CostItem, Volume

_VPU_RE = re.compile(r"^(\d+)vpu\Z", re.ASCII)
NAMED_LEVELS = {"lower-cost": 0, "lowercost": 0, "lower": 0, "balanced": 10, "higher": 20,
                "higher-performance": 20}


def level_for(vt: VolumeType, vpu: int) -> OciLevel:
    for lvl in vt.levels:
        if lvl.vpu == vpu:
            return lvl
    known = ", ".join(str(lv.vpu) for lv in vt.levels)
    raise InputError(f"performance level {vpu} VPU/GB: expected one of {known} in this catalog version")


def vpu_from_level_text(vt: VolumeType, text: str) -> int:
    """'balanced' → 10, '120vpu' → 120; 'uhp' alone is refused (UHP spans 30-120 VPU/GB)."""
    t = text.lower()
    if t in NAMED_LEVELS:
        return NAMED_LEVELS[t]
    if t in ("uhp", "ultra", "ultra-high-performance"):
        uhp = [lv.vpu for lv in vt.levels if lv.vpu >= 30]
        if not uhp:
            raise InputError(f"level {text!r}: this catalog version has no Ultra High Performance levels")
        raise InputError(f"level {text!r}: UHP needs an explicit VPU count, e.g. @{uhp[-1]}vpu ({uhp[0]}-{uhp[-1]})")
    m = _VPU_RE.match(t)
    if not m:
        raise InputError(f"level {text!r}: expected lower-cost, balanced, higher or NNvpu (e.g. 120vpu)")
    vpu = int(m.group(1))
    level_for(vt, vpu)
    return vpu


class OciVpu:
    def level_names(self, vt: VolumeType) -> list[str]:
        return sorted(NAMED_LEVELS) + [f"{lv.vpu}vpu" for lv in vt.levels]

    def normalize(self, cat: Catalog, vt: VolumeType, vol: Volume) -> Volume:
        check_size(vt, vol, f"OCI {vol.type} volume")
        reject_provisioning(vol, f"OCI {vol.type} volume")
        if vol.vpu_per_gb is None:
            raise InputError("OCI volume: expected a performance level (balanced, higher, lower-cost or NNvpu)")
        level_for(vt, vol.vpu_per_gb)
        return vol

    def level_spec(self, vt: VolumeType, vol: Volume) -> str:
        names = {0: "lower-cost", 10: "balanced", 20: "higher"}
        assert vol.vpu_per_gb is not None
        level = names.get(vol.vpu_per_gb, f"{vol.vpu_per_gb}vpu")
        if vol.type == "block":
            return level
        return vol.type if vol.vpu_per_gb == 10 else f"{vol.type}-{level}"   # boot = Balanced boot volume

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        assert vol.vpu_per_gb is not None
        lvl = level_for(vt, vol.vpu_per_gb)
        scaled_iops = lvl.iops_per_gb * vol.size_gb
        scaled_mbps = lvl.kbps_per_gb * vt.kbps_unit_bytes * vol.size_gb / 1e6   # OCI's "KB" is KiB (catalog)
        max_iops = min(lvl.max_iops, vt.max_iops_cap or lvl.max_iops)
        kb = "KiB" if vt.kbps_unit_bytes == 1024 else "KB"
        warnings = []
        if lvl.vpu == 0:
            warnings.append("Lower Cost: OCI warns latency may be higher and vary more; no IOPS SLA.")
        per_gb_iops = scaled_iops < max_iops
        per_gb_mbps = scaled_mbps < lvl.max_mbps
        cap_rule = (f"per-volume cap ({max_iops:,.0f} IOPS at {lvl.vpu} VPU/GB)" if max_iops == lvl.max_iops
                    else f"{vt.name} cap ({max_iops:,.0f} IOPS)")
        return MemberPerf(
            iops=min(scaled_iops, max_iops),
            iops_rule=(f"per-GB scaling ({lvl.iops_per_gb:g} IOPS/GB x {vol.size_gb:g} GB)" if per_gb_iops
                       else cap_rule),
            iops_field="iops_per_gb" if per_gb_iops else "max_iops",
            iops_name="volume_iops_per_gb" if per_gb_iops else "volume_iops_cap",
            mbps=min(scaled_mbps, lvl.max_mbps),
            mbps_rule=(f"per-GB scaling ({lvl.kbps_per_gb:g} {kb}/s per GB x {vol.size_gb:g} GB)" if per_gb_mbps
                       else f"per-volume cap ({lvl.max_mbps:,.0f} MB/s at {lvl.vpu} VPU/GB)"),
            mbps_field="kbps_per_gb" if per_gb_mbps else "max_mbps",
            mbps_name="volume_mbps_per_gb" if per_gb_mbps else "volume_mbps_cap",
            warnings=warnings,
        )

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        assert vol.vpu_per_gb is not None
        items = [priced("storage", vol.size_gb, "GB-month", vt.price_per_gb, cat.cite(vt, "price_per_gb"))]
        if vol.vpu_per_gb:
            items.append(priced(f"performance ({vol.vpu_per_gb} VPU/GB)", vol.size_gb * vol.vpu_per_gb,
                                "VPU-GB-month", vt.price_per_vpu_gb, cat.cite(vt, "price_per_vpu_gb")))
        return items


# Shapes whose OCPU is one hardware thread (Ampere Altra, A1); on every other shape (x86 with two threads per core,
# AmpereOne A2/A4 with two single-threaded cores) an OCPU is two vCPUs. OCI Compute Shapes, "OCPU":
# https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm
_ONE_VCPU_PER_OCPU = re.compile(r"\.A1\.", re.ASCII | re.IGNORECASE)
_CONSISTENT_DEVICE = re.compile(r"/dev/oracleoci/oraclevd[a-z]{1,2}", re.ASCII)


class OciCloud(DefaultCloud):
    """OCI sells OCPUs, names performance levels in VPUs per GB, and attaches volumes over iSCSI (paths, sessions,
    multipath for UHP) or paravirtualized at consistent device paths /dev/oracleoci/oraclevdX."""

    name = "oci"
    steady: str | None = "OCI Block Volumes and shapes"
    compute_unit = "OCPU"
    instance_example = "VM.Standard.E3.Flex:12 or VM.Standard.E4.Flex"
    import_howto = ("oci compute shape list --compartment-id OCID --all --output json > shapes.json; blockfit catalog "
                    "import --cloud oci shapes.json --out oci.toml; then --catalog oci.toml")
    price_list = "the OCI products price list"
    default_direction: Direction = "each"   # caps follow the network: each direction, as blockfit modelled them
    iscsi_attachments = True
    level_type: str | None = "block"
    attach_emitter: str | None = "oci-attachments"
    provision_emitter: str | None = "provision-oci"
    provisioners: tuple[str, ...] = ("oci-cli", "terraform")

    def compute_count(self, shape: Shape) -> float | None:
        return shape.ocpus

    def sized_by_count(self, shape: Shape) -> bool:
        return shape.kind == "flex"

    def vcpus_per_ocpu(self, shape: str) -> float:
        """The one conversion of OCI's unit: 1 vCPU per OCPU on Ampere A1, 2 on every other shape."""
        return 1.0 if _ONE_VCPU_PER_OCPU.search(shape) else 2.0

    def count_fields(self, shape: str, count: float | None) -> dict[str, float | None]:
        return {"vcpus": None if count is None else count * self.vcpus_per_ocpu(shape), "ocpus": count}

    def range_fields(self, lo: float | None, hi: float | None) -> dict[str, float | None]:
        return {"ocpus_min": lo, "ocpus_max": hi}

    def check_vcpu_search(self, count: float) -> None:
        raise ValueProblem(f"{count:g}: OCI sells OCPUs (one OCPU is two vCPUs on x86, one on Arm); search from an "
                           "OCPU count with --cpus N, e.g. --cpus 8")

    def level_vpu(self, vt: VolumeType, text: str) -> int:
        return vpu_from_level_text(vt, text)

    def volume_for_level(self, cat: Catalog, key: str, text: str) -> Volume | None:
        """'boot' / 'boot-higher' a boot volume, a type key that type, any other text a block volume's level."""
        if (key == "boot" or key.startswith("boot-")) and "boot" in cat.volume_types:
            vpu = vpu_from_level_text(cat.volume_types["boot"], key[5:] or "balanced")
            return Volume(cloud=cat.cloud, type="boot", size_gb=50, vpu_per_gb=vpu)
        if key in cat.volume_types:
            return Volume(cloud=cat.cloud, type=key, size_gb=1)
        vpu = vpu_from_level_text(cat.volume_types["block"], text)
        return Volume(cloud=cat.cloud, type="block", size_gb=1, vpu_per_gb=vpu)

    def device_error(self, devices: list[str]) -> str | None:
        for dev in devices:
            if not _CONSISTENT_DEVICE.fullmatch(dev):
                return (f"--devices {dev!r}: OCI attachments need consistent device paths /dev/oracleoci/oraclevdb … "
                        "(multipath for UHP requires them)")
        return None

    def device_note(self, devices: list[str]) -> str | None:
        if all(d.startswith("/dev/oracleoci/") for d in devices):
            return None
        return ("OCI: prefer the consistent device paths (/dev/oracleoci/oraclevdX) in --devices; sdX/vdX names can "
                "change across reboots, and UHP multipath needs the device path")
