"""Google Cloud: Persistent Disk (pd-balanced, pd-ssd) scales per GiB plus a baseline that Google gives per
VM, not per disk; Hyperdisk (Balanced, Extreme) takes provisioned IOPS (and, for Balanced, throughput)
dedicated to each volume. Throughput is MiB/s as Google publishes it."""

from __future__ import annotations

from blockfit.catalog.models import Catalog, VolumeType
from blockfit.errors import InputError
from blockfit.model.kinds.base import DefaultCloud, FixedPerformance, MemberPerf, check_size, priced, to_mbps
from blockfit.schema import CostItem, Volume


def _storage(cat: Catalog, vt: VolumeType, vol: Volume) -> CostItem:
    return priced("storage", vol.size_gb, "GiB-month", vt.price_per_gb, cat.cite(vt, "price_per_gb"))


class GcpPd(FixedPerformance):
    """Persistent Disk. Google: performance = per-GiB x the total size of the VM's disks of this type, plus a
    per-VM baseline, up to the VM's cap for the type; volumes of one type share it. blockfit gives each of N
    members per-GiB x its size + baseline / N, so the layout total is per-GiB x total size + baseline."""

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        """Without the member count the baseline share is unknown: per-GiB scaling only (a lower bound).
        predict() calls perf_in_layout, which adds the member's share of the per-VM baseline."""
        return self.perf_in_layout(cat, vt, vol, 0)

    def perf_in_layout(self, cat: Catalog, vt: VolumeType, vol: Volume, members: int) -> MemberPerf:
        assert vt.iops_per_gb is not None and vt.tput_per_gb is not None
        base_iops = (vt.iops_included or 0) / members if members else 0.0
        base_tput = (vt.tput_included or 0) / members if members else 0.0
        iops = vt.iops_per_gb * vol.size_gb + base_iops
        mib = vt.tput_per_gb * vol.size_gb + base_tput
        if members == 0:
            share = tshare = ", per-VM baseline not counted"
        elif members == 1:
            share, tshare = (f" + {vt.iops_included:,.0f} per-VM baseline",
                             f" + {vt.tput_included:g} MiB/s per-VM baseline")
        else:
            share, tshare = (f" + {vt.iops_included:,.0f}/{members} per-VM baseline",
                             f" + {vt.tput_included:g}/{members} MiB/s per-VM baseline")
        warnings = [f"{vt.name}: Google shares Persistent Disk performance among all {vol.type} volumes on a VM "
                    f"(per-GiB x total size + one per-VM baseline of {vt.iops_included:,.0f} IOPS / "
                    f"{vt.tput_included:g} MiB/s); blockfit splits the baseline evenly over the members. "
                    "Other disks of this type on the VM (e.g. the boot disk) share the same budget."]
        if members > 1:
            warnings.append(f"{members} {vol.type} disks: Persistent Disk performance is per VM over the total GiB of "
                            f"the type, so striping buys nothing; one {vol.type} disk of {members} x {vol.size_gb:g} "
                            "GiB performs the same at the same price.")
        return MemberPerf(
            iops=iops, iops_rule=f"per-GiB scaling ({vt.iops_per_gb:g} IOPS/GiB x {vol.size_gb} GiB{share})",
            iops_field="iops_per_gb", iops_name="volume_iops_per_gb", mbps=to_mbps(mib, vt),
            mbps_rule=f"per-GiB scaling ({vt.tput_per_gb:g} MiB/s per GiB x {vol.size_gb} GiB{tshare})",
            mbps_field="tput_per_gb", mbps_name="volume_mbps_per_gb", warnings=warnings)

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        return [_storage(cat, vt, vol)]


class GcpHyperdisk:
    """Hyperdisk: IOPS provisioned per volume; throughput provisioned (Balanced) or tied to IOPS (Extreme).
    Google bounds both by size; those size-dependent bounds are not in the catalog and are not checked."""

    def level_names(self, vt: VolumeType) -> list[str]:
        return []

    def _tput_top(self, vt: VolumeType, iops: float) -> float:
        assert vt.tput_max
        if vt.tput_per_iops:
            return min(vt.tput_max, vt.tput_per_iops * iops)
        return vt.tput_max

    def normalize(self, cat: Catalog, vt: VolumeType, vol: Volume) -> Volume:
        check_size(vt, vol, vol.type)
        assert vt.iops_max
        if vol.provisioned_iops is None and vt.iops_included is None:
            raise InputError(f"layout level {vol.type}: expected provisioned IOPS, e.g. {vol.type}:100000")
        iops = vol.provisioned_iops if vol.provisioned_iops is not None else int(vt.iops_included or 0)
        low = vt.iops_min or 1
        if not low <= iops <= vt.iops_max:
            raise InputError(f"{vol.type} IOPS {iops}: expected {low:,.0f} to {vt.iops_max:,.0f}")
        if not vt.tput_provisionable:
            if vol.provisioned_throughput is not None:
                raise InputError(f"layout level {vol.type}: throughput follows provisioned IOPS; "
                                 f"give only {vol.type}:IOPS")
            return vol.model_copy(update={"provisioned_iops": iops})
        top = self._tput_top(vt, iops)
        tput = vol.provisioned_throughput if vol.provisioned_throughput is not None else (vt.tput_included or top)
        tlow = vt.tput_min or 1
        if not tlow <= tput <= top:
            raise InputError(f"{vol.type} throughput {tput:g} MiB/s: expected {tlow:g} to {top:g} MiB/s")
        return vol.model_copy(update={"provisioned_iops": iops, "provisioned_throughput": tput})

    def level_spec(self, vt: VolumeType, vol: Volume) -> str:
        if vol.provisioned_throughput is None:
            return f"{vol.type}:{vol.provisioned_iops}"
        return f"{vol.type}:{vol.provisioned_iops}:{vol.provisioned_throughput:g}"

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        assert vol.provisioned_iops is not None
        warnings = [f"{vt.name}: Google bounds provisioned IOPS and throughput by volume size; those bounds are "
                    "not in the catalog and were not checked."]
        if (vt.tput_included is not None and vol.provisioned_throughput == vt.tput_included
                and vt.iops_included is not None and vol.provisioned_iops > vt.iops_included):
            warnings.append(f"{vt.name}: {vol.provisioned_iops:,} IOPS with the included {vt.tput_included:g} MiB/s "
                            f"(no throughput given); give {vol.type}:IOPS:MBPS, MBPS in MiB/s, to provision more.")
        if vol.provisioned_throughput is not None:
            mib = vol.provisioned_throughput
            rule, fld, name = f"provisioned ({mib:g} MiB/s)", "tput_max", "volume_mbps_provisioned"
        else:
            mib = self._tput_top(vt, vol.provisioned_iops)
            rule = f"throughput tied to provisioned IOPS ({vt.tput_per_iops:g} MiB/s per IOPS, max {vt.tput_max:g})"
            fld, name = "tput_per_iops", "volume_mbps_cap"
        return MemberPerf(
            iops=vol.provisioned_iops, iops_rule=f"provisioned ({vol.provisioned_iops:,} IOPS)",
            iops_field="iops_max", iops_name="volume_iops_provisioned", mbps=to_mbps(mib, vt), mbps_rule=rule,
            mbps_field=fld, mbps_name=name, warnings=warnings)

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        assert vol.provisioned_iops is not None
        iops_free = vt.iops_included or 0
        items = [_storage(cat, vt, vol),
                 priced(f"IOPS above {iops_free:,.0f}" if iops_free else "provisioned IOPS",
                        max(0, vol.provisioned_iops - iops_free), "IOPS-month", vt.price_per_iops,
                        cat.cite(vt, "price_per_iops"))]
        if vol.provisioned_throughput is not None:
            tput_free = vt.tput_included or 0
            extra = max(0.0, vol.provisioned_throughput - tput_free)
            items.append(priced(f"throughput above {tput_free:g} MiB/s", extra, "MiB/s-month", vt.price_per_tput,
                                cat.cite(vt, "price_per_tput")))
        return items


class GcpCloud(DefaultCloud):
    """GCP names predefined machine types (n2-standard-16: series, family, vCPUs) and prices per vCPU and GB from
    the catalog itself; an import of the machine-types list adds sizes, not per-VM disk limits."""

    name = "gcp"
    steady: str | None = "GCP Persistent Disk, Hyperdisk and machine types"
    instance_example = "n2-standard-16 or n2:16"
    import_howto = ("gcloud compute machine-types list --format=json > types.json; blockfit catalog import --cloud gcp "
                    "types.json --out gcp.toml; then --catalog gcp.toml (sizes and memory: GCP publishes no "
                    "machine-readable per-VM disk limits), or name a series with a vCPU count (n2:16)")
    price_list = "the Cloud Billing Catalog SKUs"
    price_import_hint = ""
    machine_types = True
