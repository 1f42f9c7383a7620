"""Every instance cap the catalog knows reaches the prediction: a walk over every shape of every shipped catalog
(each cloud, each version, each volume type, disk interface and bandwidth weighting a shape's caps name), and the
r5b.large case of a shape whose sustained baseline is unknown (its burst maximum binds as its cap)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from blockfit.catalog import CLOUDS, Catalog, catalog_from_toml, load_catalog, raw_catalog, versions
from blockfit.catalog.models import CapSet, Shape
from blockfit.errors import InputError
from blockfit.model import predict
from blockfit.model.instance import instance_at
from blockfit.schema import Instance, Prediction, Workload
from blockfit.specs import parse_instance, parse_layout

# one valid layout per volume type kind: the instance caps do not depend on the volume's own size or level
LAYOUT_OF_KIND = {"aws_gp3": "1x1000G@{}", "aws_gp2": "1x1000G@{}", "aws_piops": "1x1000G@{}:3000",
                  "aws_hdd": "1x1000G@{}", "azure_tiered": "1x1024G@{}", "azure_provisioned": "1x1024G@{}:10000",
                  "gcp_pd": "1x1000G@{}", "gcp_hyperdisk": "1x1000G@{}:5000", "oci_vpu": "1x1000G@balanced"}
DEFAULT_TYPE = {"oci": "block"}
MIB = 1.048576
WORKLOAD = Workload(small_io=16384, large_io=128 * 1024, read_pct=100)


def catalogs() -> list[tuple[str, date]]:
    return [(cloud, v) for cloud in CLOUDS for v in versions(cloud)]


def matching_capset(shape: Shape, vtype: str, interface: str | None, weighting: str | None) -> CapSet | None:
    """The cap set the catalog says holds for this selection (the first whose selectors all match)."""
    interface = interface or (shape.interfaces[0] if shape.interfaces else None)
    weighting = weighting or (shape.weightings[0] if shape.weightings else None)
    for cs in shape.caps:
        if (not cs.volume_types or vtype in cs.volume_types) and cs.interface in (None, interface) \
                and cs.weighting in (None, weighting):
            return cs
    return None


def fixed_selections(cat: Catalog, shape: Shape) -> Iterator[tuple[Instance, str, dict[str, float | None]]]:
    """Each (instance, volume type, known caps) a fixed shape's catalog entry distinguishes."""
    every = [DEFAULT_TYPE[cat.cloud]] if cat.cloud == "oci" else list(cat.volume_types)
    types = [t for t in every if not shape.volume_types or t in shape.volume_types]
    for vtype in types or shape.volume_types[:1]:
        caps_of = cat.volume_types[vtype].vm_caps_as or vtype   # Azure Standard SSD/HDD: the Premium SSD caps
        for interface in shape.interfaces or [None]:
            for weighting in shape.weightings or [None]:
                entry: Shape | CapSet = matching_capset(shape, caps_of, interface, weighting) or shape
                known = {k: getattr(entry, k) for k in ("iops", "mbps", "iops_burst", "mbps_burst")}
                inst = Instance(cloud=cat.cloud, shape=shape.name, interface=interface, ebs_weighting=weighting)
                yield inst, vtype, known


def flex_selections(cat: Catalog, shape: Shape) -> Iterator[tuple[Instance, str, dict[str, float | None]]]:
    """OCI's VM rule at the smallest and the largest OCPU count the shape is sold with."""
    rule = cat.instance_rule
    assert rule is not None and shape.gbps_per_ocpu and shape.gbps_max and shape.ocpus_min and shape.ocpus_max
    counts = shape.ocpu_counts or [int(shape.ocpus_min), int(shape.ocpus_max)]
    for ocpus in dict.fromkeys(counts):
        gbps = min(shape.gbps_per_ocpu * ocpus, shape.gbps_max)
        known: dict[str, float | None] = {
            "iops": None if "iops" in shape.unknown else min(rule.iops_per_gbps * gbps, rule.iops_max),
            "mbps": None if "mbps" in shape.unknown else min(rule.mbps_per_gbps * gbps, rule.mbps_max),
            "iops_burst": None, "mbps_burst": None}
        yield instance_at(cat, shape.name, float(ocpus)), "block", known


def tier_selections(cat: Catalog, shape: Shape) -> Iterator[tuple[Instance, str, dict[str, float | None]]]:
    """GCP: every vCPU row and every volume type whose per-VM caps the row gives; a row's limit over every disk
    ("all-disks") bounds each type's figures (the lower is the cap)."""
    for row in shape.tiers:
        every = row.get("all-disks") or {}
        types = [t for t in cat.volume_types if isinstance(row.get(t), dict)
                 or (every and (not shape.volume_types or t in shape.volume_types))]
        for vtype in types:
            own = row.get(vtype) or {}
            known: dict[str, float | None] = {"iops_burst": None, "mbps_burst": None}
            for unit in ("iops", "mbps"):
                figures = [f for f in (own.get(unit), every.get(unit)) if f is not None]
                known[unit] = min(figures) if figures else None
            yield instance_at(cat, shape.name, float(row["vcpus_min"])), vtype, known


SELECTIONS = {"fixed": fixed_selections, "flex": flex_selections, "vcpu_tiers": tier_selections}


def predicted(cat: Catalog, inst: Instance, vtype: str) -> Prediction | None:
    """The prediction for one selection; None where the catalog says the shape cannot attach the type."""
    spec = LAYOUT_OF_KIND[cat.volume_types[vtype].kind].format(vtype)
    try:
        layout = parse_layout(spec, cat.cloud, cat)
        return predict(layout, inst, WORKLOAD, cat, with_curve=False)
    except InputError as exc:
        if "cannot attach" in str(exc) or "not offered on" in str(exc) or "needs at least" in str(exc):
            return None
        raise


def missing_caps(p: Prediction, known: dict[str, float | None], timed: bool) -> list[str]:
    """The known caps the prediction does not carry: sustained ones as the instance rows (or, where the baseline is
    unknown, the burst maximum in its place), burst ones as the burst phase's instance buckets; in a catalog version
    that does not say how long an instance bursts (no [instance_burst], `timed` False), as a warning naming them."""
    rows = {row.name for row in p.limits}
    said = " ".join(p.warnings)
    buckets = {(b.limit, b.burst_iops or b.burst_mbps) for b in (p.burst.buckets if p.burst else [])}
    out = []
    for unit, applied in (("iops", p.instance_iops_cap), ("mbps", p.instance_mbps_cap)):
        base, burst = known[unit], known[f"{unit}_burst"]
        cap = base if base is not None else burst
        if cap is not None and (f"instance_{unit}" not in rows or applied is None
                                or not (applied == pytest.approx(cap) or applied == pytest.approx(cap * MIB))):
            out.append(f"{unit} {cap:g} (applied: {applied})")
        if base is not None and burst is not None and burst > base:
            if not timed and f"{burst:,.0f}" in said:
                continue
            if not any(limit == f"instance_{unit}" and got == pytest.approx(burst) for limit, got in buckets):
                out.append(f"{unit}_burst {burst:g} (burst buckets: {sorted(buckets, key=str)})")
    return out


@pytest.mark.parametrize(("cloud", "version"), catalogs(), ids=lambda v: str(v))
def test_no_shape_loses_a_cap_the_catalog_knows(cloud: str, version: date) -> None:
    cat = load_catalog(cloud, version)
    dropped, walked, timed = [], 0, cat.instance_burst is not None
    for shape in cat.shapes.values():
        for inst, vtype, known in SELECTIONS[shape.kind](cat, shape):
            p = predicted(cat, inst, vtype)
            if p is None:
                continue
            walked += 1
            dropped += [f"{inst.spec} with {vtype}: {m}" for m in missing_caps(p, known, timed)]
    assert walked >= len(cat.shapes) // 2   # the walk walked: most shapes give at least one prediction
    assert not dropped, f"{len(dropped)} known caps dropped, e.g. {dropped[:5]}"


def _without_baseline(name: str) -> Catalog:
    """The shipped AWS catalog with one shape's sustained baseline taken out (marked unknown), as r5b.large was."""
    base = load_catalog("aws")
    raw: dict[str, Any] = copy.deepcopy(raw_catalog(base))
    entry = raw["shapes"][name]
    for fld in ("iops", "mbps"):
        entry.pop(fld, None)
        entry.get("sources", {}).pop(fld, None)
    entry["unknown"] = ["iops", "mbps"]
    return catalog_from_toml(raw, "<r5b.large without baseline>")


def test_unknown_baseline_keeps_the_burst_caps_as_caps() -> None:
    """The case found on the way: 1x51G@io2:16000 on r5b.large at 256k predicted 4,194 MB/s 'limited by volume
    IOPS' while the instance allows 1,250 MB/s at most. Without its baseline the burst maximum binds, warned."""
    cat = _without_baseline("r5b.large")
    p = predict(parse_layout("1x51G@io2:16000", "aws", cat), parse_instance("r5b.large", "aws", cat),
                Workload(small_io=256 * 1024, large_io=256 * 1024), cat)
    assert p.max_mbps <= 1250 + 1e-6
    assert p.mbps_limited_by == "instance_mbps" and p.iops_limited_by == "instance_mbps"
    assert p.instance_iops_cap == 43333 and p.instance_mbps_cap == 1250
    assert sum("baseline" in w and "burst maximum" in w for w in p.warnings) == 2
    row = next(row for row in p.limits if row.name == "instance_mbps")
    assert "burst maximum" in row.description and row.sources[0].id == "AWS-EBSOPT-R5B"


def test_r5b_large_sustained_baseline_and_its_burst() -> None:
    """The shipped catalog now has r5b.large's baseline (1,250 Mbps, 5,417 IOPS): sustained 156.25 MB/s, the
    1,250 MB/s maximum as the burst phase."""
    cat = load_catalog("aws")
    p = predict(parse_layout("1x51G@io2:16000", "aws", cat), parse_instance("r5b.large", "aws", cat),
                Workload(small_io=256 * 1024, large_io=256 * 1024), cat)
    assert p.max_mbps == pytest.approx(156.25, abs=0.06) and p.mbps_limited_by == "instance_mbps"
    assert p.burst is not None and p.burst.max_mbps == pytest.approx(1250)
    assert p.burst.mbps_limited_by == "instance_mbps"


def test_burst_of_one_unit_kept_when_the_other_is_unknown() -> None:
    """m8g.2xlarge: its IOPS are unknown, its MB/s baseline and maximum are not: the MB/s still bursts."""
    cat = load_catalog("aws")
    p = predict(parse_layout("1x1000G@gp3:16000:1000", "aws", cat), parse_instance("m8g.2xlarge", "aws", cat),
                Workload(), cat)
    assert p.instance_mbps_cap == pytest.approx(312.5) and p.instance_iops_cap is None
    assert p.burst is not None and [b.limit for b in p.burst.buckets] == ["instance_mbps"]
    assert p.burst.buckets[0].burst_mbps == pytest.approx(1250)
