"""Azure managed disks: Premium SSD (v1) performs and bills by size tier (P1-P80, the size rounds up to
the tier); Premium SSD v2 and Ultra Disk take provisioned IOPS (per-GiB ratio) and MB/s (per-IOPS ratio)."""

from __future__ import annotations

from typing import Any

from blockfit.catalog.models import Catalog, Shape, VolumeType
from blockfit.catalog.names import azure_series
from blockfit.errors import InputError
from blockfit.model.kinds.base import DefaultCloud, MemberPerf, check_size, priced, reject_provisioning, to_mbps
from blockfit.schema import CostItem, Volume


def tier_for(vt: VolumeType, size_gb: float) -> dict[str, Any]:
    """The smallest tier at least as large as the disk: Azure bills and performs by that tier."""
    for tier in vt.tiers:
        if size_gb <= tier["size_gb"]:
            return tier
    raise InputError(f"size {size_gb:g} GiB: larger than the largest tier ({vt.tiers[-1]['name']}, "
                     f"{vt.tiers[-1]['size_gb']:,} GiB)")


class AzureTiered:
    def level_names(self, vt: VolumeType) -> list[str]:
        return []

    def normalize(self, cat: Catalog, vt: VolumeType, vol: Volume) -> Volume:
        check_size(vt, vol, vol.type)
        reject_provisioning(vol, vol.type)
        tier_for(vt, vol.size_gb)
        return vol

    def level_spec(self, vt: VolumeType, vol: Volume) -> str:
        return vol.type

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        tier = tier_for(vt, vol.size_gb)
        name = tier["name"]
        warnings = []
        if vol.size_gb != tier["size_gb"]:
            warnings.append(f"A {vol.size_gb:,} GiB {vt.name} disk performs and bills as {name} "
                            f"({tier['size_gb']:,} GiB); size it to the tier.")
        if tier.get("burst") == "credit":
            warnings.append(f"{name} bursts to {tier['burst_iops']:,} IOPS / {tier['burst_mbps']} MB/s on credits "
                            f"(up to 30 minutes); the sustained {tier['iops']:,} IOPS / {tier['mbps']} MB/s "
                            "is modelled.")
        elif tier.get("burst") == "on-demand":
            warnings.append(f"{name} can enable on-demand bursting to {tier['burst_iops']:,} IOPS / "
                            f"{tier['burst_mbps']:,} MB/s for an extra fee; not modelled.")
        return MemberPerf(
            iops=float(tier["iops"]), iops_rule=f"tier {name} ({tier['iops']:,} IOPS)", iops_field="tiers",
            iops_name="volume_iops_cap", mbps=to_mbps(tier["mbps"], vt),
            mbps_rule=f"tier {name} ({tier['mbps']:,} MB/s)", mbps_field="tiers", mbps_name="volume_mbps_cap",
            accounting_bytes=vt.io_accounting_kib * 1024 if vt.io_accounting_kib else None, warnings=warnings)

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        tier = tier_for(vt, vol.size_gb)
        price = next((p["price"] for p in vt.price_tiers if p["tier"] == tier["name"]), None)
        return [priced(f"{tier['name']} disk ({tier['size_gb']:,} GiB tier)", 1, "disk-month", price,
                       cat.cite(vt, "price_tiers"))]


class AzureProvisioned:
    """Premium SSD v2 (free baseline, IOPS per GiB above a free size) and Ultra Disk (IOPS required)."""

    def level_names(self, vt: VolumeType) -> list[str]:
        return []

    def iops_range(self, vt: VolumeType, size_gb: float) -> tuple[float, float]:
        assert vt.iops_max and vt.iops_per_gb_max
        low = vt.iops_included if vt.iops_included is not None else (vt.iops_min or 1)
        scaled = (vt.iops_included or 0) + vt.iops_per_gb_max * max(0.0, size_gb - (vt.iops_free_gb or 0))
        return low, max(low, min(vt.iops_max, scaled))

    def tput_range(self, vt: VolumeType, iops: float) -> tuple[float, float]:
        assert vt.tput_max and vt.tput_per_iops_max
        low = vt.tput_included if vt.tput_included is not None else (vt.tput_min or 0)
        return low, max(low, min(vt.tput_max, vt.tput_per_iops_max * iops))

    def normalize(self, cat: Catalog, vt: VolumeType, vol: Volume) -> Volume:
        check_size(vt, vol, vol.type)
        low, top = self.iops_range(vt, vol.size_gb)
        if vol.provisioned_iops is None and vt.iops_included is None:
            raise InputError(f"layout level {vol.type}: expected provisioned IOPS, e.g. {vol.type}:{top:.0f}")
        iops = vol.provisioned_iops if vol.provisioned_iops is not None else int(low)
        if not low <= iops <= top:
            raise InputError(f"{vol.type} IOPS {iops} for {vol.size_gb} GiB: expected {low:,.0f} to {top:,.0f} "
                             f"({vt.iops_per_gb_max:g} IOPS per GiB, max {vt.iops_max:,.0f})")
        tlow, ttop = self.tput_range(vt, iops)
        default = vt.tput_included if vt.tput_included is not None else ttop
        tput = vol.provisioned_throughput if vol.provisioned_throughput is not None else default
        if not tlow <= tput <= ttop:
            raise InputError(f"{vol.type} throughput {tput:g} {vt.throughput_unit} at {iops} IOPS: expected "
                             f"{tlow:g} to {ttop:g} ({vt.tput_per_iops_max:g} {vt.throughput_unit} per IOPS, "
                             f"max {vt.tput_max:g})")
        return vol.model_copy(update={"provisioned_iops": iops, "provisioned_throughput": tput})

    def level_spec(self, vt: VolumeType, vol: Volume) -> str:
        return f"{vol.type}:{vol.provisioned_iops}:{vol.provisioned_throughput:g}"

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        assert vol.provisioned_iops is not None and vol.provisioned_throughput is not None
        warnings = []
        if (vt.tput_included is not None and vol.provisioned_throughput == vt.tput_included
                and vt.iops_included is not None and vol.provisioned_iops > vt.iops_included):
            warnings.append(f"{vt.name}: {vol.provisioned_iops:,} IOPS with the included {vt.tput_included:g} "
                            f"{vt.throughput_unit} (no throughput given; that is what {vol.type}:IOPS provisions); "
                            f"give {vol.type}:IOPS:MBPS, MBPS in {vt.throughput_unit}, to provision more.")
        if vt.tput_included is None:
            _, ttop = self.tput_range(vt, vol.provisioned_iops)
            if vol.provisioned_throughput == ttop:
                warnings.append(f"{vt.name}: throughput {ttop:g} {vt.throughput_unit} is the most the provisioned "
                                f"IOPS allow; give {vol.type}:IOPS:MBPS if you provision less.")
        return MemberPerf(
            iops=vol.provisioned_iops, iops_rule=f"provisioned ({vol.provisioned_iops:,} IOPS)",
            iops_field="iops_max", iops_name="volume_iops_provisioned",
            mbps=to_mbps(vol.provisioned_throughput, vt),
            mbps_rule=f"provisioned ({vol.provisioned_throughput:g} {vt.throughput_unit})", mbps_field="tput_max",
            mbps_name="volume_mbps_provisioned",
            accounting_bytes=vt.io_accounting_kib * 1024 if vt.io_accounting_kib else None, warnings=warnings)

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        assert vol.provisioned_iops is not None and vol.provisioned_throughput is not None
        iops_free = vt.iops_included or 0
        tput_free = vt.tput_included or 0
        return [
            priced("storage", vol.size_gb, "GiB-month", vt.price_per_gb, cat.cite(vt, "price_per_gb")),
            priced(f"IOPS above {iops_free:,.0f}" if iops_free else "provisioned IOPS",
                   max(0, vol.provisioned_iops - iops_free), "IOPS-month", vt.price_per_iops,
                   cat.cite(vt, "price_per_iops")),
            priced(f"throughput above {tput_free:g} {vt.throughput_unit}" if tput_free else "provisioned throughput",
                   max(0.0, vol.provisioned_throughput - tput_free), f"{vt.throughput_unit}-month",
                   vt.price_per_tput, cat.cite(vt, "price_per_tput")),
        ]


class AzureCloud(DefaultCloud):
    """Azure sizes name their series with a letter, a vCPU count and features (Standard_E8s_v5 is Esv5)."""

    name = "azure"
    instance_burst: str | None = "azure_vm"
    instance_example = "Standard_E16s_v5"
    import_howto = ("az vm list-skus --location REGION --output json > skus.json; blockfit catalog import --cloud "
                    "azure skus.json --out azure.toml; then --catalog azure.toml")
    price_list = "a Retail Prices API response"

    def family(self, shape: Shape) -> str:
        return shape.series or azure_series(shape.name) or shape.name
