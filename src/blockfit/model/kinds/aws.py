"""AWS EBS: gp3 (provisioned IOPS/throughput over an included baseline), gp2 (3 IOPS/GiB), io1/io2
(provisioned IOPS, throughput tied to IOPS), st1/sc1 (HDD, throughput per TiB). SSD volumes count
I/Os above 256 KiB as several (HDD: 1 MiB)."""

from __future__ import annotations

from blockfit.catalog.models import Catalog, Shape, VolumeType
from blockfit.errors import InputError
from blockfit.model.kinds.base import DefaultCloud, FixedPerformance, MemberPerf, check_size, fmt_tput, priced, to_mbps
from blockfit.schema import CostItem, Volume


def _accounting(vt: VolumeType) -> int | None:
    return vt.io_accounting_kib * 1024 if vt.io_accounting_kib else None


def _storage(cat: Catalog, vt: VolumeType, vol: Volume) -> CostItem:
    return priced("storage", vol.size_gb, "GiB-month", vt.price_per_gb, cat.cite(vt, "price_per_gb"))


class Gp3:
    def level_names(self, vt: VolumeType) -> list[str]:
        return []

    def normalize(self, cat: Catalog, vt: VolumeType, vol: Volume) -> Volume:
        check_size(vt, vol, vol.type)
        assert vt.iops_included and vt.iops_max and vt.iops_per_gb_max and vt.tput_included and vt.tput_max
        iops = vol.provisioned_iops if vol.provisioned_iops is not None else int(vt.iops_included)
        top = max(vt.iops_included, min(vt.iops_max, vt.iops_per_gb_max * vol.size_gb))
        if not vt.iops_included <= iops <= top:
            raise InputError(f"gp3 IOPS {iops} for {vol.size_gb} GiB: expected {vt.iops_included:,.0f} to {top:,.0f} "
                             f"({vt.iops_per_gb_max:g} IOPS per GiB, max {vt.iops_max:,.0f})")
        tput = vol.provisioned_throughput if vol.provisioned_throughput is not None else vt.tput_included
        ttop = min(vt.tput_max, max(vt.tput_included, (vt.tput_per_iops_max or 0) * iops))
        if not vt.tput_included <= tput <= ttop:
            raise InputError(f"gp3 throughput {tput:g} MiB/s at {iops} IOPS: expected {vt.tput_included:g} to "
                             f"{ttop:g} MiB/s ({vt.tput_per_iops_max:g} MiB/s per IOPS, max {vt.tput_max:g})")
        return vol.model_copy(update={"provisioned_iops": iops, "provisioned_throughput": tput})

    def level_spec(self, vt: VolumeType, vol: Volume) -> str:
        return f"{vol.type}:{vol.provisioned_iops}:{vol.provisioned_throughput:g}"

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        assert vol.provisioned_iops is not None and vol.provisioned_throughput is not None
        return MemberPerf(
            iops=vol.provisioned_iops, iops_rule=f"provisioned ({vol.provisioned_iops:,} IOPS)",
            iops_field="iops_max", iops_name="volume_iops_provisioned",
            mbps=to_mbps(vol.provisioned_throughput, vt),
            mbps_rule=f"provisioned ({vol.provisioned_throughput:g} MiB/s)", mbps_field="tput_max",
            mbps_name="volume_mbps_provisioned", accounting_bytes=_accounting(vt))

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        assert vol.provisioned_iops is not None and vol.provisioned_throughput is not None
        assert vt.iops_included is not None and vt.tput_included is not None
        return [
            _storage(cat, vt, vol),
            priced(f"IOPS above {vt.iops_included:,.0f}", max(0, vol.provisioned_iops - vt.iops_included),
                   "IOPS-month", vt.price_per_iops, cat.cite(vt, "price_per_iops")),
            priced(f"throughput above {vt.tput_included:g} MiB/s",
                   max(0.0, vol.provisioned_throughput - vt.tput_included), "MiB/s-month",
                   vt.price_per_tput, cat.cite(vt, "price_per_tput")),
        ]


class Gp2(FixedPerformance):
    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        assert vt.iops_per_gb and vt.iops_min and vt.iops_max
        scaled = vt.iops_per_gb * vol.size_gb
        iops = min(max(scaled, vt.iops_min), vt.iops_max)
        tier = next(t for t in vt.tiers if vol.size_gb <= t["max_gb"])
        warnings = []
        if vol.size_gb < 1024:
            warnings.append(f"gp2 under 1 TiB bursts to 3,000 IOPS while credits last; {iops:,.0f} is the baseline.")
        if "burst_tput" in tier:
            warnings.append(f"gp2 of 170-334 GiB bursts to {tier['burst_tput']} MiB/s on credits; "
                            f"{tier['tput']} MiB/s sustained.")
        return MemberPerf(
            iops=iops, iops_rule=(f"per-GB scaling ({vt.iops_per_gb:g} IOPS/GiB x {vol.size_gb} GiB)"
                                  if vt.iops_min < scaled < vt.iops_max else "per-volume limit"),
            iops_field="iops_per_gb", iops_name="volume_iops_per_gb" if scaled < vt.iops_max else "volume_iops_cap",
            mbps=to_mbps(tier["tput"], vt), mbps_rule=f"size tier ({tier['tput']} MiB/s)", mbps_field="tiers",
            mbps_name="volume_mbps_cap", accounting_bytes=_accounting(vt), warnings=warnings)

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        return [_storage(cat, vt, vol)]


class ProvisionedIops:
    """io1 / io2: IOPS provisioned (≤ per-GiB ratio); throughput follows IOPS through the type's tiers."""

    def level_names(self, vt: VolumeType) -> list[str]:
        return []

    def normalize(self, cat: Catalog, vt: VolumeType, vol: Volume) -> Volume:
        check_size(vt, vol, vol.type)
        assert vt.iops_min and vt.iops_max and vt.iops_per_gb_max
        if vol.provisioned_throughput is not None:
            raise InputError(f"layout level {vol.type}: throughput follows provisioned IOPS; give only {vol.type}:IOPS")
        if vol.provisioned_iops is None:
            raise InputError(f"layout level {vol.type}: expected provisioned IOPS, e.g. {vol.type}:16000")
        top = min(vt.iops_max, vt.iops_per_gb_max * vol.size_gb)
        if not vt.iops_min <= vol.provisioned_iops <= top:
            raise InputError(f"{vol.type} IOPS {vol.provisioned_iops} for {vol.size_gb} GiB: expected "
                             f"{vt.iops_min:,.0f} to {top:,.0f} "
                             f"({vt.iops_per_gb_max:g} per GiB, max {vt.iops_max:,.0f})")
        return vol

    def level_spec(self, vt: VolumeType, vol: Volume) -> str:
        return f"{vol.type}:{vol.provisioned_iops}"

    def throughput_mib(self, vt: VolumeType, iops: float) -> float:
        tier = next(t for t in vt.tiers if iops <= t["iops_upto"])
        return float(min(tier["tput_max"], iops * tier["tput_per_iops"]))

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        assert vol.provisioned_iops is not None
        mib = self.throughput_mib(vt, vol.provisioned_iops)
        return MemberPerf(
            iops=vol.provisioned_iops, iops_rule=f"provisioned ({vol.provisioned_iops:,} IOPS)", iops_field="iops_max",
            iops_name="volume_iops_provisioned", mbps=to_mbps(mib, vt),
            mbps_rule=f"throughput tied to provisioned IOPS ({fmt_tput(mib)} MiB/s)", mbps_field="tiers",
            mbps_name="volume_mbps_cap", accounting_bytes=_accounting(vt))

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        assert vol.provisioned_iops is not None
        items = [_storage(cat, vt, vol)]
        if vt.price_iops_tiers:
            lower = 0.0
            for tier in vt.price_iops_tiers:
                qty = max(0.0, min(vol.provisioned_iops, tier["upto"]) - lower)
                if qty:
                    label = f"IOPS {lower + 1:,.0f}-{min(tier['upto'], vol.provisioned_iops):,.0f}"
                    items.append(priced(label, qty, "IOPS-month", tier["price"], cat.cite(vt, "price_iops_tiers")))
                lower = tier["upto"]
        else:
            items.append(priced("provisioned IOPS", vol.provisioned_iops, "IOPS-month", vt.price_per_iops,
                                cat.cite(vt, "price_per_iops")))
        return items


class Hdd(FixedPerformance):
    """st1 / sc1. AWS: "an I/O request of 1 MiB or less counts as a 1 MiB I/O credit" (hdd-vols), so a random
    8 KiB I/O spends as much of the volume's throughput as a 1 MiB one: the volume's IOPS at any I/O size up to
    1 MiB is its MiB/s (baseline), capped by the published IOPS maximum (of 1 MiB I/Os). "However, if the I/Os
    are sequential, they are merged into 1 MiB I/O blocks": the MB/s figure (sequential large I/O) spends one credit
    per MiB whatever the I/O size (merges_sequential)."""

    def perf(self, cat: Catalog, vt: VolumeType, vol: Volume) -> MemberPerf:
        assert vt.iops_max and vt.tput_per_gb and vt.tput_max
        mib = min(vt.tput_per_gb * vol.size_gb, vt.tput_max)
        credits = min(vt.iops_max, mib)            # 1 MiB I/O credits per second
        per_tib = vt.tput_per_gb * 1024
        warnings = [f"{vol.type} is an HDD type: every random I/O of up to 1 MiB costs 1 MiB of its "
                    f"{fmt_tput(mib)} MiB/s baseline ({per_tib:g} MiB/s per TiB), so small random I/O gets "
                    f"{credits:,.0f} IOPS; "
                    "not suited to database data files."]
        if vt.tput_burst_per_gb and vt.tput_burst_max:
            burst = min(vt.tput_burst_per_gb * vol.size_gb, vt.tput_burst_max)
            warnings.append(f"{vol.type} bursts to {fmt_tput(burst)} MiB/s "
                            f"({vt.tput_burst_per_gb * 1024:g} MiB/s per TiB, "
                            f"max {vt.tput_burst_max:g}) while its burst bucket lasts; the sustained baseline "
                            f"{fmt_tput(mib)} MiB/s is modelled.")
        by_tput = credits < vt.iops_max
        return MemberPerf(
            iops=credits,
            iops_rule=(f"every I/O of up to 1 MiB costs 1 MiB of the {fmt_tput(mib)} MiB/s baseline" if by_tput
                       else f"per-volume cap ({vt.iops_max:,.0f} IOPS of up to 1 MiB)"),
            iops_field="io_accounting_kib" if by_tput else "iops_max",
            iops_name="volume_iops_per_gb" if by_tput else "volume_iops_cap", mbps=to_mbps(mib, vt),
            mbps_rule=f"baseline {per_tib:g} MiB/s per TiB" if mib < vt.tput_max else "per-volume cap",
            mbps_field="tput_per_gb", mbps_name="volume_mbps_per_gb" if mib < vt.tput_max else "volume_mbps_cap",
            accounting_bytes=_accounting(vt), merges_sequential=True, warnings=warnings)

    def cost(self, cat: Catalog, vt: VolumeType, vol: Volume) -> list[CostItem]:
        return [_storage(cat, vt, vol)]


class AwsCloud(DefaultCloud):
    """EC2 sizes are named FAMILY.SIZE (r6i.2xlarge); EBS is provisioned with the AWS CLI or Terraform."""

    name = "aws"
    instance_burst: str | None = "aws_instance"
    instance_example = "r6i.2xlarge or m5.12xlarge"
    import_howto = ("aws ec2 describe-instance-types --output json > types.json; blockfit catalog import --cloud aws "
                    "types.json --out aws.toml; then --catalog aws.toml")
    price_list = "an AWS Price List file (AmazonEC2)"
    provision_emitter: str | None = "provision-aws"
    provisioners: tuple[str, ...] = ("aws-cli", "terraform")

    def family(self, shape: Shape) -> str:
        if shape.series:
            return shape.series
        return shape.name.split(".")[0] if "." in shape.name else shape.name
