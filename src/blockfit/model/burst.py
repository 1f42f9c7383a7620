"""Burst in time: what a layout delivers while its credit buckets last, and for how long from full credits.

One function per documented mechanism builds the layout's buckets (every member's together), each citing the catalog
figure it rests on: AWS instance EBS burst, gp2's I/O credits, st1/sc1's throughput credits, Azure Premium SSD
P1-P20 credit bursting and Azure VM-level credit bursting. GCP and OCI volumes and instances do not burst. The burst
phase is the prediction's own limit table with every bursting cap at its burst figure (`predict` runs it), so the
burst figures and the sustained ones come from one arithmetic. docs/burst.md says what is assumed where a provider
publishes no bucket size.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal, TypeVar

from blockfit.catalog.models import Catalog, VolumeType
from blockfit.model.instance import InstanceCaps
from blockfit.model.kinds.azure import tier_for
from blockfit.model.kinds.base import MIB_PER_S_IN_MB_PER_S, MemberPerf, to_mbps
from blockfit.model.kinds.clouds import cloud_of
from blockfit.schema.prediction import Burst, BurstBucket, BurstMechanism, Prediction

if TYPE_CHECKING:
    from blockfit.model.resolve import Resolved


@dataclasses.dataclass(frozen=True)
class Lift:
    """A bucket in the making: the cap it lifts, the burst figure it lifts it to, the bucket (units still the
    sustained cap's own: per member for volumes)."""

    mechanism: BurstMechanism
    where: Literal["instance", "volume"]
    unit: Literal["iops", "mbps"]
    sustained: float
    burst: float
    spent_by: Literal["credits", "time"]
    full: float
    refill: str
    field: str              # the catalog field that cites the bucket
    refill_s: float | None = None


def aws_instance(cat: Catalog, caps: InstanceCaps) -> list[Lift]:
    """AWS EBS-optimized burst: the size's maximum "for 30 minutes at least once every 24 hours" (AWS-EBSOPT). No
    bucket size is published: blockfit assumes a 30-minute budget spent by every second above the baseline."""
    rule = cat.instance_burst
    if rule is None:
        return []
    refill = (f"assumed: the {rule.seconds / 60:g}-minute budget is full again "
              f"{(rule.refill_s or 0) / 3600:g} h after it was spent (AWS publishes no bucket)")
    out = []
    if caps.iops_burst is not None and caps.iops is not None:
        out.append(Lift("aws_instance", "instance", "iops", caps.iops, caps.iops_burst, "time", rule.seconds, refill,
                        "seconds", rule.refill_s))
    # each cap bursts on its own figures: a size whose IOPS are unknown still bursts its MB/s (m8g.2xlarge)
    if caps.mbps_burst is not None and caps.mbps is not None and caps.mbps_burst > caps.mbps:
        out.append(Lift("aws_instance", "instance", "mbps", caps.mbps, caps.mbps_burst, "time", rule.seconds, refill,
                        "seconds", rule.refill_s))
    return out


def azure_vm(cat: Catalog, caps: InstanceCaps) -> list[Lift]:
    """Azure VM-level credit bursting (AZ-BURSTING): a full bucket lasts 30 minutes at the burst rate; credits are
    the IOPS and MB/s left unused below the VM's cap, IOPS and MB/s apart."""
    rule = cat.instance_burst
    if rule is None:
        return []
    out = []
    pairs: list[tuple[Literal["iops", "mbps"], float | None, float | None]] = [
        ("iops", caps.iops, caps.iops_burst), ("mbps", caps.mbps, caps.mbps_burst)]
    for unit, sustained, burst in pairs:
        if sustained is not None and burst is not None and burst > sustained:
            out.append(Lift("azure_vm", "instance", unit, sustained, burst, "credits",
                            (burst - sustained) * rule.seconds, f"unused {unit_words(unit)} below the VM's cap",
                            "seconds"))
    return out


def aws_gp2(vt: VolumeType, size_gb: float, mp: MemberPerf) -> list[Lift]:
    """gp2 (AWS-GP2-CREDITS): 5.4 million I/O credits, earned at the baseline (3 per GiB per second), bursting to
    3,000 IOPS; a volume whose baseline reaches 3,000 does not burst. Burst duration = credits / (burst - baseline).
    Between 170 and 334 GiB the throughput bursts too (250 MiB/s, the size tier's burst_tput) on the same credits."""
    if vt.burst_iops is None or vt.burst_credits is None or mp.iops >= vt.burst_iops:
        return []
    refill = f"{mp.iops:,.0f} I/O credits per second per volume (3 per GiB), less what the volume uses"
    out = [Lift("aws_gp2", "volume", "iops", mp.iops, vt.burst_iops, "credits", vt.burst_credits, refill,
                "burst_credits")]
    tier = next(t for t in vt.tiers if size_gb <= t["max_gb"])
    if "burst_tput" in tier:
        mbps = to_mbps(tier["burst_tput"], vt)
        # the throughput burst spends the same I/O credits: as long as the IOPS burst at 256 KiB I/Os lasts
        seconds = vt.burst_credits / (vt.burst_iops - mp.iops)
        out.append(Lift("aws_gp2", "volume", "mbps", mp.mbps, mbps, "credits", (mbps - mp.mbps) * seconds,
                        "with the volume's I/O credits", "burst_credits"))
    return out


def aws_hdd(vt: VolumeType, size: float, mp: MemberPerf) -> list[Lift]:
    """st1 / sc1 (AWS-HDD): throughput credits, a full bucket of 1 TiB per TiB of size, filled at the baseline
    MiB/s and spent at up to the burst MiB/s per TiB (capped); every I/O of up to 1 MiB spends 1 MiB, so the
    volume's IOPS (of up to 1 MiB) burst with it."""
    if vt.tput_burst_per_gb is None or vt.tput_burst_max is None or vt.burst_credits_per_gb is None \
            or vt.iops_max is None:
        return []
    burst_mib = min(vt.tput_burst_per_gb * size, vt.tput_burst_max)
    burst = to_mbps(burst_mib, vt)
    if burst <= mp.mbps:
        return []
    full = to_mbps(vt.burst_credits_per_gb * size, vt)
    refill = f"the baseline {mp.mbps:,.1f} MB/s per volume, less what the volume uses"
    out = [Lift("aws_hdd", "volume", "mbps", mp.mbps, burst, "credits", full, refill, "burst_credits_per_gb")]
    burst_ops = min(vt.iops_max, burst_mib)
    if burst_ops > mp.iops:   # 1 MiB credits per second: the IOPS cap is the MiB/s one
        out.append(Lift("aws_hdd", "volume", "iops", mp.iops, burst_ops, "credits",
                        vt.burst_credits_per_gb * size, refill, "burst_credits_per_gb"))
    return out


def azure_disk(vt: VolumeType, size_gb: float) -> list[Lift]:
    """Azure Premium SSD P1-P20 credit bursting (AZ-BURSTING): a full bucket lasts 30 minutes at the tier's burst
    IOPS and MB/s; credits are unused IOPS and MB/s below the tier's target, IOPS and MB/s apart."""
    if vt.burst_bucket_s is None:
        return []
    tier = tier_for(vt, size_gb)
    if tier.get("burst") != "credit":
        return []
    out = []
    pairs: list[tuple[Literal["iops", "mbps"], float, float]] = [
        ("iops", float(tier["iops"]), float(tier["burst_iops"])),
        ("mbps", to_mbps(tier["mbps"], vt), to_mbps(tier["burst_mbps"], vt))]
    for unit, sustained, burst in pairs:
        if burst > sustained:
            out.append(Lift("azure_disk", "volume", unit, sustained, burst, "credits",
                            (burst - sustained) * vt.burst_bucket_s,
                            f"unused {unit_words(unit)} below the {tier['name']} target, per disk", "burst_bucket_s"))
    return out


def unit_words(unit: str) -> str:
    return "IOPS" if unit == "iops" else "MB/s"


def instance_lifts(cat: Catalog, caps: InstanceCaps) -> list[Lift]:
    """The instance's buckets, by the cloud's mechanism (GCP and OCI instances do not burst)."""
    mechanism = cloud_of(cat.cloud).instance_burst
    return [] if mechanism is None else INSTANCE_MECHANISMS[mechanism](cat, caps)


INSTANCE_MECHANISMS = {"aws_instance": aws_instance, "azure_vm": azure_vm}


def volume_lifts(vt: VolumeType, size_gb: float, mp: MemberPerf) -> list[Lift]:
    """One volume's buckets, by kind (the other kinds do not burst)."""
    if vt.kind == "aws_gp2":
        return aws_gp2(vt, size_gb, mp)
    if vt.kind == "aws_hdd":
        return aws_hdd(vt, size_gb, mp)
    return azure_disk(vt, size_gb) if vt.kind == "azure_tiered" else []


def lifts(r: Resolved) -> list[Lift]:
    """Every bucket of the layout on the instance."""
    return instance_lifts(r.cat, r.caps) + volume_lifts(r.vt, r.layout.volume.size_gb, r.member)


_Caps = TypeVar("_Caps", MemberPerf, InstanceCaps)


def _lifted(caps: _Caps, found: list[Lift], where: str) -> _Caps:
    """CAPS with the burst figure of each bucket FOUND at WHERE in place of the cap it lifts (iops or mbps)."""
    for lift in found:
        if lift.where == where and lift.unit == "iops":
            caps = dataclasses.replace(caps, iops=lift.burst)
        elif lift.where == where:
            caps = dataclasses.replace(caps, mbps=lift.burst)
    return caps


def lifted_member(mp: MemberPerf, found: list[Lift]) -> MemberPerf:
    """One member's caps with its buckets' burst figures (plan's search from history bounds with these)."""
    return _lifted(mp, found, "volume")


def lifted_caps(caps: InstanceCaps, found: list[Lift]) -> InstanceCaps:
    """The instance's caps with its buckets' burst figures."""
    return _lifted(caps, found, "instance")


def no_burst_reason(r: Resolved) -> str:
    """Why a layout does not burst, in one sentence."""
    steady = cloud_of(r.cat.cloud).steady
    if steady is not None:
        return f"{steady} do not burst"
    return f"neither {r.vt.name} at this size nor {r.instance.spec} bursts on credits"


def burst_resolved(r: Resolved, found: list[Lift]) -> Resolved:
    """The layout resolved with every lifted cap at its burst figure: the burst phase's caps."""
    return dataclasses.replace(r, member=lifted_member(r.member, found), caps=lifted_caps(r.caps, found))


def bucket_of(r: Resolved, lift: Lift, limit: str, iops_draw: float, mbps_draw: float) -> BurstBucket:
    """The layout's bucket: a volume's bucket times the members (striped I/O spends every member's alike)."""
    n = r.layout.members if lift.where == "volume" else 1
    full_s = lift.full if lift.spent_by == "time" else lift.full / (lift.burst - lift.sustained)
    entry = (r.vt if lift.where == "volume" else r.cat.instance_burst)
    assert entry is not None
    pair = {f"sustained_{lift.unit}": round(lift.sustained * n, 3), f"burst_{lift.unit}": round(lift.burst * n, 3)}
    return BurstBucket(mechanism=lift.mechanism, limit=limit, spent_by=lift.spent_by, full_s=round(full_s, 3),
                       refill=lift.refill, refill_s=lift.refill_s, iops_draw=iops_draw, mbps_draw=mbps_draw,
                       source=r.cat.cite(entry, lift.field), **pair)


def seconds_at(bucket: BurstBucket, demand: float) -> float | None:
    """Seconds a full bucket lasts at `demand` (its rate): None where demand at or below the sustained figure
    drains nothing."""
    if demand <= bucket.sustained * (1 + 1e-9):
        return None
    return bucket.full_s if bucket.spent_by == "time" else bucket.credits / (demand - bucket.sustained)


def phase_seconds(buckets: list[BurstBucket], iops: float, mbps: float) -> float | None:
    """How long a phase at `iops` (small I/O) or `mbps` (large I/O) lasts: its shortest-lived draining bucket."""
    found = [s for b in buckets for s in [seconds_at(b, iops * b.iops_draw + mbps * b.mbps_draw)] if s is not None]
    return round(min(found), 1) if found else None


def make_burst(r: Resolved, found: list[Lift], rows_iops: dict[str, float], rows_mbps: dict[str, float],
               names: tuple[str, str], table_iops: float, table_mbps: float, limited: tuple[str, str]) -> Burst:
    """The burst object from the burst phase's limit table: `rows_iops` / `rows_mbps` the rows' figures by name,
    `names` the volume's IOPS and MB/s row names."""
    buckets = []
    for lift in found:
        if lift.where == "volume":
            limit = names[0] if lift.unit == "iops" else names[1]
        else:
            limit = "instance_iops" if lift.unit == "iops" else "instance_mbps"
        n = r.layout.members if lift.where == "volume" else 1
        burst = lift.burst * n
        # what one logical I/O per second (MB/s) at this row's burst figure asks of the bucket
        iops_draw = burst / rows_iops[limit] if rows_iops.get(limit) else 0.0
        mbps_draw = burst / rows_mbps[limit] if rows_mbps.get(limit) else 0.0
        buckets.append(bucket_of(r, lift, limit, iops_draw, mbps_draw))
    buckets = _merge_hdd(buckets)
    return Burst(max_iops=table_iops, max_mbps=table_mbps, iops_limited_by=limited[0], mbps_limited_by=limited[1],
                 iops_duration_s=phase_seconds(buckets, table_iops, 0.0),
                 mbps_duration_s=phase_seconds(buckets, 0.0, table_mbps), buckets=buckets)


def _merge_hdd(buckets: list[BurstBucket]) -> list[BurstBucket]:
    """st1/sc1 spend one bucket of throughput credits for both rows: keep the MB/s bucket, drawing for both."""
    mb = next((b for b in buckets if b.mechanism == "aws_hdd" and b.burst_mbps is not None), None)
    ops = next((b for b in buckets if b.mechanism == "aws_hdd" and b.burst_iops is not None), None)
    if mb is None or ops is None:
        return buckets
    # an I/O of up to 1 MiB spends 1 MiB (1.048576 MB) of credits
    merged = mb.model_copy(update={"iops_draw": ops.iops_draw * MIB_PER_S_IN_MB_PER_S})
    return [merged if b is mb else b for b in buckets if b is not ops]


def fmt_duration(seconds: float) -> str:
    """'45 s', '30 min', '1.4 h'."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:,.0f} min"
    return f"{seconds / 3600:,.1f} h"


def burst_line(p: Prediction) -> str:
    """'burst: 16,000 IOPS / 1,049 MB/s for up to 30 min from full credits; sustained 6,000 / 156', or why there
    is no burst; '' for a result that says neither (written before burst was modelled)."""
    b = p.burst
    if b is None:   # a result written before burst was modelled says neither: nothing to say
        return f"burst: none ({p.no_burst_reason})" if p.no_burst_reason else ""
    if b.max_iops <= p.max_iops and b.max_mbps <= p.max_mbps:   # e.g. Ultra Disk's caps bind below the VM's burst
        return (f"burst: none (the caps that bind do not burst: {p.max_iops:,.0f} IOPS / {p.max_mbps:,.0f} MB/s "
                "while credits last too)")
    times = [s for s in (b.iops_duration_s, b.mbps_duration_s) if s is not None]
    if not times:
        span = "while no credit bucket drains"
    elif b.iops_duration_s is not None and b.mbps_duration_s is not None and \
            fmt_duration(b.iops_duration_s) != fmt_duration(b.mbps_duration_s):
        span = (f"for up to {fmt_duration(b.iops_duration_s)} (IOPS) / {fmt_duration(b.mbps_duration_s)} (MB/s) "
                "from full credits")
    else:
        span = f"for up to {fmt_duration(min(times))} from full credits"
    return (f"burst: {b.max_iops:,.0f} IOPS / {b.max_mbps:,.0f} MB/s {span}; "
            f"sustained {p.max_iops:,.0f} / {p.max_mbps:,.0f}")


def burst_seconds(p: Prediction) -> float | None:
    """The longest a burst of this layout lasts from full credits (IOPS or MB/s phase); None: nothing bursts."""
    if p.burst is None:
        return None
    times = [s for s in (p.burst.iops_duration_s, p.burst.mbps_duration_s) if s is not None]
    return max(times) if times else None


def measured_words(p: Prediction, measured_s: float, drained_s: float = 0.0) -> str:
    """Did a measurement of measured_s seconds (after drained_s seconds of saturating load) fall inside the layout's
    burst? Calibrate and bench say it beside their figures: a short run on full credits measures the burst."""
    lasts = burst_seconds(p)
    what = f"{p.layout} on {p.instance}"
    if lasts is None:
        return f"{what} does not burst on credits: the measured figures are sustained ones."
    assert p.burst is not None
    figures = (f"burst {p.burst.max_iops:,.0f} IOPS / {p.burst.max_mbps:,.0f} MB/s, sustained {p.max_iops:,.0f} / "
               f"{p.max_mbps:,.0f}")
    if drained_s >= lasts:
        return (f"{what} bursts for up to {fmt_duration(lasts)} from full credits ({figures}); the first "
                f"{fmt_duration(drained_s)} of saturating load spent them, so the windows measured the sustained "
                "caps (credits earned below the baseline during the search can lift a window briefly).")
    if drained_s + measured_s <= lasts:
        return (f"{what} bursts for up to {fmt_duration(lasts)} from full credits ({figures}): this "
                f"{fmt_duration(measured_s)} measurement fell inside the burst if its credits were full, so its "
                "figures may be burst figures; calibrate --sustained spends the credits first.")
    return (f"{what} bursts for up to {fmt_duration(lasts)} from full credits ({figures}): the first "
            f"{fmt_duration(lasts)} of this {fmt_duration(measured_s)} measurement may have run on burst "
            "credits; calibrate --sustained spends them first.")
